import { Address } from '@ton/core';
import { clipText } from '../domain/text.js';

/**
 * Input checks every gateway runs before touching a chain, so a bad request fails with a clear
 * message instead of an emulator or provider error (or, worse, a send).
 */

/** Comments ride in the message body; a cap keeps messages (and their fees) bounded. */
export const MAX_COMMENT_BYTES = 1000;
const MAX_TRANSFER_ID_LENGTH = 200;

export function assertPositiveAmount(amountNano: bigint): void {
  if (typeof amountNano !== 'bigint' || amountNano <= 0n) {
    throw new Error(`amountNano must be a positive bigint, got ${String(amountNano)}`);
  }
}

export function assertComment(text: string, field: string): void {
  if (typeof text !== 'string') throw new Error(`${field} must be a string`);
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_COMMENT_BYTES) {
    throw new Error(`${field} is ${bytes} bytes; at most ${MAX_COMMENT_BYTES} fit in a transfer comment`);
  }
}

export function assertTransferId(transferId: string): void {
  if (typeof transferId !== 'string' || transferId.length === 0) throw new Error('transferId is required');
  if (transferId.length > MAX_TRANSFER_ID_LENGTH) {
    throw new Error(`transferId is longer than ${MAX_TRANSFER_ID_LENGTH} characters`);
  }
}

/** Parses an address in any form `Address.parse` accepts (raw or user-friendly). */
export function parseAddress(input: string, field: string): Address {
  try {
    return Address.parse(input.trim());
  } catch {
    throw new Error(`${field} is not a valid TON address: ${JSON.stringify(clipText(String(input), 100))}`);
  }
}
