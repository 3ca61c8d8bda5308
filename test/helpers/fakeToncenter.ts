import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  Address,
  beginCell,
  Cell,
  loadTransaction,
  type Message,
  storeAccountStatus,
  storeCurrencyCollection,
  storeMessage,
  type Transaction,
  type TupleItem,
  comment as textComment,
  toNano,
} from '@ton/core';
import { Blockchain, type SandboxContract, type TreasuryContract } from '@ton/sandbox';
import { jettonTransferBody } from '../../src/chain/jetton/messages.js';
import { deployJettonMaster, mintJettons } from '../../src/chain/jetton/sandboxMaster.js';

/**
 * A toncenter-HTTP-API-v2-compatible server (POST /api/v2/jsonRPC and GET /api/v2/<method>)
 * backed by @ton/sandbox, which runs the real contracts (Highload Wallet v3 among them).
 * External messages wait for the next "block" (every `blockMs`), as on the real network, and are
 * dropped when the wallet refuses them. Transactions are kept per account with their real lt and
 * hash and served newest first with their full BOC in `data`, as toncenter does.
 *
 * Faults are injected per method (or '*'): 429 with Retry-After, 5xx, a hang past the client's
 * time-out, a sendBoc that reaches the chain but answers 500, a page of transactions served
 * twice, and downtime (every request 503) for as long as the test wants.
 */
export type Fault =
  | { kind: 'status'; status: number; retryAfterSec?: number }
  | { kind: 'hang' }
  | { kind: 'land-then-500' }
  | { kind: 'repeat-page' };

interface StoredTx {
  lt: bigint;
  hash: Buffer;
  boc: string;
}

export interface FakeToncenter {
  /** The API base, as TON_API_URL takes it. */
  url: string;
  blockchain: Blockchain;
  faucet: SandboxContract<TreasuryContract>;
  /** The chain's unix time (real time plus whatever `advance` added). */
  nowSeconds(): number;
  advance(seconds: number): void;
  inject(method: string, fault: Fault, times?: number): void;
  setDown(down: boolean): void;
  /** Drops every injected fault not yet used. */
  clearFaults(): void;
  /** Requests served per method (including refused ones). */
  requests: Map<string, number>;
  totalRequests(): number;
  /** A transfer from the faucet (an agent's wallet) with a text comment; resolves after it is on chain. */
  sendFromFaucet(to: Address, amountNano: bigint, comment?: string, bounce?: boolean): Promise<void>;
  /**
   * Delivers a message built by the test (any body, sender or flag the chain allows, e.g. a
   * bounced one or a jetton notification) straight to its destination; resolves once recorded.
   */
  deliver(message: InternalMessage): Promise<void>;
  /**
   * Adds a backlog of incoming transfers to `to`'s history fast: the first is a real transfer
   * run by the chain and the rest are copies of its transaction (same phases and fees) with
   * their own lt, sender's value and comment, each linked to the one before. The chain's balance
   * does not include the copies; the history the provider serves does, as a real backlog.
   */
  appendBacklog(
    to: Address,
    transfers: { amountNano: bigint; comment: string }[],
  ): Promise<{ lt: bigint; hash: string }[]>;
  balance(address: Address): Promise<bigint>;
  /**
   * Deploys a jetton master with the stablecoin code (admin: a treasury named by `adminSeed`), as
   * the real USDT master or a look-alike; idempotent. The jetton's transactions are served like any.
   */
  deployJetton(metadataUri: string, adminSeed?: string): Promise<Address>;
  /** The master's admin mints `amount` to `owner`. */
  mintJetton(master: Address, owner: Address, amount: bigint): Promise<void>;
  /**
   * The faucet (an agent's wallet) sends `amount` of the master's jetton to `to` with `comment`:
   * a real TEP-74 transfer through its own jetton wallet (minted to it first if it has too little).
   */
  sendJettonFromFaucet(master: Address, to: Address, amount: bigint, comment: string): Promise<void>;
  /** Every transaction of `address` the chain has recorded, oldest first (what a test checks the ledger against). */
  history(address: Address): Transaction[];
  /** Waits until no external message is queued. */
  settle(): Promise<void>;
  close(): Promise<void>;
}

export interface InternalMessage {
  from: Address;
  to: Address;
  amountNano: bigint;
  body: Cell;
  bounce?: boolean;
  bounced?: boolean;
}

/** An internal message as the chain delivers it (what a sender's transaction would have sent). */
export function internalMessage(m: InternalMessage): Message {
  return {
    info: {
      type: 'internal',
      ihrDisabled: true,
      bounce: m.bounce ?? false,
      bounced: m.bounced ?? false,
      src: m.from,
      dest: m.to,
      value: { coins: m.amountNano },
      ihrFee: 0n,
      forwardFee: 0n,
      createdLt: 0n,
      createdAt: 0,
    },
    body: m.body,
  };
}

/** The sandbox numbers each transaction 1,000,000 lt after the one before. */
const LT_STEP = 1_000_000n;

export async function startFakeToncenter(opts: { blockMs?: number } = {}): Promise<FakeToncenter> {
  const blockMs = opts.blockMs ?? 50;
  const blockchain = await Blockchain.create();
  let offsetSec = 0;
  const nowSeconds = () => Math.floor(Date.now() / 1000) + offsetSec;
  blockchain.now = nowSeconds();
  const faucet = await blockchain.treasury('agent-wallet', { balance: toNano(1_000_000_000) });
  const txs = new Map<string, StoredTx[]>();
  const faults = new Map<string, Fault[]>();
  const requests = new Map<string, number>();
  const lastPage = new Map<string, unknown>();
  const jettonAdmins = new Map<string, SandboxContract<TreasuryContract>>();
  let down = false;
  let queue: Cell[] = [];
  let chainWork: Promise<void> = Promise.resolve();

  /** Runs chain work one at a time, recording every transaction it produces. */
  const onChain = <T>(work: () => Promise<T>): Promise<T> => {
    const result = chainWork.then(async () => {
      blockchain.now = Math.max(nowSeconds(), blockchain.now ?? 0);
      return work();
    });
    chainWork = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  };
  const record = (list: { address: bigint; lt: bigint; raw: Cell; hash(): Buffer }[]) => {
    for (const tx of list) {
      const key = tx.address.toString(16).padStart(64, '0');
      const stored = txs.get(key) ?? [];
      stored.push({ lt: tx.lt, hash: tx.hash(), boc: tx.raw.toBoc().toString('base64') });
      txs.set(key, stored);
    }
  };
  const block = setInterval(() => {
    if (queue.length === 0) return;
    const batch = queue;
    queue = [];
    void onChain(async () => {
      for (const message of batch) {
        try {
          record((await blockchain.sendMessage(message)).transactions);
        } catch {
          // The wallet refused it (already processed, expired, bad signature): nothing happened.
        }
      }
    });
  }, blockMs);

  const methods: Record<string, (p: Record<string, unknown>, fault?: Fault) => Promise<unknown>> = {
    getAddressInformation: (p) =>
      onChain(async () => {
        const contract = await blockchain.getContract(Address.parse(String(p.address)));
        const type = contract.accountState?.type;
        const state = type === 'active' ? 'active' : type === 'frozen' ? 'frozen' : 'uninitialized';
        return { '@type': 'raw.fullAccountState', balance: contract.balance.toString(), state };
      }),
    getAddressBalance: (p) =>
      onChain(async () =>
        (await blockchain.getContract(Address.parse(String(p.address)))).balance.toString(),
      ),
    runGetMethod: (p) =>
      onChain(async () => {
        // v2 stack entries: ["num", "0x.."], ["tvm.Slice", base64 BOC], ["tvm.Cell", base64 BOC].
        const stack = (p.stack as [string, string][]).map(([type, v]): TupleItem => {
          if (type === 'tvm.Slice') return { type: 'slice', cell: Cell.fromBase64(v) };
          if (type === 'tvm.Cell') return { type: 'cell', cell: Cell.fromBase64(v) };
          return { type: 'int', value: parseNum(v) };
        });
        const address = Address.parse(String(p.address));
        const account = await blockchain.getContract(address);
        // toncenter runs get methods only on active accounts; an uninitialized one answers -13.
        if (account.accountState?.type !== 'active') {
          return { '@type': 'smc.runResult', gas_used: 0, stack: [], exit_code: -13 };
        }
        const r = await blockchain.runGetMethod(address, String(p.method), stack);
        // As toncenter answers: integers as hex "num"; cells and slices both as "cell" with the BOC in `bytes`.
        const out = r.stack.map((item) => {
          if (item.type === 'int') return ['num', formatNum(item.value)];
          if (item.type === 'cell' || item.type === 'slice') {
            return ['cell', { bytes: item.cell.toBoc().toString('base64'), object: {} }];
          }
          return [item.type, null];
        });
        return { '@type': 'smc.runResult', gas_used: Number(r.gasUsed), stack: out, exit_code: r.exitCode };
      }),
    sendBoc: async (p) => {
      queue.push(Cell.fromBase64(String(p.boc)));
      return { '@type': 'ok' };
    },
    getTransactions: async (p) => {
      const key = Address.parse(String(p.address)).hash.toString('hex');
      const all = [...(txs.get(key) ?? [])].reverse();
      let start = 0;
      if (p.lt !== undefined) {
        const lt = BigInt(String(p.lt));
        start = all.findIndex((t) => t.lt <= lt);
        if (start < 0) start = all.length;
      }
      const limit = Math.min(Number(p.limit ?? 10), 100);
      return all.slice(start, start + limit).map((t) => ({
        '@type': 'raw.transaction',
        data: t.boc,
        transaction_id: {
          '@type': 'internal.transactionId',
          lt: t.lt.toString(),
          hash: t.hash.toString('base64'),
        },
      }));
    },
  };

  const handle = async (method: string, params: Record<string, unknown>, res: ServerResponse) => {
    requests.set(method, (requests.get(method) ?? 0) + 1);
    if (down) return reply(res, 503, { ok: false, error: 'service unavailable', code: 503 });
    const fault = takeFault(method);
    if (fault?.kind === 'hang') return; // never answers; the client's time-out ends it
    if (fault?.kind === 'status') {
      const headers: Record<string, string> =
        fault.retryAfterSec !== undefined ? { 'retry-after': String(fault.retryAfterSec) } : {};
      return reply(
        res,
        fault.status,
        { ok: false, error: `injected ${fault.status}`, code: fault.status },
        headers,
      );
    }
    const impl = methods[method];
    if (!impl) return reply(res, 404, { ok: false, error: `unknown method ${method}`, code: 404 });
    if (fault?.kind === 'repeat-page' && lastPage.has(method)) {
      return reply(res, 200, { ok: true, result: lastPage.get(method) });
    }
    try {
      const result = await impl(params);
      if (method === 'getTransactions') lastPage.set(method, result);
      if (fault?.kind === 'land-then-500')
        return reply(res, 500, { ok: false, error: 'injected: internal error', code: 500 });
      return reply(res, 200, { ok: true, result });
    } catch (error) {
      return reply(res, 500, { ok: false, error: (error as Error).message, code: 500 });
    }
  };
  const takeFault = (method: string): Fault | undefined => {
    for (const key of [method, '*']) {
      const list = faults.get(key);
      if (list?.length) return list.shift();
    }
    return undefined;
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method === 'POST' && url.pathname === '/api/v2/jsonRPC') {
        let body: { method?: string; params?: Record<string, unknown> };
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          return reply(res, 400, { ok: false, error: 'bad JSON', code: 400 });
        }
        return void handle(String(body.method), body.params ?? {}, res);
      }
      const match = /^\/api\/v2\/(\w+)$/.exec(url.pathname);
      if (req.method === 'GET' && match) {
        return void handle(match[1]!, Object.fromEntries(url.searchParams), res);
      }
      reply(res, 404, { ok: false, error: 'not found', code: 404 });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/api/v2`,
    blockchain,
    faucet,
    nowSeconds,
    advance(seconds) {
      offsetSec += seconds;
    },
    inject(method, fault, times = 1) {
      const list = faults.get(method) ?? [];
      for (let i = 0; i < times; i++) list.push(fault);
      faults.set(method, list);
    },
    setDown(value) {
      down = value;
    },
    clearFaults() {
      faults.clear();
    },
    requests,
    totalRequests: () => [...requests.values()].reduce((a, b) => a + b, 0),
    sendFromFaucet: (to, amountNano, memo, bounce = false) =>
      onChain(async () => {
        const result = await faucet.send({
          to,
          value: amountNano,
          bounce,
          body: memo === undefined ? undefined : textComment(memo),
        });
        record(result.transactions);
      }),
    deliver: (message) =>
      onChain(async () => {
        record((await blockchain.sendMessage(internalMessage(message))).transactions);
      }),
    appendBacklog: (to, transfers) =>
      onChain(async () => {
        const [first, ...rest] = transfers;
        if (!first) return [];
        const body = textComment(first.comment);
        const real = await blockchain.sendMessage(
          internalMessage({ from: faucet.address, to, amountNano: first.amountNano, body }),
        );
        record(real.transactions);
        const template = real.transactions.find((t) => t.inMessage?.info.type === 'internal')!;
        const key = to.hash.toString('hex');
        const stored = txs.get(key)!;
        let previous = { lt: template.lt, hash: template.hash() };
        const made = [previous];
        // The parts every copy shares are the template's own cells (state update, description).
        const [, stateUpdate, description] = template.raw.refs;
        for (const transfer of rest) {
          const lt = blockchain.lt + LT_STEP;
          const inMessage = template.inMessage!;
          if (inMessage.info.type !== 'internal' || template.outMessagesCount !== 0)
            throw new Error('the template is an incoming transfer that sent nothing');
          const message: Message = {
            ...inMessage,
            info: { ...inMessage.info, value: { coins: transfer.amountNano }, createdLt: lt - 1n },
            body: textComment(transfer.comment),
          };
          // transaction$0111 (as storeTransaction writes it, with the template's shared cells).
          const cell = beginCell()
            .storeUint(0b0111, 4)
            .storeUint(template.address, 256)
            .storeUint(lt, 64)
            .storeBuffer(previous.hash)
            .storeUint(previous.lt, 64)
            .storeUint(template.now, 32)
            .storeUint(0, 15)
            .store(storeAccountStatus(template.oldStatus))
            .store(storeAccountStatus(template.endStatus))
            .storeRef(
              beginCell()
                .storeBit(1)
                .storeRef(beginCell().store(storeMessage(message)))
                .storeBit(0),
            )
            .store(storeCurrencyCollection(template.totalFees))
            .storeRef(stateUpdate!)
            .storeRef(description!)
            .endCell();
          const hash = cell.hash();
          stored.push({ lt, hash, boc: cell.toBoc().toString('base64') });
          previous = { lt, hash };
          made.push(previous);
          // Later transactions the chain runs come after the copies.
          (blockchain as unknown as { currentLt: bigint }).currentLt = lt;
        }
        return made.map((t) => ({ lt: t.lt, hash: t.hash.toString('hex') }));
      }),
    balance: (address) => onChain(async () => (await blockchain.getContract(address)).balance),
    deployJetton: (metadataUri, adminSeed = 'jetton-admin') =>
      onChain(async () => {
        const admin = await blockchain.treasury(adminSeed);
        const master = await deployJettonMaster(blockchain, admin, metadataUri);
        record(master.transactions);
        jettonAdmins.set(master.address.toRawString(), admin);
        return master.address;
      }),
    mintJetton: (master, owner, amount) =>
      onChain(async () => {
        const admin = jettonAdmins.get(master.toRawString());
        if (!admin) throw new Error('mintJetton: deploy the jetton with deployJetton first');
        record(await mintJettons(admin, master, owner, amount));
      }),
    sendJettonFromFaucet: (master, to, amount, comment) =>
      onChain(async () => {
        const admin = jettonAdmins.get(master.toRawString());
        if (!admin) throw new Error('sendJettonFromFaucet: deploy the jetton with deployJetton first');
        record(await mintJettons(admin, master, faucet.address, amount));
        const wallet = await blockchain.runGetMethod(master, 'get_wallet_address', [
          { type: 'slice', cell: beginCell().storeAddress(faucet.address).endCell() },
        ]);
        const faucetJettonWallet = wallet.stackReader.readAddress();
        const body = jettonTransferBody({
          queryId: BigInt(Date.now()),
          amount,
          destination: to,
          responseDestination: faucet.address,
          forwardTonNano: 1n,
          comment,
        });
        record(
          (await faucet.send({ to: faucetJettonWallet, value: toNano('0.1'), bounce: true, body }))
            .transactions,
        );
      }),
    history: (address) =>
      (txs.get(address.hash.toString('hex')) ?? []).map((t) =>
        loadTransaction(Cell.fromBase64(t.boc).beginParse()),
      ),
    async settle() {
      while (queue.length > 0) await new Promise((r) => setTimeout(r, blockMs));
      await chainWork;
    },
    async close() {
      clearInterval(block);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function reply(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function parseNum(v: string): bigint {
  return v.startsWith('-') ? -BigInt(v.slice(1)) : BigInt(v);
}

function formatNum(v: bigint): string {
  return v < 0n ? `-0x${(-v).toString(16)}` : `0x${v.toString(16)}`;
}
