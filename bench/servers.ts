import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { loadConfig, RATE_LIMIT_MAX } from '../src/config.js';
import { registerResponseBatching } from '../src/http/responseBatching.js';
import { closeServices, openServices } from '../src/services.js';

export interface RunningServer {
  /** `http://127.0.0.1:<ephemeral port>`, no trailing slash. */
  baseUrl: string;
  /** The listening HTTP server (bench/profile.ts counts its requests). */
  server: Server;
  close(): Promise<void>;
}

export type DatabaseChoice = { kind: 'sqlite' } | { kind: 'postgres'; url: string; schema: string };

export interface HandoffServer extends RunningServer {
  adminToken: string;
  /** Signs the Telegram init data of bench workers (Authorization: tma ...). */
  telegramBotToken: string;
  /** The app itself, for server-side checks (open stream subscriptions). */
  app: FastifyInstance;
  /** Where the SQLite file and the sandbox chain state live (removed on close). */
  dataDir: string;
}

/** Every server listens on loopback only, on a port the OS picks, so runs never collide. */
export async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  return `http://127.0.0.1:${port}`;
}

/**
 * What the app's GET /tasks/:id answers for the bench's task (557 bytes of JSON): the bare route
 * serving it shows how much of a request's cost is the answer itself (serializing it, writing
 * it to the socket, the client reading it) rather than the app's work.
 */
export const TASK_ANSWER = {
  task: {
    id: 'tsk_01m84x170h00001q5ce9pm57nbd6svscsezwt0xc',
    title: 'Photograph the town hall',
    description: 'A clear daytime photo of the front entrance, landscape orientation, no people.',
    currency: 'TON',
    reward: '0.5',
    platformFee: '0.15',
    totalAmount: '0.65',
    status: 'FUNDED',
    paymentStatus: 'DEPOSITED',
    executionDeadlineDays: 7,
    executionDeadline: null,
    webhookUrl: null,
    createdAt: '2026-11-23T19:09:56.113Z',
    updatedAt: '2026-11-23T19:09:56.113Z',
    agent: {
      id: 'agt_01m84x16x800003xpa3sde99breykfk53e052qam',
      name: 'Bench agent',
    },
    worker: null,
    applications: [],
    reviewHours: 72,
  },
};

/**
 * The ceiling: Fastify with nothing of ours in it (no auth, no schemas, no database). What the
 * app loses against this is the cost of its own work per request.
 */
export async function startBaseline(options: { batched?: boolean } = {}): Promise<RunningServer> {
  const app = Fastify({ logger: false });
  // The app writes the answers of one event-loop turn together: the batched ceiling is a
  // reference row that shows what that alone is worth to a bare route.
  if (options.batched) registerResponseBatching(app);
  app.get('/', async () => ({ hello: 'world' }));
  app.get('/task', async () => TASK_ANSWER);
  const baseUrl = await listen(app);
  return { baseUrl, server: app.server, close: () => app.close() };
}

/**
 * The real app as main.ts builds it (openServices + buildApp with its background jobs), with
 * logging off so the numbers measure the request path rather than log I/O.
 */
export async function startHandoff(database: DatabaseChoice): Promise<HandoffServer> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'handoff-bench-'));
  const adminToken = randomBytes(16).toString('hex');
  // loadConfig with an environment of our own (not process.env, which may point DATABASE_URL
  // elsewhere), so the bench gets every default main.ts would, including settings added later.
  const { config } = loadConfig({
    DATA_DIR: dataDir,
    DATABASE_URL: database.kind === 'postgres' ? database.url : undefined,
    HOST: '127.0.0.1',
    PORT: '0',
    ADMIN_TOKEN: adminToken,
    SECRET_KEY: randomBytes(32).toString('hex'),
    // No TELEGRAM_BOT_TOKEN: the config generates one into DATA_DIR, which means "no bot", so
    // worker notifications are only recorded. A given token turns the bot on, and the bench would
    // send every notification to api.telegram.org (with a made-up token) while it measures.
    // The highest limits the config allows: the bench drives one agent far past any sane
    // per-agent limit, and a 429 would measure the limiter rather than the app.
    RATE_LIMIT_STANDARD: String(RATE_LIMIT_MAX),
    RATE_LIMIT_CHAT: String(RATE_LIMIT_MAX),
    RATE_LIMIT_UPLOAD: String(RATE_LIMIT_MAX),
    // The stream scenario holds 1,000 streams over one agent key and one worker; the cap on open
    // streams per key (10 by default) is raised to the config's maximum for the same reason.
    SSE_MAX_STREAMS_PER_KEY: '100000',
    // The webhook receiver is on loopback, which production refuses (SSRF guard); development
    // allows it, as it would by default here, said explicitly so a changed default cannot stop it.
    WEBHOOK_ALLOW_PRIVATE: 'true',
    // The webhook scenario holds its receiver's first answers while a backlog builds up (see
    // webhooks.ts): the longest time-out the config allows keeps those attempts from failing.
    WEBHOOK_TIMEOUT_MS: '60000',
  });
  let services: Awaited<ReturnType<typeof openServices>> | undefined;
  let app: FastifyInstance | undefined;
  const close = async () => {
    await app?.close();
    if (services) await closeServices(services);
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    services = await openServices(config, database.kind === 'postgres' ? { pgSchema: database.schema } : {});
    app = await buildApp({ config, ...services, logger: false, jobs: true });
    const baseUrl = await listen(app);
    return {
      baseUrl,
      server: app.server,
      adminToken,
      telegramBotToken: config.telegramBotToken,
      app,
      dataDir,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
