import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Address, toNano } from '@ton/core';
import { keyPairFromSeed, mnemonicNew, mnemonicToPrivateKey } from '@ton/crypto';
import { WalletContractV4 } from '@ton/ton';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HighloadWallet } from '../../src/chain/highloadWallet.js';
import { signInitData } from '../../src/telegram/initData.js';
import type { Json } from '../helpers/agentApi.js';
import { type FakeToncenter, startFakeToncenter } from '../helpers/fakeToncenter.js';
import {
  eventually,
  type ServiceProcess,
  serviceDatabase,
  serviceEnv,
  startService,
} from '../helpers/serviceProcess.js';
import { newTonWallet, signTonProof } from '../helpers/tonConnect.js';

/**
 * The real service, on TON_NETWORK=testnet against the toncenter-v2 fake, killed with SIGKILL
 * between persisting a batch and sending it, and between sending it and confirming it; started
 * again on the same database, it pays every worker exactly once (to the nanoton, on chain) and
 * credits every deposit exactly once. Runs on SQLite, or PostgreSQL with TEST_DATABASE_URL.
 */
const WALLET_TIMEOUT_SEC = 60;

describe.each(['after-persist', 'after-send'])('SIGKILL %s, then a restart', (failPoint) => {
  let fake: FakeToncenter;
  let env: Record<string, string>;
  let dataDir: string;
  let database: Awaited<ReturnType<typeof serviceDatabase>> | undefined;
  let hot: Address;
  let feeAddress: Address;
  let service: ServiceProcess | undefined;

  beforeAll(async () => {
    fake = await startFakeToncenter({ blockMs: 20 });
    const mnemonic = await mnemonicNew();
    const keys = await mnemonicToPrivateKey(mnemonic);
    hot = new HighloadWallet({ ...keys, timeoutSec: WALLET_TIMEOUT_SEC }).address;
    feeAddress = WalletContractV4.create({
      workchain: 0,
      publicKey: keyPairFromSeed(randomBytes(32)).publicKey,
    }).address;
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'handoff-crash-'));
    database = await serviceDatabase('crash');
    // serviceEnv raises the per-key limit: the test polls the agent API while it waits.
    env = serviceEnv(dataDir, database, {
      TON_PROOF_DOMAINS: 'handoff.test',
      TON_NETWORK: 'testnet',
      TON_API_URL: fake.url,
      TON_WALLET_MNEMONIC: mnemonic.join(' '),
      TON_FEE_ADDRESS: feeAddress.toString(),
      TON_API_RPS: '200',
      TON_POLL_MS: '100',
      TON_WALLET_TIMEOUT_SEC: String(WALLET_TIMEOUT_SEC),
    });
    await fake.sendFromFaucet(hot, toNano(100), 'funding');
  });
  afterAll(async () => {
    await service?.stop();
    await fake.close();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function api(method: string, url: string, headers: Record<string, string>, body?: unknown) {
    const res = await fetch(`${service!.url}${url}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.json()) as Record<string, Json>;
    return { status: res.status, json };
  }

  it('pays the worker and the fee exactly once and credits the deposit once', async () => {
    service = await startService({ ...env, HANDOFF_FAIL_AT: failPoint });
    const admin = { authorization: `Bearer ${env.ADMIN_TOKEN}` };
    const created = await api('POST', '/admin/agents', admin, { name: 'Crash test' });
    expect(created.status).toBe(201);
    const agentId = created.json.agent.id as string;
    const agent = { authorization: `Bearer ${created.json.apiKey}` };
    await fake.sendFromFaucet(hot, toNano('50'), agentId);
    const balance = async () => (await api('GET', '/agents/me', agent)).json.agent.balance as string;
    await eventually(async () => (await balance()) === '50', 'the deposit is credited');

    const worker = {
      authorization: `tma ${signInitData({ id: 424242, first_name: 'W' }, env.TELEGRAM_BOT_TOKEN!, new Date())}`,
    };
    expect((await api('GET', '/worker/me', worker)).status).toBe(200);
    const profile = { headline: 'Courier', skills: ['photo'], country: 'DE' };
    expect((await api('PATCH', '/worker/me', worker, profile)).status).toBe(200);
    const challenge = await api('POST', '/worker/me/wallet/challenge', worker);
    const wallet = newTonWallet();
    const proof = signTonProof(wallet, {
      payload: challenge.json.payload,
      timestamp: Math.floor(Date.now() / 1000),
    });
    expect((await api('PUT', '/worker/me/wallet', worker, proof)).status).toBe(200);
    const task = await api('POST', '/tasks', agent, {
      title: 'Photo',
      description: 'Town hall',
      reward: '10',
    });
    const applied = await api('POST', `/worker/tasks/${task.json.task.id}/applications`, worker, {
      message: 'Me',
    });
    expect(
      (await api('PATCH', `/applications/${applied.json.application.id}`, agent, { status: 'ACCEPTED' }))
        .status,
    ).toBe(200);
    const done = await api('POST', `/tasks/${task.json.task.id}/complete`, agent);
    expect(done.json.payment).toMatchObject({ pending: true, txHash: null });

    // The sender reaches the fail point and the process dies there, as with kill -9.
    expect(await service.exited).toBe('SIGKILL');
    service = await startService(env);
    const ledger = async () =>
      (await api('GET', '/transactions', agent)).json.transactions as { type: string; status: string }[];
    await eventually(async () => {
      const rows = (await ledger()).filter((r) => r.type === 'PAYOUT' || r.type === 'FEE');
      return rows.length === 2 && rows.every((r) => r.status === 'confirmed');
    }, 'the payout and the fee are confirmed');
    // Some more rounds of the loops change nothing.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await fake.balance(wallet.address)).toBe(toNano('10'));
    expect(await fake.balance(feeAddress)).toBe(toNano('3'));
    expect(await balance()).toBe('37');
    const reconciliation = await api('GET', '/admin/reconciliation', admin);
    expect(reconciliation.json).toMatchObject({ ok: true, differences: [], checkedRows: 3 });
  }, 300_000); // two cold starts of the service (tsx compiles it) on a busy 2-core CI machine
});
