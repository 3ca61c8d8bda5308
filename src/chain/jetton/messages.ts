import { type Address, beginCell, type Cell, type Slice, comment as textComment } from '@ton/core';
import { type CommentReading, readComment } from '../textComment.js';

/**
 * TEP-74 message bodies: the ones we build (transfer, and the sandbox's mint) and the ones we read
 * (transfer_notification for deposits; transfer and internal_transfer to confirm payouts). The
 * layouts are those of stablecoin-contract's contracts/jetton.tlb.
 *
 * The readers are total: anyone can send the deposit address any body the chain allows, so a
 * malformed one reads as null and never throws out of the watcher.
 */
export const JETTON_OP = {
  transfer: 0x0f8a7ea5,
  transferNotification: 0x7362d09c,
  internalTransfer: 0x178d4519,
  excesses: 0xd53276db,
  mint: 0x642b7d07,
  topUp: 0xd372158c,
} as const;

export interface JettonTransferFields {
  /** Ours to choose; the jetton wallets carry it through every message of the transfer. */
  queryId: bigint;
  /** In the jetton's smallest unit (USDT: 6 decimals). */
  amount: bigint;
  /** The recipient's owner address (their wallet, not their jetton wallet). */
  destination: Address;
  /** Gets what is left of the attached TON (op excesses): the hot wallet. */
  responseDestination: Address;
  /** TON the recipient's jetton wallet forwards to the recipient with the notification. */
  forwardTonNano: bigint;
  /** Text comment in the forward payload (what the recipient's wallet app shows). */
  comment: string;
}

/**
 * transfer#0f8a7ea5 query_id:uint64 amount:Coins destination:MsgAddress response_destination:MsgAddress
 * custom_payload:(Maybe ^Cell) forward_ton_amount:Coins forward_payload:(Either Cell ^Cell)
 *
 * The comment always goes in a reference: the body's own cell has no room for a long one, and the
 * stablecoin wallet requires a referenced payload to be the body's last bit and only reference.
 */
export function jettonTransferBody(t: JettonTransferFields): Cell {
  return beginCell()
    .storeUint(JETTON_OP.transfer, 32)
    .storeUint(t.queryId, 64)
    .storeCoins(t.amount)
    .storeAddress(t.destination)
    .storeAddress(t.responseDestination)
    .storeBit(false) // no custom payload
    .storeCoins(t.forwardTonNano)
    .storeBit(true)
    .storeRef(textComment(t.comment))
    .endCell();
}

/**
 * mint#642b7d07 query_id:uint64 to_address:MsgAddress ton_amount:Coins master_msg:^InternalTransfer,
 * which the master (admin only) passes to the recipient's jetton wallet with `tonNano`.
 */
export function jettonMintBody(m: {
  to: Address;
  amount: bigint;
  tonNano: bigint;
  responseDestination: Address;
  forwardTonNano: bigint;
  comment?: string;
}): Cell {
  const internalTransfer = beginCell()
    .storeUint(JETTON_OP.internalTransfer, 32)
    .storeUint(0, 64)
    .storeCoins(m.amount)
    .storeAddress(null) // from: none (minted)
    .storeAddress(m.responseDestination)
    .storeCoins(m.forwardTonNano);
  if (m.comment === undefined) internalTransfer.storeBit(false);
  else internalTransfer.storeBit(true).storeRef(textComment(m.comment));
  return beginCell()
    .storeUint(JETTON_OP.mint, 32)
    .storeUint(0, 64)
    .storeAddress(m.to)
    .storeCoins(m.tonNano)
    .storeRef(internalTransfer.endCell())
    .endCell();
}

/** top_up#d372158c query_id:uint64: accepted by both contracts (used to deploy the master). */
export function jettonTopUpBody(): Cell {
  return beginCell().storeUint(JETTON_OP.topUp, 32).storeUint(0, 64).endCell();
}

export interface TransferNotification {
  queryId: bigint;
  amount: bigint;
  /** The owner who sent the jettons, as the sender's jetton wallet says (null: minted). */
  sender: Address | null;
  /** The forward payload read as a text comment. */
  comment: CommentReading;
}

/**
 * transfer_notification#7362d09c query_id:uint64 amount:Coins sender:MsgAddress
 * forward_payload:(Either Cell ^Cell), or null for any other or malformed body.
 */
export function readTransferNotification(body: Cell): TransferNotification | null {
  return total(body, (s) => {
    if (s.loadUint(32) !== JETTON_OP.transferNotification) return null;
    const queryId = s.loadUintBig(64);
    const amount = s.loadCoins();
    const sender = s.loadMaybeAddress();
    return { queryId, amount, sender, comment: readForwardPayload(s) };
  });
}

export interface TransferRequestBody {
  queryId: bigint;
  amount: bigint;
  destination: Address;
}

/** The head of a transfer body (what the hot jetton wallet was asked to do), or null. */
export function readTransferRequest(body: Cell): TransferRequestBody | null {
  return total(body, (s) => {
    if (s.loadUint(32) !== JETTON_OP.transfer) return null;
    const queryId = s.loadUintBig(64);
    const amount = s.loadCoins();
    const destination = s.loadAddress();
    return { queryId, amount, destination };
  });
}

export interface InternalTransferHead {
  queryId: bigint;
  amount: bigint;
  /** The sending owner (null: minted by the master). */
  from: Address | null;
}

/** internal_transfer#178d4519 query_id:uint64 amount:Coins from:MsgAddress ..., or null. */
export function readInternalTransfer(body: Cell): InternalTransferHead | null {
  return total(body, (s) => {
    if (s.loadUint(32) !== JETTON_OP.internalTransfer) return null;
    const queryId = s.loadUintBig(64);
    const amount = s.loadCoins();
    const from = s.loadMaybeAddress();
    return { queryId, amount, from };
  });
}

/**
 * excesses#d53276db query_id:uint64: the TON a jetton wallet returns to the response destination
 * (our hot wallet) after a payout; its query id names the payout (jettonQueryId). Not a deposit.
 */
export function readExcesses(body: Cell): { queryId: bigint } | null {
  return total(body, (s) => {
    if (s.loadUint(32) !== JETTON_OP.excesses) return null;
    return { queryId: s.loadUintBig(64) };
  });
}

/** Either Cell ^Cell: bit 0 and the payload inline, or bit 1 and the payload in the next reference. */
export function readForwardPayload(s: Slice): CommentReading {
  if (s.remainingBits === 0) return { kind: 'none' }; // an empty payload with its Either bit omitted
  const inRef = s.loadBit();
  if (inRef) {
    if (s.remainingRefs === 0)
      return { kind: 'unreadable', problem: 'the forward payload reference is missing' };
    return readComment(s.loadRef());
  }
  if (s.remainingBits === 0 && s.remainingRefs === 0) return { kind: 'none' };
  return readComment(beginCell().storeSlice(s).endCell());
}

/** Runs a reader over a body's slice; a body the reader cannot follow is not that message. */
function total<T>(body: Cell, read: (s: Slice) => T | null): T | null {
  try {
    if (body.isExotic) return null;
    return read(body.beginParse());
  } catch {
    return null;
  }
}
