import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatAddress } from '../../src/chain/address.js';
import type { TonProofReply } from '../../src/chain/tonProof.js';
import { createTestApp, type TestApp, workerAuth } from '../helpers/app.js';
import { FaultyChain } from '../helpers/faultyChain.js';
import { assignedTask, createAgent, createWorker, newWalletAddress } from '../helpers/fixtures.js';
import {
  newTonWallet,
  type ProofFields,
  signTonProof,
  type TestTonWallet,
  unixSeconds,
} from '../helpers/tonConnect.js';
import { call, workerMe } from '../helpers/workerApi.js';

type Headers = Record<string, string>;

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

let nextId = 8_000_000 + randomInt(1_000_000);
const newWorkerHeaders = (app: TestApp = t) => workerAuth(app, nextId++);

async function challenge(app: TestApp, headers: Headers): Promise<{ payload: string; expiresAt: string }> {
  const res = await call(app, 'POST', '/worker/me/wallet/challenge', headers);
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

/** The wallet signs a proof of `payload` for our domain, now by the app's clock. */
function proofFor(app: TestApp, wallet: TestTonWallet, payload: string, fields: Partial<ProofFields> = {}) {
  return signTonProof(wallet, { payload, timestamp: unixSeconds(app.clock.now()), ...fields });
}

const putWallet = (app: TestApp, headers: Headers, body: unknown) =>
  call(app, 'PUT', '/worker/me/wallet', headers, body);

async function challengeRow(app: TestApp, payload: string) {
  return app.ctx.db
    .selectFrom('wallet_challenges')
    .selectAll()
    .where('payload', '=', payload)
    .executeTakeFirst();
}

function expectRefused(
  res: { statusCode: number; json(): unknown; body: string },
  path: string,
  message: RegExp,
) {
  expect(res.statusCode, res.body).toBe(400);
  expect(res.json()).toEqual({
    error: 'Validation failed',
    details: expect.arrayContaining([{ path, message: expect.stringMatching(message) }]),
  });
}

describe('POST /worker/me/wallet/challenge', () => {
  it('issues a random single-use payload valid for 15 minutes', async () => {
    const headers = newWorkerHeaders();
    const first = await challenge(t, headers);
    const second = await challenge(t, headers);
    expect(first.payload).toMatch(/^[0-9a-f]{64}$/);
    expect(second.payload).not.toBe(first.payload);
    expect(first.expiresAt).toBe(new Date(t.clock.now().getTime() + 15 * 60_000).toISOString());
    const row = await challengeRow(t, first.payload);
    expect(row).toMatchObject({ worker_id: (await workerMe(t, headers)).id, used_at: null });
  });

  it('keeps at most 5 open challenges per worker, dropping the oldest', async () => {
    const headers = newWorkerHeaders();
    const workerId = (await workerMe(t, headers)).id as string;
    const payloads: string[] = [];
    for (let i = 0; i < 8; i++) {
      payloads.push((await challenge(t, headers)).payload);
      t.clock.advance(1000);
    }
    const rows = await t.ctx.db
      .selectFrom('wallet_challenges')
      .select('payload')
      .where('worker_id', '=', workerId)
      .execute();
    expect(rows.map((r) => r.payload).sort()).toEqual(payloads.slice(-5).sort());
  });

  it('needs Mini App init data', async () => {
    expect((await call(t, 'POST', '/worker/me/wallet/challenge')).statusCode).toBe(401);
  });
});

describe('PUT /worker/me/wallet with a TON Connect proof', () => {
  for (const version of ['v4r2', 'v5r1'] as const) {
    it(`sets a ${version} wallet, normalised, and uses the payload up`, async () => {
      const headers = newWorkerHeaders();
      const wallet = newTonWallet(version);
      const { payload } = await challenge(t, headers);
      const res = await putWallet(t, headers, proofFor(t, wallet, payload));
      expect(res.statusCode, res.body).toBe(200);
      const expected = formatAddress(wallet.address, 'sandbox');
      expect(res.json().worker.walletAddress).toBe(expected);
      expect((await workerMe(t, headers)).walletAddress).toBe(expected);
      expect((await challengeRow(t, payload))?.used_at).toBe(t.clock.now().toISOString());
    });
  }

  it('accepts the timestamp as a decimal string (the TON Connect wire form)', async () => {
    const headers = newWorkerHeaders();
    const wallet = newTonWallet();
    const body = proofFor(t, wallet, (await challenge(t, headers)).payload);
    const res = await putWallet(t, headers, {
      ...body,
      proof: { ...body.proof, timestamp: String(body.proof.timestamp) },
    });
    expect(res.statusCode, res.body).toBe(200);
  });

  it('a replayed proof is refused and changes nothing', async () => {
    const headers = newWorkerHeaders();
    const wallet = newTonWallet('v5r1');
    const body = proofFor(t, wallet, (await challenge(t, headers)).payload);
    expect((await putWallet(t, headers, body)).statusCode).toBe(200);
    // Meanwhile the worker moved to another wallet; the old proof cannot move them back.
    const other = newTonWallet();
    expect(
      (await putWallet(t, headers, proofFor(t, other, (await challenge(t, headers)).payload))).statusCode,
    ).toBe(200);
    expectRefused(
      await putWallet(t, headers, body),
      'proof/payload',
      /already used|not a challenge issued to you/,
    );
    expect((await workerMe(t, headers)).walletAddress).toBe(formatAddress(other.address, 'sandbox'));
  });

  it('a replay while the first is in flight: exactly one succeeds', async () => {
    const headers = newWorkerHeaders();
    const body = proofFor(t, newTonWallet(), (await challenge(t, headers)).payload);
    const results = await Promise.all([1, 2, 3].map(() => putWallet(t, headers, body)));
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 400, 400]);
  });

  it("another worker's payload is refused, and stays usable by its owner", async () => {
    const alice = newWorkerHeaders();
    const mallory = newWorkerHeaders();
    const { payload } = await challenge(t, alice);
    const res = await putWallet(t, mallory, proofFor(t, newTonWallet(), payload));
    expectRefused(res, 'proof/payload', /not a challenge issued to you/);
    expect((await workerMe(t, mallory)).walletAddress).toBeNull();
    expect((await putWallet(t, alice, proofFor(t, newTonWallet(), payload))).statusCode).toBe(200);
  });

  it('a payload never issued is refused', async () => {
    const res = await putWallet(t, newWorkerHeaders(), proofFor(t, newTonWallet(), 'f'.repeat(64)));
    expectRefused(res, 'proof/payload', /not a challenge issued to you/);
  });

  it('an expired challenge is refused even with a freshly signed proof', async () => {
    const headers = newWorkerHeaders();
    const { payload } = await challenge(t, headers);
    t.clock.advance(16 * 60_000);
    expectRefused(
      await putWallet(t, headers, proofFor(t, newTonWallet(), payload)),
      'proof/payload',
      /expired/,
    );
    expect((await workerMe(t, headers)).walletAddress).toBeNull();
  });

  it('a bad proof does not use the payload up: wrong domain, stale, forged, mismatched', async () => {
    const headers = newWorkerHeaders();
    const wallet = newTonWallet();
    const { payload } = await challenge(t, headers);
    const now = unixSeconds(t.clock.now());
    const otherKeys = newTonWallet().keys;
    const cases: [TonProofReply, string, RegExp][] = [
      [proofFor(t, wallet, payload, { domain: 'evil.example' }), 'proof/domain/value', /handoff\.test/],
      [proofFor(t, wallet, payload, { timestamp: now - 16 * 60 }), 'proof/timestamp', /too old/],
      [proofFor(t, wallet, payload, { timestamp: now + 10 * 60 }), 'proof/timestamp', /future/],
      [proofFor(t, wallet, payload, { signer: otherKeys }), 'proof/signature', /signature/],
      [
        { ...proofFor(t, wallet, payload), address: newTonWallet().address.toRawString() },
        'proof/state_init',
        /address/,
      ],
      [
        { ...proofFor(t, wallet, payload), public_key: otherKeys.publicKey.toString('hex') },
        'public_key',
        /state init/,
      ],
    ];
    for (const [body, path, message] of cases)
      expectRefused(await putWallet(t, headers, body), path, message);
    expect((await challengeRow(t, payload))?.used_at).toBeNull();
    expect((await putWallet(t, headers, proofFor(t, wallet, payload))).statusCode).toBe(200);
  });

  it('a malformed proof body is 400, never taken as a bare address', async () => {
    const headers = newWorkerHeaders();
    const body = proofFor(t, newTonWallet(), (await challenge(t, headers)).payload);
    for (const bad of [
      { ...body, proof: { ...body.proof, signature: 'A'.repeat(201) } },
      { ...body, network: '-1' },
      { ...body, public_key: 'xyz' },
      { address: body.address, proof: body.proof },
    ]) {
      const res = await putWallet(t, headers, bad);
      expect(res.statusCode, JSON.stringify(bad)).toBe(400);
      expect(res.json().error).toBe('Validation failed');
    }
    expect((await workerMe(t, headers)).walletAddress).toBeNull();
  });

  it('changing the wallet while a task is assigned is 409 even with a valid proof', async () => {
    const agent = await createAgent(t, { deposit: '100' });
    const worker = await createWorker(t);
    const { taskId } = await assignedTask(t, agent, worker);
    const wallet = newTonWallet('v5r1');
    const { payload } = await challenge(t, worker.headers);
    const body = proofFor(t, wallet, payload);

    const refused = await putWallet(t, worker.headers, body);
    expect(refused.statusCode, refused.body).toBe(409);
    expect(refused.json().error).toMatch(/wallet/i);
    expect((await workerMe(t, worker.headers)).walletAddress).toBe(worker.wallet);
    expect((await challengeRow(t, payload))?.used_at).toBeNull();

    // Once the task is over, the same proof (still fresh, payload unused) goes through.
    const refund = await call(t, 'POST', `/tasks/${taskId}/refund`, agent.headers, {});
    expect(refund.statusCode, refund.body).toBe(200);
    const changed = await putWallet(t, worker.headers, body);
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json().worker.walletAddress).toBe(formatAddress(wallet.address, 'sandbox'));
  });
});

describe('PUT /worker/me/wallet off the sandbox', () => {
  class TestnetChain extends FaultyChain {
    override get network() {
      return 'testnet' as const;
    }
  }
  let net: TestApp;
  beforeAll(async () => {
    net = await createTestApp({ wrapChain: (chain) => new TestnetChain(chain) });
  });
  afterAll(() => net.close());

  it('a bare address is refused: send a ton_proof', async () => {
    const headers = newWorkerHeaders(net);
    const res = await putWallet(net, headers, { address: newWalletAddress() });
    expectRefused(res, 'proof', /ton_proof/);
    expect((await workerMe(net, headers)).walletAddress).toBeNull();
  });

  it('a testnet proof (chain -3) is accepted; a mainnet one is refused', async () => {
    const headers = newWorkerHeaders(net);
    const wallet = newTonWallet();
    const mainnet = proofFor(net, wallet, (await challenge(net, headers)).payload, { network: '-239' });
    expectRefused(await putWallet(net, headers, mainnet), 'network', /-3/);
    const testnet = proofFor(net, wallet, (await challenge(net, headers)).payload, { network: '-3' });
    const res = await putWallet(net, headers, testnet);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().worker.walletAddress).toBe(formatAddress(wallet.address, 'testnet'));
  });
});
