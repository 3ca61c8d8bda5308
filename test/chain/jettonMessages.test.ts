import { randomBytes } from 'node:crypto';
import { Address, beginCell, Cell, comment as textComment } from '@ton/core';
import { describe, expect, it } from 'vitest';
import { readJettonDeposit } from '../../src/chain/jetton/deposits.js';
import {
  JETTON_OP,
  jettonTransferBody,
  readExcesses,
  readInternalTransfer,
  readTransferNotification,
  readTransferRequest,
} from '../../src/chain/jetton/messages.js';
import { jettonQueryId } from '../../src/chain/jetton/payout.js';

const someone = () => new Address(0, randomBytes(32));

function notification(
  payload: (b: ReturnType<typeof beginCell>) => void,
  amount = 5_000_000n,
  sender = someone(),
) {
  const b = beginCell()
    .storeUint(JETTON_OP.transferNotification, 32)
    .storeUint(7, 64)
    .storeCoins(amount)
    .storeAddress(sender);
  payload(b);
  return b.endCell();
}

describe('TEP-74 bodies', () => {
  it('builds a transfer as the standard lays it out: comment in a reference, no custom payload', () => {
    const [destination, response] = [someone(), someone()];
    const body = jettonTransferBody({
      queryId: 42n,
      amount: 1_500_000n,
      destination,
      responseDestination: response,
      forwardTonNano: 1n,
      comment: 'task tsk_1',
    });
    const s = body.beginParse();
    expect(s.loadUint(32)).toBe(0x0f8a7ea5);
    expect(s.loadUintBig(64)).toBe(42n);
    expect(s.loadCoins()).toBe(1_500_000n);
    expect(s.loadAddress().equals(destination)).toBe(true);
    expect(s.loadAddress().equals(response)).toBe(true);
    expect(s.loadBit()).toBe(false);
    expect(s.loadCoins()).toBe(1n);
    expect(s.loadBit()).toBe(true);
    expect(s.loadRef().equals(textComment('task tsk_1'))).toBe(true);
    expect(s.remainingBits + s.remainingRefs).toBe(0);
    expect(readTransferRequest(body)).toMatchObject({ queryId: 42n, amount: 1_500_000n });
  });

  it('reads a notification with the comment in a reference or inline, or without one', () => {
    const sender = someone();
    const inRef = readTransferNotification(
      notification((b) => b.storeBit(true).storeRef(textComment('agt_1')), 9n, sender),
    );
    expect(inRef).toMatchObject({ queryId: 7n, amount: 9n, comment: { kind: 'text', text: 'agt_1' } });
    expect(inRef?.sender?.equals(sender)).toBe(true);
    const inline = readTransferNotification(
      notification((b) => b.storeBit(false).storeSlice(textComment('agt_2').beginParse())),
    );
    expect(inline?.comment).toEqual({ kind: 'text', text: 'agt_2' });
    expect(readTransferNotification(notification((b) => b.storeBit(false)))?.comment).toEqual({
      kind: 'none',
    });
    expect(readTransferNotification(notification(() => {}))?.comment).toEqual({ kind: 'none' });
    // A binary payload is not a comment.
    const binary = notification((b) =>
      b.storeBit(true).storeRef(beginCell().storeUint(0xdeadbeef, 32).endCell()),
    );
    expect(readTransferNotification(binary)?.comment).toEqual({ kind: 'none' });
  });

  it('reads anything malformed as null, never throwing', () => {
    const truncated = beginCell().storeUint(JETTON_OP.transferNotification, 32).storeUint(1, 20).endCell();
    const wrongOp = beginCell().storeUint(JETTON_OP.excesses, 32).storeUint(0, 64).endCell();
    const badAddress = beginCell()
      .storeUint(JETTON_OP.transferNotification, 32)
      .storeUint(0, 64)
      .storeCoins(1n)
      .storeUint(0b11, 2) // addr_var: not an address the chain routes
      .endCell();
    const missingRef = notification((b) => b.storeBit(true));
    const bodies = [Cell.EMPTY, truncated, wrongOp, badAddress, beginCell().storeUint(1, 3).endCell()];
    for (const body of bodies) {
      expect(readTransferNotification(body)).toBeNull();
      expect(readTransferRequest(body)).toBeNull();
      expect(readInternalTransfer(body)).toBeNull();
    }
    expect(readTransferNotification(missingRef)?.comment.kind).toBe('unreadable');
    expect(readExcesses(wrongOp)).toEqual({ queryId: 0n });
    for (const body of [Cell.EMPTY, truncated, badAddress]) expect(readExcesses(body)).toBeNull();
  });

  it('gives each transfer id its own stable 64-bit query id', () => {
    expect(jettonQueryId('txn_1')).toBe(jettonQueryId('txn_1'));
    expect(jettonQueryId('txn_1')).not.toBe(jettonQueryId('txn_2'));
    expect(jettonQueryId('txn_1') < 2n ** 64n).toBe(true);
  });

  it('ignores a bounced message and any transaction without a notification', () => {
    const own = someone();
    const tx = (bounced: boolean, body: Cell) =>
      ({
        inMessage: { info: { type: 'internal', bounced, src: own }, body },
        hash: () => Buffer.alloc(32),
        lt: 1n,
      }) as never;
    const body = notification((b) => b.storeBit(true).storeRef(textComment('agt')));
    expect(readJettonDeposit(tx(false, body), own)).toMatchObject({ memo: 'agt', foreign: false });
    expect(readJettonDeposit(tx(true, body), own)).toBeNull();
    expect(readJettonDeposit(tx(false, textComment('agt')), own)).toBeNull();
    expect(readJettonDeposit(tx(false, body), someone())).toMatchObject({ foreign: true });
  });
});
