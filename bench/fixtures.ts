/**
 * The state each Handoff scenario needs, made over real HTTP through the operator and agent APIs
 * (the same calls an operator and an agent would make), not by writing rows directly.
 */

/** Every set-up call is one quick request; anything slower means the server is stuck. */
const SETUP_TIMEOUT_MS = 30_000;

/** The task the POST /tasks scenario creates, over and over. */
export const TASK_BODY = {
  title: 'Photograph the town hall',
  description: 'A clear daytime photo of the front entrance, landscape orientation, no people.',
  reward: '0.5',
};

/**
 * Enough for about 1.5 million tasks at 0.65 TON (reward + 30% fee): more than the longest run
 * the settings allow can create, so the balance never runs out mid-run (a 402 would be an error).
 */
const DEPOSIT_TON = '1000000';

export interface Fixture {
  agentId: string;
  authorization: string;
  taskId: string;
}

export async function call(
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body: unknown,
  expectStatus: number,
): Promise<Record<string, unknown>> {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(SETUP_TIMEOUT_MS),
  });
  const text = await res.text();
  if (res.status !== expectStatus) {
    throw new Error(
      `${method} ${path} answered ${res.status}, expected ${expectStatus}: ${text.slice(0, 500)}`,
    );
  }
  return JSON.parse(text) as Record<string, unknown>;
}

/** One named agent, funded by a real sandbox deposit, with one task to read back. */
export async function makeFixture(baseUrl: string, adminToken: string): Promise<Fixture> {
  const admin = { authorization: `Bearer ${adminToken}` };
  const created = await call(baseUrl, 'POST', '/admin/agents', admin, { name: 'Bench agent' }, 201);
  const agentId = (created.agent as { id: string }).id;
  const authorization = `Bearer ${created.apiKey as string}`;
  await call(baseUrl, 'POST', `/admin/agents/${agentId}/deposits`, admin, { amount: DEPOSIT_TON }, 201);
  // Under an Idempotency-Key, as careful agents send every POST: the server is then measured in
  // the state a running service is in, which once cost every later request 15% (the keys used
  // AsyncLocalStorage, whose promise hooks stay on once used; idempotencyUnit.ts).
  const keyed = { authorization, 'idempotency-key': `bench-fixture-${agentId}` };
  const task = await call(baseUrl, 'POST', '/tasks', keyed, TASK_BODY, 201);
  return { agentId, authorization, taskId: (task.task as { id: string }).id };
}
