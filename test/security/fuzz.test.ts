import http from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { SESSION_COOKIE } from '../../src/http/consoleAuth.js';
import { DIALECT, type TestApp } from '../helpers/app.js';
import { signInOwner, type TestOwner } from '../helpers/consoleApi.js';
import { FakeTelegram } from '../helpers/fakeTelegram.js';
import { createAgent, createWorker, deposit, newWalletAddress, type TestAgent } from '../helpers/fixtures.js';
import { type CaseInputs, casesFor, type FuzzCase, show } from '../helpers/fuzz/cases.js';
import { registeredRoutes } from '../helpers/fuzz/registeredRoutes.js';
import { arbitraryOf, type Schema } from '../helpers/fuzz/schemaValues.js';
import { type Answer, send } from '../helpers/fuzz/send.js';
import { documentTargets, hiddenTargets, type Param, type Target } from '../helpers/fuzz/targets.js';
import { createUnthrottledTestApp, expectAgentBooks, expectAuditOk } from '../helpers/moneyChecks.js';

/**
 * The project's own fuzzer (issues 11.4 and 13): every operation of the served OpenAPI document,
 * and every route the document leaves out, gets requests built from its schemas with hostile
 * values: control characters (U+0000 first) in every body string, query and path parameter;
 * wrong types, boundary lengths, huge and negative numbers, extra fields, bodies of the wrong
 * shape, odd content types and headers, broken multipart, and missing or wrong credentials. Every
 * answer must be below 500, and every 4xx JSON with a string `error`; the books must balance after.
 *
 * Seeded: FUZZ_SEED=<n> replays a run, FUZZ_RUNS=<n> sets the random cases per operation.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20_261_123);
const RANDOM_RUNS = Number(process.env.FUZZ_RUNS ?? 16);
const GOOD_TASK = { title: 'Fuzz task', description: 'Take a photo', reward: '1' };
const GOOD_UPLOAD = { filename: 'a.txt', contentType: 'text/plain' };

const telegram = await FakeTelegram.start();
const t: TestApp = await createUnthrottledTestApp({ telegram: { apiRoot: telegram.apiRoot } });
await t.app.listen({ port: 0, host: '127.0.0.1' });
const baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
const connections = new http.Agent({ keepAlive: true, maxSockets: 4 });

/** The document is the one the app serves, so a new route is fuzzed the day it is added. */
const doc = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as Schema;
const documented = documentTargets(doc);
const targets = [...documented, ...hiddenTargets(documented), ...(await mcpToolTargets())];

afterAll(async () => {
  connections.destroy();
  await t.close();
  await telegram.close();
});

/** Who acts in every case, made through the API like any caller (the agent belongs to the owner). */
const world = await (async () => {
  const owner = await signInOwner(t);
  const created = await consoleCall(owner, 'POST', '/agents', { name: 'Fuzzed agent' });
  const agent: TestAgent = {
    id: created.agent.id,
    apiKey: created.apiKey,
    headers: { authorization: `Bearer ${created.apiKey}` },
  };
  await deposit(t, agent.id, '100000');
  const worker = await createWorker(t);
  const stranger = await createAgent(t, { name: 'Someone else', deposit: '100' });
  const strangersTask = await postJson(stranger.headers, '/tasks', GOOD_TASK);
  const file = await uploadedFile(agent);
  return {
    owner,
    ownerWallet: owner.wallet,
    agent,
    worker,
    stranger,
    strangersTaskId: strangersTask.task.id as string,
    file,
  };
})();

/**
 * What a target's cases act on. Tasks are fresh for a target that names one (a case may cancel,
 * complete or rate it) and shared otherwise; a session, a spare key and a signed upload only for
 * the targets that use them, which keeps the setup a small part of the run.
 */
interface Scene {
  owner: TestOwner;
  tasks: SceneTasks;
  spareKeyId: string;
  upload: { id: string; expires: string; signature: string };
}

interface SceneTasks {
  openTaskId: string;
  assignedTaskId: string;
  applicationId: string;
  offeredTaskId: string;
}

let sharedTasks: SceneTasks | undefined;

/**
 * A fresh direct offer only for the targets that answer one (the offer routes, the bot's
 * buttons): an agent may send one worker at most 5 offers a day, so the rest reuse the last.
 */
async function offeredTaskId(fresh: boolean): Promise<string> {
  if (!fresh && sharedTasks) return sharedTasks.offeredTaskId;
  const offered = await postJson(world.agent.headers, '/tasks', {
    ...GOOD_TASK,
    assignToUserId: world.worker.id,
  });
  return offered.task.id;
}

async function newTasks(freshOffer: boolean): Promise<SceneTasks> {
  const { agent, worker } = world;
  const open = await postJson(agent.headers, '/tasks', GOOD_TASK);
  const assigned = await postJson(agent.headers, '/tasks', GOOD_TASK);
  const applied = await postJson(worker.headers, `/worker/tasks/${assigned.task.id}/applications`, {
    message: 'Pick me',
  });
  await request(agent.headers, 'PATCH', `/applications/${applied.application.id}`, { status: 'ACCEPTED' });
  return {
    openTaskId: open.task.id,
    assignedTaskId: assigned.task.id,
    applicationId: applied.application.id,
    offeredTaskId: await offeredTaskId(freshOffer),
  };
}

async function newScene(target: Target): Promise<Scene> {
  const { agent } = world;
  // The operator's freeze route is fuzzed with this agent's id too: each scene starts unfrozen.
  const thawed = await t.app.inject({
    method: 'POST',
    url: `/admin/agents/${agent.id}/unfreeze`,
    headers: t.admin,
  });
  expect(thawed.statusCode, thawed.body).toBe(200);
  const namesOne = target.params.some((p) => p.in === 'path' && p.name !== 'agentId');
  const tasks =
    namesOne || target.jsonRpc || target.auth === 'telegram' || !sharedTasks
      ? await newTasks(target.path.includes('/offers/') || target.auth === 'telegram')
      : sharedTasks;
  sharedTasks = tasks;
  // A new session of the same owner: a case may have signed the last one out.
  const owner = target.auth === 'owner' ? await signInOwner(t, world.ownerWallet) : world.owner;
  // An agent may hold only 20 live keys: a spare one only for the route that revokes one.
  const key = target.path.includes('{keyId}')
    ? await consoleCall(owner, 'POST', `/agents/${agent.id}/keys`, { name: 'spare' })
    : { key: { id: 'key_none' } };
  const signed = target.path.includes('/uploads/')
    ? new URL((await postJson(agent.headers, '/upload', GOOD_UPLOAD)).uploadUrl)
    : new URL('http://localhost/uploads/upl_none?expires=0&signature=none');
  return {
    owner,
    tasks,
    spareKeyId: key.key.id,
    upload: {
      id: signed.pathname.split('/').pop()!,
      expires: signed.searchParams.get('expires')!,
      signature: signed.searchParams.get('signature')!,
    },
  };
}

/** Bodies the routes accept, so a case with one hostile field is judged on that field alone. */
function goodBody(target: Target, scene: Scene, sampled: unknown): unknown {
  const route = target.id.replace(/\/console\/api\/agents\/\{agentId\}\/api/, '');
  const known: Record<string, unknown> = {
    'POST /tasks': GOOD_TASK,
    'POST /tasks/{id}/refund': { reason: 'Changed plans' },
    'PATCH /applications/{id}': { status: 'ACCEPTED' },
    'POST /tasks/{id}/rate': { rating: 5, comment: 'Good' },
    'POST /worker/tasks/{id}/rate': { rating: 5, comment: 'Good' },
    'POST /chat/{taskId}/messages': { content: 'Hello' },
    'POST /worker/chat/{taskId}/messages': { content: 'Hello' },
    'POST /upload': GOOD_UPLOAD,
    'POST /worker/upload': GOOD_UPLOAD,
    'POST /admin/agents': { name: 'Fuzz' },
    'POST /admin/agents/{id}/deposits': { amount: '1' },
    'PUT /worker/me/wallet': { address: newWalletAddress() },
    'POST /worker/tasks/{id}/applications': { message: 'Pick me' },
    'POST /telegram/webhook': {
      update_id: 1,
      callback_query: {
        id: '1',
        chat_instance: '1',
        from: { id: world.worker.telegramId, is_bot: false, first_name: 'Worker' },
        data: `offer:accept:${scene.tasks.offeredTaskId}`,
      },
    },
  };
  const base = sampled && typeof sampled === 'object' && !Array.isArray(sampled) ? sampled : {};
  const good = known[route];
  if (target.jsonRpc) return withRealIds(sampled, scene);
  return good === undefined ? withRealIds(base, scene) : { ...(base as object), ...(good as object) };
}

/** Id fields (in MCP arguments, mostly) filled with ids that exist, so the call gets past "not found". */
function withRealIds(value: unknown, scene: Scene): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
  const ids: Record<string, string> = {
    taskId: scene.tasks.assignedTaskId,
    applicationId: scene.tasks.applicationId,
    workerId: world.worker.id,
    id: scene.tasks.assignedTaskId,
  };
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, k in ids ? ids[k] : withRealIds(v, scene)]),
  );
}

/** A real value for a path or query parameter of this target, or undefined to leave it out. */
function realParam(target: Target, scene: Scene, param: Param): string | undefined {
  const path = target.path;
  switch (param.name) {
    case 'agentId':
      return world.agent.id;
    case 'keyId':
      return scene.spareKeyId;
    case 'taskId':
      return path.includes('/offers/') ? scene.tasks.offeredTaskId : scene.tasks.assignedTaskId;
    case 'txHash':
      return 'ab'.repeat(32);
    case 'rest':
      return 'index.html';
    case 'name':
      return world.file.name;
    case 'expires':
      return scene.upload.expires;
    case 'signature':
      return scene.upload.signature;
    case 'limit':
      return '2';
    case 'id':
      if (path.includes('/applications/{id}') && !path.includes('/tasks/')) return scene.tasks.applicationId;
      if (path.includes('/agents/workers/')) return world.worker.id;
      if (path.includes('/admin/agents/')) return world.agent.id;
      if (path.includes('/uploads/')) return scene.upload.id;
      if (path.includes('/files/')) return world.file.id;
      if (path.includes('/tasks/'))
        return path.endsWith('/refund') ? scene.tasks.openTaskId : scene.tasks.assignedTaskId;
      return undefined;
    default:
      return undefined;
  }
}

/** Valid credentials of each kind, and wrong ones a caller might send instead. */
function credentials(target: Target, scene: Scene): Pick<CaseInputs, 'validAuth' | 'badAuths'> {
  const agent = world.agent.headers;
  const worker = world.worker.headers;
  const tampered = {
    authorization: worker.authorization.replace(/hash=(.)/, (_, c) => `hash=${c === 'a' ? 'b' : 'a'}`),
  };
  const mcp: Record<string, string> = target.jsonRpc ? { accept: 'application/json, text/event-stream' } : {};
  switch (target.auth) {
    case 'agent':
      return {
        validAuth: { ...agent, ...mcp },
        badAuths: [
          { authorization: `Bearer hr_${'x'.repeat(43)}` },
          { authorization: 'Bearer' },
          { authorization: `Bearer ${'a'.repeat(5000)}` },
          worker,
          world.stranger.headers,
        ],
      };
    case 'worker':
      return {
        validAuth: worker,
        badAuths: [{ authorization: 'tma ' }, { authorization: 'tma user=%7B%7D&hash=00' }, tampered, agent],
      };
    case 'admin':
      return { validAuth: t.admin, badAuths: [{ authorization: `${t.admin.authorization}x` }, agent] };
    case 'owner': {
      const session = { cookie: scene.owner.cookie };
      return {
        validAuth: { ...session, 'x-csrf-token': scene.owner.csrfToken },
        badAuths: [
          { cookie: `${SESSION_COOKIE}=garbage` },
          session,
          { ...session, 'x-csrf-token': 'wrong' },
          agent,
        ],
      };
    }
    case 'telegram':
      return {
        validAuth: { 'x-telegram-bot-api-secret-token': t.config.telegramWebhookSecret },
        badAuths: [{ 'x-telegram-bot-api-secret-token': 'wrong' }],
      };
    default:
      return { validAuth: {}, badAuths: [agent] };
  }
}

/** A stable per-target seed: the run's seed plus the target's name, so targets differ but replay. */
function seedOf(target: Target): number {
  let hash = SEED;
  for (const char of target.id) hash = (Math.imul(hash, 31) + char.charCodeAt(0)) | 0;
  return hash;
}

async function buildCases(target: Target): Promise<FuzzCase[]> {
  const scene = await newScene(target);
  const seed = seedOf(target);
  const sampled = target.body ? fc.sample(arbitraryOf(doc, target.body), { seed, numRuns: 1 })[0] : undefined;
  return casesFor(target, {
    doc,
    seed,
    randomRuns: Math.max(1, Math.round(RANDOM_RUNS * target.weight)),
    realParam: (param) => realParam(target, scene, param),
    otherIds: [
      scene.tasks.openTaskId,
      scene.tasks.offeredTaskId,
      scene.tasks.applicationId,
      world.worker.id,
      world.agent.id,
      world.strangersTaskId,
      world.stranger.id,
    ],
    goodBody: goodBody(target, scene, sampled),
    ...credentials(target, scene),
  });
}

/** What is wrong with an answer, or null: the rules every route keeps, whatever it is sent. */
function problemOf(target: Target, answer: Answer): string | null {
  if (answer.status >= 500) return `status ${answer.status}: ${answer.body.slice(0, 300)}`;
  if (answer.status < 400) return target.jsonRpc ? toolProblem(answer) : null;
  let json: { error?: unknown };
  try {
    json = JSON.parse(answer.body);
  } catch {
    return `${answer.status} is not JSON (${answer.contentType}): ${answer.body.slice(0, 200)}`;
  }
  // JSON-RPC errors are objects ({code, message}) by that protocol's rules.
  const error =
    target.jsonRpc && typeof json.error === 'object'
      ? (json.error as { message?: unknown }).message
      : json.error;
  if (typeof error !== 'string' || error === '')
    return `${answer.status} has no string error: ${answer.body.slice(0, 200)}`;
  return null;
}

/** MCP reports a tool's failure inside a 200: the status it carries must not be a 5xx either. */
function toolProblem(answer: Answer): string | null {
  if (!answer.contentType.includes('json')) return null;
  const messages = [JSON.parse(answer.body)].flat() as {
    result?: { isError?: boolean; content?: { text?: string }[] };
  }[];
  for (const message of messages) {
    if (!message.result?.isError) continue;
    const text = message.result.content?.[0]?.text ?? '';
    const status = /"status":(\d+)/.exec(text)?.[1];
    if (status && Number(status) >= 500) return `MCP tool answered ${status}: ${text.slice(0, 300)}`;
  }
  return null;
}

async function fuzz(target: Target): Promise<{ count: number; failures: string[]; admitted: number }> {
  const cases = await buildCases(target);
  const failures: string[] = [];
  // Cases that got past authentication and throttling: a fuzzer refused at the door tests nothing.
  let admitted = 0;
  for (const c of cases) {
    let problem: string | null;
    try {
      const answer = await send(baseUrl, connections, c);
      if (answer.status !== 401 && answer.status !== 429) admitted++;
      problem = problemOf(target, answer);
    } catch (error) {
      problem = `no answer: ${(error as Error).message}`;
    }
    if (problem) failures.push(`${c.method} ${show(c.url)} [${c.label}] -> ${problem}`);
  }
  return { count: cases.length, failures, admitted };
}

let totalCases = 0;

describe(`fuzzing every route (${DIALECT}, FUZZ_SEED=${SEED})`, () => {
  it('covers the whole document and the routes it leaves out', () => {
    expect(documented.length).toBeGreaterThan(50);
    for (const kind of ['agent', 'worker', 'admin', 'owner', 'none', 'telegram'])
      expect(
        targets.some((target) => target.auth === kind),
        kind,
      ).toBe(true);
    const fuzzed = new Set(targets.map((target) => `${target.method} ${target.path}`));
    const registered = registeredRoutes(t.app);
    expect(registered.length).toBeGreaterThan(documented.length);
    expect(registered.filter((route) => !fuzzed.has(route))).toEqual([]);
    expect(targets.filter((target) => target.multipart).map((target) => target.id)).toEqual(
      expect.arrayContaining(['POST /upload', 'POST /worker/upload']),
    );
  });

  for (const target of targets) {
    it(target.id, async () => {
      const { count, failures, admitted } = await fuzz(target);
      totalCases += count;
      // One line per failing case, so the report shows every one of them, not a collapsed array.
      expect(failures.join('\n'), `replay with FUZZ_SEED=${SEED} -t "${target.id}"`).toBe('');
      // At least the valid case (logging out ends the session for the cases after it).
      expect(admitted, 'cases that got past authentication').toBeGreaterThan(0);
    });
  }

  it('leaves the books balanced and the chain in agreement', async () => {
    await expectAgentBooks(t, world.agent);
    await expectAgentBooks(t, world.stranger);
    await expectAuditOk(t, 2);
    console.info(`fuzz (${DIALECT}): ${totalCases} cases over ${targets.length} targets, FUZZ_SEED=${SEED}`);
  });
});

// ---- Plumbing for the setup above: plain requests that must succeed. ----

// biome-ignore lint/suspicious/noExplicitAny: setup reads ids out of known answers
type Json = any;

async function request(
  headers: Record<string, string>,
  method: string,
  url: string,
  body?: unknown,
): Promise<Json> {
  const answer = await send(baseUrl, connections, {
    label: 'setup',
    method,
    url,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (answer.status >= 300) throw new Error(`setup ${method} ${url}: ${answer.status} ${answer.body}`);
  return JSON.parse(answer.body);
}

function postJson(headers: Record<string, string>, url: string, body: unknown): Promise<Json> {
  return request(headers, 'POST', url, body);
}

function consoleCall(owner: TestOwner, method: string, url: string, body?: unknown) {
  return request(
    { cookie: owner.cookie, 'x-csrf-token': owner.csrfToken },
    method,
    `/console/api${url}`,
    body,
  );
}

/** A stored file (for GET /files/:id/:name): a signed upload URL, then its bytes. */
async function uploadedFile(agent: TestAgent): Promise<{ id: string; name: string }> {
  const { uploadUrl, fileUrl } = await postJson(agent.headers, '/upload', GOOD_UPLOAD);
  const signed = new URL(uploadUrl);
  const answer = await send(baseUrl, connections, {
    label: 'setup',
    method: 'PUT',
    url: `${signed.pathname}${signed.search}`,
    headers: { 'content-type': 'text/plain' },
    body: 'hello',
  });
  if (answer.status !== 200) throw new Error(`setup upload: ${answer.status} ${answer.body}`);
  const [id, name] = new URL(fileUrl).pathname.split('/').slice(-2) as [string, string];
  return { id, name };
}

/** One target per MCP tool: a tools/call whose arguments come from the tool's own input schema. */
async function mcpToolTargets(): Promise<Target[]> {
  const agent = await createAgent(t, { name: 'MCP lister' });
  const listed = await request(
    { ...agent.headers, accept: 'application/json, text/event-stream' },
    'POST',
    '/mcp',
    { jsonrpc: '2.0', id: 1, method: 'tools/list' },
  );
  const tools = listed.result.tools as { name: string; inputSchema: Schema }[];
  return tools.map((tool) => ({
    id: `POST /mcp tools/call ${tool.name}`,
    method: 'POST',
    path: '/mcp',
    auth: 'agent',
    params: [],
    body: {
      type: 'object',
      required: ['jsonrpc', 'id', 'method', 'params'],
      properties: {
        jsonrpc: { const: '2.0' },
        id: { type: 'integer', minimum: 1, maximum: 1000 },
        method: { const: 'tools/call' },
        params: {
          type: 'object',
          required: ['name', 'arguments'],
          properties: { name: { const: tool.name }, arguments: tool.inputSchema },
        },
      },
    },
    multipart: false,
    stream: false,
    jsonRpc: true,
    weight: 0.5,
  }));
}
