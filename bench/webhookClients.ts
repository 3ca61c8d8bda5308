/**
 * The client thread of the webhook scenario, both ends of it:
 *
 * - the producer: closed loops creating tasks (POST /tasks, each commits one task.funded event
 *   and its delivery) for a given time, every request awaited, so the count of 201s is exactly
 *   the count of events created (a load generator that drops its in-flight requests at the end
 *   would leave events nobody counted);
 * - the receiver, as an agent would run one, on 127.0.0.1 over node:http. It checks each
 *   delivery's signature (hex HMAC-SHA256 of the raw body with the agent's API key, compared in
 *   constant time), counts each delivery id, times each delivery from its event's creation (the
 *   envelope's timestamp) to its arrival, and answers 200, or, while told to hold, keeps the
 *   answers back until told to release them.
 *
 * Started by webhooks.ts, never run directly.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parentPort, workerData } from 'node:worker_threads';
import type { ThreadMessage } from './thread.js';
import { percentile } from './util.js';

export interface WebhookClientsInput {
  apiKey: string;
  /** Where tasks are created, and the body to create them with. */
  baseUrl: string;
  taskBody: unknown;
  concurrency: number;
  requestTimeoutS: number;
}

/** What one producer run created. */
export interface Produced {
  /** POST /tasks answered 201: one event, one delivery each. */
  created: number;
  /** Every status seen; 0 is a connection error or time-out. */
  statusCounts: Record<string, number>;
}

/** One run's deliveries as the receiver saw them. */
export interface ReceiverReport {
  type: 'report';
  /** Distinct delivery ids received in this run. */
  deliveries: number;
  /** Requests whose delivery id had been received before (in any run). */
  duplicates: number;
  badSignatures: number;
  /** Requests that were not a well-formed webhook (method, path, headers or body). */
  malformed: number;
  /** Event created (envelope timestamp) -> request body read, in ms, per delivery. */
  lagP50Ms: number;
  lagP99Ms: number;
  lagMaxMs: number;
  /** Wall-clock ms (Date.now()) of the earliest event creation and of the last arrival. */
  firstEventAt: number;
  lastArrivalAt: number;
  /** When the held answers were released (0 when the run held nothing). */
  releasedAt: number;
  /** Deliveries that arrived after the release. */
  afterRelease: number;
}

const input = workerData as WebhookClientsInput;
const { apiKey } = input;
const port = parentPort!;
const seen = new Set<string>();
const held: http.ServerResponse[] = [];
let holding = false;
let run = newRun();

function newRun() {
  return {
    ids: 0,
    duplicates: 0,
    badSignatures: 0,
    malformed: 0,
    lags: [] as number[],
    firstEventAt: Number.POSITIVE_INFINITY,
    lastArrivalAt: 0,
    releasedAt: 0,
    afterRelease: 0,
  };
}

function validSignature(body: Buffer, signature: string | string[] | undefined): boolean {
  if (typeof signature !== 'string' || !/^[0-9a-f]{64}$/.test(signature)) return false;
  const expected = createHmac('sha256', apiKey).update(body).digest();
  return timingSafeEqual(Buffer.from(signature, 'hex'), expected);
}

function receive(request: http.IncomingMessage, body: Buffer): void {
  const arrivedAt = Date.now();
  const id = request.headers['x-service-delivery-id'];
  let createdAt = Number.NaN;
  try {
    createdAt = Date.parse((JSON.parse(body.toString('utf8')) as { timestamp: string }).timestamp);
  } catch {}
  if (request.method !== 'POST' || typeof id !== 'string' || Number.isNaN(createdAt)) {
    run.malformed++;
    return;
  }
  if (!validSignature(body, request.headers['x-service-signature'])) run.badSignatures++;
  if (seen.has(id)) {
    run.duplicates++;
    return;
  }
  seen.add(id);
  run.ids++;
  run.lags.push(arrivedAt - createdAt);
  run.firstEventAt = Math.min(run.firstEventAt, createdAt);
  run.lastArrivalAt = Math.max(run.lastArrivalAt, arrivedAt);
  if (run.releasedAt > 0) run.afterRelease++;
}

const server = http.createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    receive(request, Buffer.concat(chunks));
    if (holding) held.push(response);
    else response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  });
});
// The app's dispatcher keeps its connections alive between deliveries, as agents' servers would.
server.keepAliveTimeout = 60_000;

const producerAgent = new http.Agent({ keepAlive: true, maxSockets: input.concurrency });
const taskBody = JSON.stringify(input.taskBody);

function createTask(): Promise<number> {
  return new Promise((resolve) => {
    const request = http.request(`${input.baseUrl}/tasks`, {
      method: 'POST',
      agent: producerAgent,
      headers: {
        authorization: `Bearer ${apiKey}`,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(taskBody)),
      },
    });
    const timer = setTimeout(() => request.destroy(new Error('time-out')), input.requestTimeoutS * 1000);
    request.once('error', () => {
      clearTimeout(timer);
      resolve(0);
    });
    request.once('response', (response) => {
      response.resume();
      response.once('end', () => {
        clearTimeout(timer);
        resolve(response.statusCode ?? 0);
      });
    });
    request.end(taskBody);
  });
}

/** `concurrency` closed loops creating tasks until `seconds` are up; waits for every answer. */
async function produce(seconds: number): Promise<Produced> {
  const until = performance.now() + seconds * 1000;
  const statusCounts: Record<string, number> = {};
  const loop = async () => {
    while (performance.now() < until) {
      const status = await createTask();
      statusCounts[status] = (statusCounts[status] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: input.concurrency }, loop));
  return { created: statusCounts['201'] ?? 0, statusCounts };
}

function report(): ReceiverReport {
  const lags = run.lags.sort((a, b) => a - b);
  return {
    type: 'report',
    deliveries: run.ids,
    duplicates: run.duplicates,
    badSignatures: run.badSignatures,
    malformed: run.malformed,
    lagP50Ms: percentile(lags, 50),
    lagP99Ms: percentile(lags, 99),
    lagMaxMs: lags.at(-1) ?? Number.NaN,
    firstEventAt: run.firstEventAt,
    lastArrivalAt: run.lastArrivalAt,
    releasedAt: run.releasedAt,
    afterRelease: run.afterRelease,
  };
}

/** Reports once `count` distinct deliveries of the current run arrived, or at `timeoutMs` anyway. */
function reportAt(count: number, timeoutMs: number): void {
  const until = Date.now() + timeoutMs;
  const check = () => {
    if (run.ids >= count || Date.now() >= until) port.postMessage(report());
    else setTimeout(check, 5);
  };
  check();
}

port.on('message', (message: ThreadMessage) => {
  switch (message.type) {
    case 'produce':
      // A new run: answers are held from now on when `hold` is set, while tasks are created.
      run = newRun();
      holding = message.hold === true;
      void produce(Number(message.seconds)).then((produced) =>
        port.postMessage({ type: 'produced', ...produced }),
      );
      break;
    case 'release':
      holding = false;
      run.releasedAt = Date.now();
      for (const response of held.splice(0))
        response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      break;
    case 'report':
      reportAt(Number(message.count), Number(message.timeoutMs));
      break;
    case 'close':
      producerAgent.destroy();
      for (const response of held.splice(0)) response.destroy();
      server.closeAllConnections();
      server.close(() => port.postMessage({ type: 'closed' }));
      break;
  }
});

server.listen(0, '127.0.0.1', () => {
  const { port: listening } = server.address() as AddressInfo;
  port.postMessage({ type: 'listening', url: `http://127.0.0.1:${listening}/hooks` });
});
