import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Address, toNano } from '@ton/core';
import { keyPairFromSeed, mnemonicNew, mnemonicToPrivateKey } from '@ton/crypto';
import { WalletContractV4 } from '@ton/ton';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HighloadWallet } from '../../src/chain/highloadWallet.js';
import { NetworkJettonGateway } from '../../src/chain/jetton/networkJetton.js';
import { USDT_METADATA_URI } from '../../src/chain/jetton/sandboxMaster.js';
import { RequestBudget } from '../../src/chain/requestBudget.js';
import { ToncenterClient } from '../../src/chain/toncenterClient.js';
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
 * again on the same database, it pays every worker exactly once (to the nanoton and the
 * micro-USDT, on chain) and credits every deposit exactly once. The killed batch holds a TON task's
 * payout and fee and a USDT task's, as jetton transfers (TON_USDT_MASTER names the fake's USDT).
 * Runs on SQLite, or PostgreSQL with TEST_DATABASE_URL.
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
  let usdt: NetworkJettonGateway;
  let usdtMaster: Address;

  beforeAll(async () => {
    fake = await startFakeToncenter({ blockMs: 20 });
    const master = await fake.deployJetton(USDT_METADATA_URI, 'usdt-admin');
    usdtMaster = master;
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
      TON_USDT_MASTER: master.toString(),
    });
    await fake.sendFromFaucet(hot, toNano(100), 'funding');
    // The operator's USDT for payouts; agents' USDT deposits land in the same jetton wallet.
    await fake.mintJetton(master, hot, 1_000_000n);
    // The test's own reader of the chain's jetton balances.
    const client = new ToncenterClient({
      baseUrl: fake.url,
      budget: new RequestBudget(200),
      timeoutMs: 5_000,
    });
    usdt = new NetworkJettonGateway({ network: 'testnet', client, master, hotWallet: hot });
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
    // A USDT deposit: a jetton transfer with the agent's memo, from the agent's own jetton wallet.
    await fake.sendJettonFromFaucet(usdtMaster, hot, 20_000_000n, agentId);
    const balances = async () => (await api('GET', '/agents/me', agent)).json.agent.balances as Json;
    const balance = async () => (await balances()).TON.balance as string;
    await eventually(async () => (await balance()) === '50', 'the deposit is credited');
    await eventually(async () => (await balances()).USDT.balance === '20', 'the USDT deposit is credited');

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
    // Two tasks assigned first, then both completed at once, so their four transfers (TON and
    // jettons) are due together and go into the batch the process dies on.
    const taskIds: string[] = [];
    for (const body of [
      { title: 'Photo', description: 'Town hall', reward: '10' },
      { title: 'Price', description: 'Of milk', reward: '5', currency: 'USDT' },
    ]) {
      const task = await api('POST', '/tasks', agent, body);
      expect(task.status).toBe(201);
      const applied = await api('POST', `/worker/tasks/${task.json.task.id}/applications`, worker, {
        message: 'Me',
      });
      expect(
        (await api('PATCH', `/applications/${applied.json.application.id}`, agent, { status: 'ACCEPTED' }))
          .status,
      ).toBe(200);
      taskIds.push(task.json.task.id as string);
    }
    // On a loaded machine the sender can take the first task's transfers and reach its fail point
    // before the second approval's answer is written: that call then sees the connection drop.
    const completed = await Promise.allSettled(
      taskIds.map((id) => api('POST', `/tasks/${id}/complete`, agent)),
    );
    for (const done of completed) {
      if (done.status === 'fulfilled')
        expect(done.value.json.payment).toMatchObject({ pending: true, txHash: null });
    }

    // The sender reaches the fail point and the process dies there, as with kill -9.
    expect(await service.exited).toBe('SIGKILL');
    service = await startService(env);
    // An approval cut off by the kill either committed (then it is 409 now and paid below) or did
    // not (then it is approved now): either way each task is paid once.
    for (const [i, done] of completed.entries()) {
      if (done.status === 'fulfilled') continue;
      const again = await api('POST', `/tasks/${taskIds[i]}/complete`, agent);
      expect([200, 409], JSON.stringify(again.json)).toContain(again.status);
    }
    const usdtTask = await api('GET', `/tasks/${taskIds[1]}`, agent);
    expect(usdtTask.json.task.currency).toBe('USDT');
    const ledger = async () =>
      (await api('GET', '/transactions', agent)).json.transactions as { type: string; status: string }[];
    await eventually(async () => {
      const rows = (await ledger()).filter((r) => r.type === 'PAYOUT' || r.type === 'FEE');
      return rows.length === 4 && rows.every((r) => r.status === 'confirmed');
    }, 'both payouts and both fees are confirmed');
    // Some more rounds of the loops change nothing.
    await new Promise((r) => setTimeout(r, 1_000));
    // TON: 10 and 3, plus the 1 nanoton each USDT transfer forwards with its notification (so the
    // recipient's wallet app shows the comment).
    expect(await fake.balance(wallet.address)).toBe(toNano('10') + 1n);
    expect(await fake.balance(feeAddress)).toBe(toNano('3') + 1n);
    expect(await balance()).toBe('37');
    // USDT, read from the jetton wallets: 5 to the worker, 1.5 to the fee address, once.
    expect(await usdt.balance(wallet.address.toString())).toBe(5_000_000n);
    expect(await usdt.balance(feeAddress.toString())).toBe(1_500_000n);
    expect(await usdt.balance(hot.toString())).toBe(1_000_000n + 20_000_000n - 6_500_000n);
    expect((await balances()).USDT.balance).toBe('13.5');
    const reconciliation = await api('GET', '/admin/reconciliation', admin);
    expect(reconciliation.json, JSON.stringify(reconciliation.json)).toMatchObject({
      ok: true,
      differences: [],
      checkedRows: 3,
      currencies: { USDT: { state: 'compared', ok: true, differences: [] } },
    });
  }, 300_000); // two cold starts of the service (tsx compiles it) on a busy 2-core CI machine
});
