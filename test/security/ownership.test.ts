import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatchDueDeliveries, MAX_ATTEMPTS, RETRY_DELAYS_MS } from '../../src/outbox/webhookDeliveries.js';
import type { TestApp } from '../helpers/app.js';
import {
  assignedTask,
  createAgent,
  createTask,
  createWorker,
  expectBooksBalanced,
  type TestAgent,
  type TestWorker,
} from '../helpers/fixtures.js';
import { createUnthrottledTestApp, expectAgentBooks, listTransactions } from '../helpers/moneyChecks.js';

/**
 * The one shared security suite over every id-taking route (design.md, "Habits": Unkey).
 * Each row names a route and the state its resource must be in for the owner's call to do
 * something. For every row: another agent (or worker) is refused and nothing changes, an unknown
 * id is 404, no credentials is 401, and finally the owner's same call succeeds, which proves the
 * refusal came from the ownership check and not from the resource's state.
 *
 * Adding an id-taking route is one row here; the OpenAPI check below fails until it is added.
 */

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT';
/** The owner's resource, created fresh for each row. */
type State =
  | 'funded' // FUNDED task with one PENDING application
  | 'assigned' // ASSIGNED task (apply + accept)
  | 'completed' // COMPLETED task (paid on the sandbox chain)
  | 'offered' // OFFERED task (direct offer to the holding worker)
  | 'failedDelivery' // FUNDED task whose task.funded webhook delivery failed every attempt
  | 'submitted' // REVIEW task: the holder submitted work that waits for review (issue 25)
  | 'revised' // IN_PROGRESS task: the owner asked for a revision of the holder's submission
  | 'disputed' // REVIEW task whose waiting submission the owner disputed
  | 'batch' // a batch of two FUNDED tasks (POST /batches); taskId is its first task
  | 'approval'; // a PENDING approval: a task above the key's approvalAbove (issue 38)

interface Fixture {
  taskId: string;
  applicationId: string | null;
  deliveryId: string | null;
  batchId?: string;
  approvalId?: string;
}

interface RouteRow {
  method: Method;
  /** Fastify path; the OpenAPI check compares it with the document. */
  path: string;
  /** What the `:id` / `:taskId` parameter names. */
  resource: 'task' | 'application' | 'delivery' | 'batch' | 'approval';
  state: State;
  payload?: Record<string, unknown>;
  /** Headers every call of the row sends (POST /tasks/:id/bonus requires an Idempotency-Key). */
  headers?: () => Record<string, string>;
  /** What the owner gets for the same call. */
  ownerStatus: number;
  /** What another party gets: 403 Access denied, or this 404 where the route hides the resource. */
  hiddenAs?: string;
  /** The 404 message for an unknown id, when not "<Resource> not found". */
  unknownAs?: string;
  /** A Server-Sent Events stream: the owner's control opens it over real HTTP, then hangs up. */
  stream?: true;
}

const AGENT_ROUTES: RouteRow[] = [
  { method: 'GET', path: '/approvals/:id', resource: 'approval', state: 'approval', ownerStatus: 200 },
  { method: 'GET', path: '/batches/:id', resource: 'batch', state: 'batch', ownerStatus: 200 },
  { method: 'POST', path: '/batches/:id/cancel', resource: 'batch', state: 'batch', ownerStatus: 200 },
  { method: 'GET', path: '/tasks/:id', resource: 'task', state: 'funded', ownerStatus: 200 },
  {
    method: 'PATCH',
    path: '/tasks/:id',
    resource: 'task',
    state: 'assigned',
    payload: { status: 'IN_PROGRESS' },
    ownerStatus: 200,
  },
  {
    method: 'PATCH',
    path: '/tasks/:id',
    resource: 'task',
    state: 'funded',
    payload: { executionDeadlineDays: 30 },
    ownerStatus: 200,
  },
  { method: 'DELETE', path: '/tasks/:id', resource: 'task', state: 'funded', ownerStatus: 200 },
  { method: 'POST', path: '/tasks/:id/complete', resource: 'task', state: 'assigned', ownerStatus: 200 },
  {
    method: 'POST',
    path: '/tasks/:id/refund',
    resource: 'task',
    state: 'assigned',
    payload: { reason: 'changed my mind' },
    ownerStatus: 200,
  },
  {
    method: 'POST',
    path: '/tasks/:id/rate',
    resource: 'task',
    state: 'completed',
    payload: { score: 5, comment: 'great' },
    ownerStatus: 201,
  },
  { method: 'GET', path: '/tasks/:id/ratings', resource: 'task', state: 'completed', ownerStatus: 200 },
  {
    method: 'POST',
    path: '/tasks/:id/bonus',
    resource: 'task',
    state: 'completed',
    payload: { amount: '1', reason: 'Thank you' },
    headers: () => ({ 'idempotency-key': `ownership-${Math.random()}` }),
    ownerStatus: 201,
  },
  { method: 'GET', path: '/tasks/:id/applications', resource: 'task', state: 'funded', ownerStatus: 200 },
  { method: 'GET', path: '/tasks/:id/submissions', resource: 'task', state: 'submitted', ownerStatus: 200 },
  {
    method: 'POST',
    path: '/tasks/:id/revisions',
    resource: 'task',
    state: 'submitted',
    payload: { reason: 'Sharper, please' },
    ownerStatus: 201,
  },
  {
    method: 'PATCH',
    path: '/applications/:id',
    resource: 'application',
    state: 'funded',
    payload: { status: 'ACCEPTED' },
    ownerStatus: 200,
  },
  { method: 'GET', path: '/chat/:taskId/messages', resource: 'task', state: 'assigned', ownerStatus: 200 },
  {
    method: 'POST',
    path: '/chat/:taskId/messages',
    resource: 'task',
    state: 'assigned',
    payload: { content: 'Hello from the owner' },
    ownerStatus: 201,
  },
  {
    method: 'GET',
    path: '/chat/:taskId/stream',
    resource: 'task',
    state: 'assigned',
    ownerStatus: 200,
    stream: true,
  },
  {
    method: 'POST',
    path: '/tasks/:id/dispute',
    resource: 'task',
    state: 'submitted',
    payload: { reason: 'Not what I asked for' },
    ownerStatus: 201,
  },
  {
    method: 'POST',
    path: '/tasks/:id/dispute/statements',
    resource: 'task',
    state: 'disputed',
    payload: { text: 'My side' },
    ownerStatus: 201,
  },
  {
    method: 'POST',
    path: '/agents/webhooks/deliveries/:id/redeliver',
    resource: 'delivery',
    state: 'failedDelivery',
    ownerStatus: 200,
    hiddenAs: 'Delivery not found',
  },
];

/**
 * Agent routes with an id that are not owned by the caller, and why. Each still needs 401
 * without a key; they are listed so that the coverage check knows they were considered.
 */
const AGENT_ROUTES_NOT_OWNED: { method: Method; path: string; why: string; auth: 'agent' | 'none' }[] = [
  { method: 'GET', path: '/agents/workers/:id', why: 'the public workers catalog', auth: 'agent' },
  {
    method: 'GET',
    path: '/files/:id/:name',
    why: 'a capability URL: the 128-bit random file id is the credential',
    auth: 'none',
  },
  {
    method: 'PUT',
    path: '/uploads/:id',
    why: 'a signed upload URL: the signature is the credential',
    auth: 'none',
  },
];

/** Worker routes: the "owner" is the worker holding the task (or offered it). */
const WORKER_ROUTES: RouteRow[] = [
  {
    method: 'POST',
    path: '/worker/tasks/:id/dispute',
    resource: 'task',
    state: 'revised',
    payload: { reason: 'The revision asks for more than agreed' },
    ownerStatus: 201,
  },
  {
    method: 'POST',
    path: '/worker/tasks/:id/dispute/statements',
    resource: 'task',
    state: 'disputed',
    payload: { text: 'My side' },
    ownerStatus: 201,
  },
  {
    method: 'POST',
    path: '/worker/tasks/:id/submissions',
    resource: 'task',
    state: 'assigned',
    payload: { note: 'Done' },
    ownerStatus: 201,
  },
  {
    method: 'GET',
    path: '/worker/tasks/:id/submissions',
    resource: 'task',
    state: 'submitted',
    ownerStatus: 200,
  },
  {
    method: 'GET',
    path: '/worker/tasks/:id',
    resource: 'task',
    state: 'assigned',
    ownerStatus: 200,
    hiddenAs: 'Task not found',
  },
  {
    method: 'PATCH',
    path: '/worker/tasks/:id',
    resource: 'task',
    state: 'assigned',
    payload: { status: 'REVIEW' },
    ownerStatus: 200,
  },
  {
    method: 'POST',
    path: '/worker/tasks/:id/rate',
    resource: 'task',
    state: 'completed',
    payload: { score: 4 },
    ownerStatus: 201,
  },
  {
    method: 'POST',
    path: '/worker/offers/:taskId/accept',
    resource: 'task',
    state: 'offered',
    ownerStatus: 200,
    hiddenAs: 'Offer not found',
    unknownAs: 'Offer not found',
  },
  {
    method: 'POST',
    path: '/worker/offers/:taskId/decline',
    resource: 'task',
    state: 'offered',
    ownerStatus: 200,
    hiddenAs: 'Offer not found',
    unknownAs: 'Offer not found',
  },
  {
    method: 'GET',
    path: '/worker/chat/:taskId/messages',
    resource: 'task',
    state: 'assigned',
    ownerStatus: 200,
    hiddenAs: 'Chat not found',
  },
  {
    method: 'POST',
    path: '/worker/chat/:taskId/messages',
    resource: 'task',
    state: 'assigned',
    payload: { content: 'Hello from the worker' },
    ownerStatus: 201,
    hiddenAs: 'Chat not found',
  },
  {
    method: 'GET',
    path: '/worker/chat/:taskId/stream',
    resource: 'task',
    state: 'assigned',
    ownerStatus: 200,
    hiddenAs: 'Chat not found',
    stream: true,
  },
];

const UNKNOWN_ID = {
  task: `tsk_${'0'.repeat(26)}`,
  application: `app_${'0'.repeat(26)}`,
  delivery: `dlv_${'0'.repeat(26)}`,
  batch: `bat_${'0'.repeat(26)}`,
  approval: `apr_${'0'.repeat(26)}`,
};
const NOT_FOUND = {
  task: 'Task not found',
  application: 'Application not found',
  delivery: 'Delivery not found',
  batch: 'Batch not found',
  approval: 'Approval not found',
};
const unknownError = (row: RouteRow) => row.unknownAs ?? NOT_FOUND[row.resource];
/** A port nothing listens on: every webhook attempt to it fails at once. */
const DEAD_WEBHOOK = 'http://127.0.0.1:9/hook';

const urlOf = (row: RouteRow, id: string) => row.path.replace(/:(id|taskId)\b/, id);
const label = (row: RouteRow) =>
  `${row.method} ${row.path}${row.payload ? ` ${JSON.stringify(row.payload)}` : ''}`;

describe('ownership of every id-taking route', () => {
  let t: TestApp;
  let owner: TestAgent;
  let other: TestAgent;
  let holder: TestWorker;
  let otherWorker: TestWorker;

  beforeAll(async () => {
    t = await createUnthrottledTestApp();
    owner = await createAgent(t, { name: 'Owner', deposit: '1000' });
    other = await createAgent(t, { name: 'Other', deposit: '1000' });
    holder = await createWorker(t, { firstName: 'Holder' });
    otherWorker = await createWorker(t, { firstName: 'Intruder' });
  });
  afterAll(() => t.close());

  async function fixture(state: State): Promise<Fixture> {
    if (state === 'approval') {
      const keys = await t.app.inject({
        method: 'GET',
        url: `/admin/agents/${owner.id}/keys`,
        headers: t.admin,
      });
      const keyUrl = `/admin/agents/${owner.id}/keys/${keys.json().keys[0].id}`;
      const policy = (approvalAbove: string | null) =>
        t.app.inject({
          method: 'PATCH',
          url: keyUrl,
          headers: t.admin,
          payload: { spendPolicy: { TON: { approvalAbove } } },
        });
      expect((await policy('1')).statusCode).toBe(200);
      const res = await t.app.inject({
        method: 'POST',
        url: '/tasks',
        headers: owner.headers,
        payload: { title: 'Photograph a shelf', description: 'One shelf, readable', reward: '5' },
      });
      // Removed at once: the other rows' tasks must be created, not wait for approval.
      expect((await policy(null)).statusCode).toBe(200);
      expect(res.statusCode, res.body).toBe(202);
      return { taskId: '', applicationId: null, deliveryId: null, approvalId: res.json().approval.id };
    }
    if (state === 'batch') {
      const res = await t.app.inject({
        method: 'POST',
        url: '/batches',
        headers: owner.headers,
        payload: {
          template: { title: 'Photograph a shelf', description: 'One shelf, readable', reward: '1' },
          count: 2,
        },
      });
      expect(res.statusCode, res.body).toBe(201);
      const body = res.json();
      return { taskId: body.tasks[0].id, applicationId: null, deliveryId: null, batchId: body.batch.id };
    }
    if (state === 'offered') {
      const task = await createTask(t, owner, { assignToUserId: holder.id });
      expect(task.status).toBe('OFFERED');
      return { taskId: task.id, applicationId: null, deliveryId: null };
    }
    if (state === 'failedDelivery') {
      const task = await createTask(t, owner, { webhookUrl: DEAD_WEBHOOK });
      // The real dispatcher tries the first time and after each retry delay, then gives up.
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        await dispatchDueDeliveries(t.ctx, t.ctx.webhooks);
        t.clock.advance((RETRY_DELAYS_MS[attempt] ?? 0) + 1);
      }
      const failed = await t.app.inject({
        method: 'GET',
        url: '/agents/webhooks/deliveries?status=failed',
        headers: owner.headers,
      });
      expect(failed.statusCode, failed.body).toBe(200);
      const delivery = (failed.json().deliveries as { id: string; taskId?: string }[]).find((d) =>
        JSON.stringify(d).includes(task.id),
      );
      expect(delivery, failed.body).toBeDefined();
      return { taskId: task.id, applicationId: null, deliveryId: delivery!.id };
    }
    if (state === 'funded') {
      const task = await createTask(t, owner);
      const applied = await t.app.inject({
        method: 'POST',
        url: `/worker/tasks/${task.id}/applications`,
        headers: holder.headers,
        payload: { message: 'pick me' },
      });
      expect(applied.statusCode, applied.body).toBe(201);
      return { taskId: task.id, applicationId: applied.json().application.id, deliveryId: null };
    }
    const { taskId, applicationId } = await assignedTask(t, owner, holder);
    if (state === 'submitted' || state === 'revised' || state === 'disputed') {
      const steps: [Record<string, string>, string, Record<string, unknown>][] = [
        [holder.headers, `/worker/tasks/${taskId}/submissions`, { note: 'Done' }],
      ];
      if (state === 'revised') steps.push([owner.headers, `/tasks/${taskId}/revisions`, { reason: 'Redo' }]);
      if (state === 'disputed') steps.push([owner.headers, `/tasks/${taskId}/dispute`, { reason: 'Wrong' }]);
      for (const [headers, url, payload] of steps) {
        const res = await t.app.inject({ method: 'POST', url, headers, payload });
        expect(res.statusCode, res.body).toBe(201);
      }
    }
    if (state === 'completed') {
      const done = await t.app.inject({
        method: 'POST',
        url: `/tasks/${taskId}/complete`,
        headers: owner.headers,
      });
      expect(done.statusCode, done.body).toBe(200);
    }
    return { taskId, applicationId, deliveryId: null };
  }

  const idFor = (row: RouteRow, f: Fixture) =>
    row.resource === 'approval'
      ? f.approvalId!
      : row.resource === 'batch'
        ? f.batchId!
        : row.resource === 'application'
          ? f.applicationId!
          : row.resource === 'delivery'
            ? f.deliveryId!
            : f.taskId;

  let baseUrl: string | null = null;
  /** Opens a stream over real HTTP (inject would wait for its end), reads the head, hangs up. */
  async function openStream(url: string, headers: { authorization: string }) {
    if (!baseUrl) {
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    }
    const abort = new AbortController();
    try {
      const res = await fetch(`${baseUrl}${url}`, { headers, signal: abort.signal });
      return { status: res.status, contentType: res.headers.get('content-type') };
    } finally {
      abort.abort();
    }
  }

  /** Everything the refused call could have touched, read through the API (and the chain). */
  async function snapshot(f: Fixture) {
    const get = async (url: string, headers: { authorization: string }) => {
      const res = await t.app.inject({ method: 'GET', url, headers });
      expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
      return res.json();
    };
    /** A read that may legitimately be refused (no chat yet): its status and body. */
    const read = async (url: string, headers: { authorization: string }) => {
      const res = await t.app.inject({ method: 'GET', url, headers });
      return { status: res.statusCode, body: res.json() };
    };
    return {
      chat: await read(`/chat/${f.taskId}/messages`, owner.headers),
      holderChat: await read(`/worker/chat/${f.taskId}/messages`, holder.headers),
      deliveries: await get('/agents/webhooks/deliveries', owner.headers),
      // An approval's fixture has no task yet: the approval itself is what a refused call could touch.
      task: f.taskId ? await get(`/tasks/${f.taskId}`, owner.headers) : null,
      applications: f.taskId ? await get(`/tasks/${f.taskId}/applications`, owner.headers) : null,
      ratings: f.taskId ? await get(`/tasks/${f.taskId}/ratings`, owner.headers) : null,
      approval: f.approvalId ? await get(`/approvals/${f.approvalId}`, owner.headers) : null,
      owner: await get('/agents/me', owner.headers),
      other: await get('/agents/me', other.headers),
      ownerLedger: await listTransactions(t, owner),
      otherLedger: await listTransactions(t, other),
      holder: await get('/worker/me', holder.headers),
      intruder: await get('/worker/me', otherWorker.headers),
      holderChainBalance: await t.services.chain.getBalance(holder.wallet!),
    };
  }

  /** Each caller is refused with `expected` and leaves everything as it was. */
  async function expectRefusedAndUnchanged(
    row: RouteRow,
    callers: Record<string, string>[],
    expected: { status: number; body: unknown },
  ): Promise<Fixture> {
    const f = await fixture(row.state);
    const before = await snapshot(f);
    for (const headers of callers) {
      const res = await t.app.inject({
        method: row.method,
        url: urlOf(row, idFor(row, f)),
        headers: { ...headers, ...row.headers?.() },
        ...(row.payload ? { payload: row.payload } : {}),
      });
      expect(res.statusCode, res.body).toBe(expected.status);
      expect(res.json()).toEqual(expected.body);
    }
    expect(await snapshot(f)).toEqual(before);
    await expectBooksBalanced(t);
    return f;
  }

  async function expectOwnerSucceeds(row: RouteRow, f: Fixture, headers: { authorization: string }) {
    if (row.stream) {
      expect(await openStream(urlOf(row, idFor(row, f)), headers)).toEqual({
        status: row.ownerStatus,
        contentType: expect.stringContaining('text/event-stream'),
      });
      return;
    }
    const res = await t.app.inject({
      method: row.method,
      url: urlOf(row, idFor(row, f)),
      headers: { ...headers, ...row.headers?.() },
      ...(row.payload ? { payload: row.payload } : {}),
    });
    expect(res.statusCode, `owner control: ${res.body}`).toBe(row.ownerStatus);
    await expectAgentBooks(t, owner);
    await expectBooksBalanced(t);
  }

  describe.each(AGENT_ROUTES.map((row) => [label(row), row] as const))('%s', (_name, row) => {
    const refusal = row.hiddenAs
      ? { status: 404, body: { error: row.hiddenAs } }
      : { status: 403, body: { error: 'Access denied' } };
    it(`another agent with the owner's id: ${refusal.status}, nothing changes; the owner then succeeds`, async () => {
      const f = await expectRefusedAndUnchanged(row, [other.headers], refusal);
      await expectOwnerSucceeds(row, f, owner.headers);
    });

    it('an unknown well-formed id, and a malformed one: 404', async () => {
      for (const id of [UNKNOWN_ID[row.resource], 'nope']) {
        const res = await t.app.inject({
          method: row.method,
          url: urlOf(row, id),
          headers: { ...owner.headers, ...row.headers?.() },
          ...(row.payload ? { payload: row.payload } : {}),
        });
        expect(res.statusCode, res.body).toBe(404);
        expect(res.json()).toEqual({ error: unknownError(row) });
      }
    });

    it('no Authorization, or a key that does not exist: 401 Unauthorized, nothing changes', async () => {
      const wrongKey = { authorization: `Bearer hr_${'a'.repeat(64)}` };
      const basic = { authorization: 'Basic Zm9vOmJhcg==' };
      await expectRefusedAndUnchanged(row, [{}, wrongKey, basic], {
        status: 401,
        body: expect.objectContaining({ error: 'Unauthorized' }),
      });
    });
  });

  describe.each(WORKER_ROUTES.map((row) => [label(row), row] as const))('%s', (_name, row) => {
    const refusal = row.hiddenAs
      ? { status: 404, body: { error: row.hiddenAs } }
      : { status: 403, body: { error: 'Access denied' } };
    it(`another worker on a task the holder has: ${refusal.status}, nothing changes; the holder then succeeds`, async () => {
      const f = await expectRefusedAndUnchanged(row, [otherWorker.headers], refusal);
      await expectOwnerSucceeds(row, f, holder.headers);
    });

    it('an unknown well-formed id: 404', async () => {
      const res = await t.app.inject({
        method: row.method,
        url: urlOf(row, UNKNOWN_ID[row.resource]),
        headers: holder.headers,
        ...(row.payload ? { payload: row.payload } : {}),
      });
      expect(res.statusCode, res.body).toBe(404);
      expect(res.json()).toEqual({ error: unknownError(row) });
    });

    it('no Authorization, or an agent key: 401 Unauthorized, nothing changes', async () => {
      await expectRefusedAndUnchanged(row, [{}, owner.headers], {
        status: 401,
        body: expect.objectContaining({ error: 'Unauthorized' }),
      });
    });
  });

  it.each(
    AGENT_ROUTES_NOT_OWNED.filter((r) => r.auth === 'agent').map(
      (r) => [`${r.method} ${r.path} (${r.why})`, r] as const,
    ),
  )('%s: 401 without Authorization', async (_name, r) => {
    const res = await t.app.inject({
      method: r.method,
      url: r.path.replace(':id', `wrk_${'0'.repeat(26)}`),
    });
    expect(res.statusCode, res.body).toBe(401);
    expect(res.json()).toMatchObject({ error: 'Unauthorized' });
  });

  it('the table covers every agent route with an id in the OpenAPI document', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    const paths = res.json().paths as Record<string, Record<string, unknown>>;
    const documented = new Set<string>();
    for (const [openApiPath, operations] of Object.entries(paths)) {
      const path = openApiPath.replace(/\{(\w+)\}/g, ':$1');
      if (!/:(id|taskId)\b/.test(path) || /^\/(admin|worker)\//.test(path)) continue;
      for (const method of Object.keys(operations)) {
        if (['get', 'post', 'put', 'patch', 'delete'].includes(method)) {
          documented.add(`${method.toUpperCase()} ${path}`);
        }
      }
    }
    const covered = new Set([...AGENT_ROUTES, ...AGENT_ROUTES_NOT_OWNED].map((r) => `${r.method} ${r.path}`));
    // Both directions: a documented route without a row, and a row for a route that is gone.
    expect([...covered].sort()).toEqual([...documented].sort());
  });
});
