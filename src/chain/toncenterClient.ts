import { Address, Cell, loadTransaction, type Transaction, type TupleItem } from '@ton/core';
import { clipText } from '../domain/text.js';
import { type RequestBudget, retryAfterMs } from './requestBudget.js';

/**
 * A small client for toncenter's HTTP API v2 (`POST {base}/jsonRPC`), the protocol every
 * v2-compatible provider speaks. Every request goes through the shared RequestBudget; a 429 pauses
 * the budget for its Retry-After (doubling while 429s repeat) and is retried a bounded number of
 * times. Other failures (5xx, time-outs, `ok: false`) throw ProviderError: the callers are loops
 * that try again on their next round, and nothing they do is unsafe to repeat.
 */
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
  ) {
    super(message);
  }
}

export interface ToncenterOptions {
  /** The API base, e.g. https://testnet.toncenter.com/api/v2 */
  baseUrl: string;
  apiKey?: string;
  budget: RequestBudget;
  timeoutMs?: number;
}

export interface AccountInfo {
  balanceNano: bigint;
  state: 'active' | 'uninitialized' | 'frozen';
}

export interface ChainTransaction {
  lt: bigint;
  /** Hex hash of the transaction. */
  hash: string;
  tx: Transaction;
}

const MAX_429_RETRIES = 6;
const FIRST_429_PAUSE_MS = 1_000;

export class ToncenterClient {
  private consecutive429 = 0;
  lastError: { message: string; at: string } | null = null;

  constructor(private readonly opts: ToncenterOptions) {}

  get budget(): RequestBudget {
    return this.opts.budget;
  }

  async getAccount(address: Address): Promise<AccountInfo> {
    const r = (await this.call('getAddressInformation', { address: address.toString() })) as {
      balance: string | number;
      state: string;
    };
    const state = r.state === 'active' || r.state === 'frozen' ? r.state : 'uninitialized';
    return { balanceNano: BigInt(r.balance), state };
  }

  /** Runs a get method with integer arguments; returns the integer results. */
  async runGetMethod(address: Address, method: string, args: bigint[]): Promise<bigint[]> {
    const stack = args.map((a) => ['num', `${a < 0n ? '-' : ''}0x${(a < 0n ? -a : a).toString(16)}`]);
    const r = (await this.call('runGetMethod', { address: address.toString(), method, stack })) as {
      exit_code: number;
      stack: [string, unknown][];
    };
    if (r.exit_code !== 0 && r.exit_code !== 1) {
      throw new ProviderError(`get method ${method} exited with code ${r.exit_code}`, null);
    }
    return r.stack.map(([type, value]) => {
      if (type !== 'num' || typeof value !== 'string')
        throw new ProviderError(`${method}: non-integer result`, null);
      return value.startsWith('-') ? -BigInt(value.slice(1)) : BigInt(value);
    });
  }

  /**
   * Runs a get method with integer, cell and slice arguments (v2 stack entries `num`, `tvm.Cell`,
   * `tvm.Slice`) and returns its stack. Cells and slices come back as `cell` or `slice` entries
   * holding a base64 BOC in `bytes` (toncenter answers a slice as `cell`; the readers take the
   * bits either way); tuples and lists are not read (a jetton's get methods return none). A
   * non-zero exit code throws (toncenter's C++ server answers it as an error itself).
   */
  async runGetMethodStack(address: Address, method: string, args: TupleItem[]): Promise<TupleItem[]> {
    const stack = args.map((a) => {
      if (a.type === 'int')
        return ['num', `${a.value < 0n ? '-' : ''}0x${(a.value < 0n ? -a.value : a.value).toString(16)}`];
      if (a.type === 'cell') return ['tvm.Cell', a.cell.toBoc().toString('base64')];
      if (a.type === 'slice') return ['tvm.Slice', a.cell.toBoc().toString('base64')];
      throw new Error(`${method}: unsupported argument type ${a.type}`);
    });
    const r = (await this.call('runGetMethod', { address: address.toString(), method, stack })) as {
      exit_code: number;
      stack: [string, unknown][];
    };
    if (r.exit_code !== 0 && r.exit_code !== 1) {
      throw new ProviderError(`get method ${method} exited with code ${r.exit_code}`, null);
    }
    return r.stack.map(([type, value]): TupleItem => {
      if (type === 'num' && typeof value === 'string') {
        return { type: 'int', value: value.startsWith('-') ? -BigInt(value.slice(1)) : BigInt(value) };
      }
      if (type === 'null') return { type: 'null' };
      // {bytes: base64} as toncenter answers; a bare base64 string as some v2 servers do.
      const bytes = typeof value === 'string' ? value : (value as { bytes?: unknown } | null)?.bytes;
      const kind = type.toLowerCase().replace(/^tvm\./, '');
      if ((kind === 'cell' || kind === 'slice') && typeof bytes === 'string') {
        try {
          const cell = Cell.fromBase64(bytes);
          return kind === 'cell' ? { type: 'cell', cell } : { type: 'slice', cell };
        } catch {
          // falls through to the error below
        }
      }
      throw new ProviderError(`${method}: unreadable ${type} result`, null);
    });
  }

  async sendBoc(boc: string): Promise<void> {
    await this.call('sendBoc', { boc });
  }

  /**
   * One page of an account's transactions, newest first, starting at (lt, hash) inclusive when
   * given. Each is parsed from its full BOC (`data`), so nothing depends on the provider's
   * summary fields.
   */
  async getTransactions(
    address: Address,
    limit: number,
    from?: { lt: bigint; hash: string },
  ): Promise<ChainTransaction[]> {
    const params: Record<string, unknown> = { address: address.toString(), limit, archival: true };
    if (from) {
      params.lt = from.lt.toString();
      params.hash = Buffer.from(from.hash, 'hex').toString('base64');
    }
    const rows = (await this.call('getTransactions', params)) as { data: string }[];
    return rows.map((row) => {
      const tx = loadTransaction(Cell.fromBase64(row.data).beginParse());
      return { lt: tx.lt, hash: tx.hash().toString('hex'), tx };
    });
  }

  private async call(method: string, params: Record<string, unknown>): Promise<unknown> {
    try {
      const result = await this.callWith429Retries(method, params);
      return result;
    } catch (error) {
      this.lastError = { message: `${method}: ${(error as Error).message}`, at: new Date().toISOString() };
      throw error;
    }
  }

  private async callWith429Retries(method: string, params: Record<string, unknown>): Promise<unknown> {
    for (let attempt = 0; ; attempt++) {
      await this.opts.budget.take();
      const response = await this.post(method, params);
      if (response.status === 429 && attempt < MAX_429_RETRIES) {
        this.consecutive429 += 1;
        const backoff = FIRST_429_PAUSE_MS * 2 ** Math.min(this.consecutive429 - 1, 5);
        this.opts.budget.pause(retryAfterMs(response.headers.get('retry-after'), backoff));
        continue;
      }
      if (response.status !== 429) this.consecutive429 = 0;
      const text = await response.text();
      let body: { ok?: boolean; result?: unknown; error?: string } | undefined;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      if (!response.ok || !body?.ok) {
        const reason = body?.error ?? clipText(text, 200);
        throw new ProviderError(`HTTP ${response.status}: ${reason}`, response.status);
      }
      return body.result;
    }
  }

  private async post(method: string, params: Record<string, unknown>): Promise<Response> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.opts.apiKey) headers['x-api-key'] = this.opts.apiKey;
    try {
      return await fetch(`${this.opts.baseUrl}/jsonRPC`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ id: 1, jsonrpc: '2.0', method, params }),
        signal: AbortSignal.timeout(this.opts.timeoutMs ?? 10_000),
      });
    } catch (error) {
      const cause = (error as { cause?: { message?: string } }).cause?.message;
      throw new ProviderError(
        `request failed: ${(error as Error).message}${cause ? ` (${cause})` : ''}`,
        null,
      );
    }
  }
}

export function parseAddressStrict(value: string): Address {
  return Address.parse(value);
}
