import {
  type Address,
  beginCell,
  Cell,
  contractAddress,
  external,
  internal,
  type MessageRelaxed,
  type OutActionSendMsg,
  SendMode,
  type StateInit,
  storeMessage,
  storeMessageRelaxed,
  storeOutList,
} from '@ton/core';
import { sign } from '@ton/crypto';

/**
 * Highload Wallet v3 (github.com/ton-blockchain/highload-wallet-contract-v3): the payout wallet.
 * Replay protection is a query id (13-bit shift, 10-bit bit number) that the contract remembers
 * for `timeout` seconds after `created_at`; re-sending a signed message is therefore always safe,
 * and once `created_at + timeout` has passed an unsent message can never land.
 *
 * We always send in the batch form: the external message makes the wallet send one internal
 * message to itself (op internal_transfer) whose body carries the action list; the wallet's second
 * transaction performs the transfers. Its 64-bit query-id field is ignored by the contract, so we
 * put our never-repeating batch sequence number there and find the batch by it on chain.
 */

/** The compiled contract from the official repository (build/HighloadWalletV3.compiled.json). */
const CODE_HEX =
  'b5ee9c7241021001000228000114ff00f4a413f4bcf2c80b01020120020d02014803040078d020d74bc00101c060b0915be101d0d3030171b0915be0fa4030f828c705b39130e0d31f018210ae42e5a4ba9d8040d721d74cf82a01ed55fb04e030020120050a02027306070011adce76a2686b85ffc00201200809001aabb6ed44d0810122d721d70b3f0018aa3bed44d08307d721d70b1f0201200b0c001bb9a6eed44d0810162d721d70b15800e5b8bf2eda2edfb21ab09028409b0ed44d0810120d721f404f404d33fd315d1058e1bf82325a15210b99f326df82305aa0015a112b992306dde923033e2923033e25230800df40f6fa19ed021d721d70a00955f037fdb31e09130e259800df40f6fa19cd001d721d70a00937fdb31e0915be270801f6f2d48308d718d121f900ed44d0d3ffd31ff404f404d33fd315d1f82321a15220b98e12336df82324aa00a112b9926d32de58f82301de541675f910f2a106d0d31fd4d307d30cd309d33fd315d15168baf2a2515abaf2a6f8232aa15250bcf2a304f823bbf2a35304800df40f6fa199d024d721d70a00f2649130e20e01fe5309800df40f6fa18e13d05004d718d20001f264c858cf16cf8301cf168e1030c824cf40cf8384095005a1a514cf40e2f800c94039800df41704c8cbff13cb1ff40012f40012cb3f12cb15c9ed54f80f21d0d30001f265d3020171b0925f03e0fa4001d70b01c000f2a5fa4031fa0031f401fa0031fa00318060d721d300010f0020f265d2000193d431d19130e272b1fb00b585bf03';
const CODE_HASH_HEX = '11acad7955844090f283bf238bc1449871f783e7cc0979408d3f4859483e8525';

export const HIGHLOAD_CODE: Cell = Cell.fromBoc(Buffer.from(CODE_HEX, 'hex'))[0]!;
if (HIGHLOAD_CODE.hash().toString('hex') !== CODE_HASH_HEX) {
  throw new Error('Highload Wallet v3 code does not match its published hash');
}

const OP_INTERNAL_TRANSFER = 0xae42e5a4;
/** The subwallet id TON's documentation uses for Highload v3 (0x10ad); part of the address. */
export const HIGHLOAD_SUBWALLET_ID = 0x10ad;
/** The contract takes at most 254 actions per internal_transfer; we stay well below. */
export const MAX_BATCH = 200;
/** Query ids run 0 .. 8191*1023; sequence numbers map onto them and wrap after that many. */
const QUERY_IDS = 8191 * 1023;

export interface HighloadConfig {
  publicKey: Buffer;
  secretKey: Buffer;
  /** Seconds a query id is remembered; part of the wallet's data, so it changes the address. */
  timeoutSec: number;
}

export interface HighloadTransfer {
  to: Address;
  amountNano: bigint;
  comment: string;
}

/**
 * Any other message a batch can carry, with its own body: a jetton payout is one to the hot
 * wallet's jetton wallet (src/chain/jetton/payout.ts), bounceable so a refused one returns its TON.
 */
export interface HighloadMessage {
  to: Address;
  valueNano: bigint;
  bounce: boolean;
  body: Cell;
}

function isMessage(t: HighloadTransfer | HighloadMessage): t is HighloadMessage {
  return 'body' in t;
}

/** The TON a batch entry sends (a jetton payout's attached TON; its jettons are not TON). */
export function entryValueNano(t: HighloadTransfer | HighloadMessage): bigint {
  return isMessage(t) ? t.valueNano : t.amountNano;
}

export interface SignedBatch {
  /** The external message as a base64 BOC: what sendBoc takes, and what a resend sends again. */
  boc: string;
  /** Hash of the external message cell (hex). */
  messageHash: string;
  queryId: number;
}

export class HighloadWallet {
  readonly address: Address;
  readonly init: StateInit;

  constructor(private readonly config: HighloadConfig) {
    const data = beginCell()
      .storeBuffer(config.publicKey)
      .storeUint(HIGHLOAD_SUBWALLET_ID, 32)
      .storeUint(0, 1 + 1 + 64)
      .storeUint(config.timeoutSec, 22)
      .endCell();
    this.init = { code: HIGHLOAD_CODE, data };
    this.address = contractAddress(0, this.init);
  }

  get timeoutSec(): number {
    return this.config.timeoutSec;
  }

  /**
   * Signs one external message that pays `transfers` (each its own action, IGNORE_ERRORS so one
   * unpayable transfer cannot stop the others; the missing out-message shows it). `withInit`
   * attaches the state init so the first message deploys the wallet from its funded address.
   */
  signBatch(opts: {
    seq: number;
    createdAt: number;
    transfers: (HighloadTransfer | HighloadMessage)[];
    withInit: boolean;
  }): SignedBatch {
    if (opts.transfers.length === 0 || opts.transfers.length > MAX_BATCH) {
      throw new Error(`a batch holds 1 to ${MAX_BATCH} transfers, got ${opts.transfers.length}`);
    }
    const actions: OutActionSendMsg[] = opts.transfers.map((t) => ({
      type: 'sendMsg',
      mode: SendMode.PAY_GAS_SEPARATELY | SendMode.IGNORE_ERRORS,
      outMsg: isMessage(t)
        ? internal({ to: t.to, value: t.valueNano, bounce: t.bounce, body: t.body })
        : internal({ to: t.to, value: t.amountNano, bounce: false, body: t.comment }),
    }));
    const actionsCell = beginCell();
    storeOutList(actions)(actionsCell);
    const total = opts.transfers.reduce((sum, t) => sum + entryValueNano(t), 0n);
    const toSelf: MessageRelaxed = internal({
      to: this.address,
      // The batch's value plus headroom for its forwarding fees; it stays in this wallet.
      value: total + BATCH_GAS_NANO * BigInt(opts.transfers.length + 1),
      bounce: true,
      body: beginCell()
        .storeUint(OP_INTERNAL_TRANSFER, 32)
        .storeUint(opts.seq, 64)
        .storeRef(actionsCell.endCell())
        .endCell(),
    });
    const queryId = opts.seq % QUERY_IDS;
    const shift = Math.floor(queryId / 1023);
    const bitNumber = queryId % 1023;
    const inner = beginCell()
      .storeUint(HIGHLOAD_SUBWALLET_ID, 32)
      .storeRef(beginCell().store(storeMessageRelaxed(toSelf)).endCell())
      .storeUint(SendMode.PAY_GAS_SEPARATELY, 8)
      .storeUint(shift, 13)
      .storeUint(bitNumber, 10)
      .storeUint(opts.createdAt, 64)
      .storeUint(this.config.timeoutSec, 22)
      .endCell();
    const body = beginCell().storeBuffer(sign(inner.hash(), this.config.secretKey)).storeRef(inner).endCell();
    const message = external({ to: this.address, body, init: opts.withInit ? this.init : undefined });
    const cell = beginCell().store(storeMessage(message)).endCell();
    return {
      boc: cell.toBoc().toString('base64'),
      messageHash: cell.hash().toString('hex'),
      queryId: (shift << 10) + bitNumber,
    };
  }
}

/** Forwarding headroom per message of a batch (the unspent rest stays in the wallet). */
const BATCH_GAS_NANO = 10_000_000n;
/** What the wallet should keep above a batch's value for the batch's own fees. */
export function batchReserveNano(transfers: number): bigint {
  return BATCH_GAS_NANO * BigInt(transfers + 1) + 50_000_000n;
}

/** The batch sequence number in an internal_transfer body, or null for any other body. */
export function readBatchSeq(body: Cell): number | null {
  const slice = body.beginParse();
  if (slice.remainingBits !== 32 + 64 || slice.remainingRefs !== 1) return null;
  if (slice.loadUint(32) !== OP_INTERNAL_TRANSFER) return null;
  return Number(slice.loadUintBig(64));
}
