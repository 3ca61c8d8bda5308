import type { Cell, Slice } from '@ton/core';

/**
 * Reads the text comment of a message body without ever throwing. Anyone can send the hot
 * wallet a message with any body the chain allows (bits that are not whole bytes, invalid
 * UTF-8, long or branching chains of cells, binary or encrypted comments, jetton notices), and
 * the deposit watcher reads every one of them: a parser that throws would stop it.
 *
 * A text comment is op 0 (32 zero bits) followed by UTF-8 text in "snake" form: each cell holds
 * whole bytes and at most one reference, to the cell that continues the text.
 */

/** A comment is read through at most this many cells (the first included); longer is unreadable. */
export const MAX_COMMENT_CELLS = 16;
/**
 * And at most this many bytes. Our own comments stay within 1,000 bytes (MAX_COMMENT_BYTES)
 * and a memo is an agent id (44 characters), so anything longer cannot name an agent.
 */
export const MAX_COMMENT_READ_BYTES = 1024;

const OP_TEXT_COMMENT = 0;

export type CommentReading =
  /** No text comment: an empty body, another op (binary 0xff, encrypted, jetton, unknown), or too short for an op. */
  | { kind: 'none' }
  | { kind: 'text'; text: string }
  /** Op 0, but the text cannot be read; `problem` says why (shown to the operator). */
  | { kind: 'unreadable'; problem: string };

const utf8 = new TextDecoder('utf-8', { fatal: true });

export function readComment(body: Cell): CommentReading {
  try {
    const slice = body.beginParse();
    if (slice.remainingBits < 32 || slice.loadUint(32) !== OP_TEXT_COMMENT) return { kind: 'none' };
    const bytes = readSnakeBytes(slice);
    if (typeof bytes === 'string') return { kind: 'unreadable', problem: bytes };
    try {
      return { kind: 'text', text: utf8.decode(bytes) };
    } catch {
      return { kind: 'unreadable', problem: 'the comment is not valid UTF-8' };
    }
  } catch (error) {
    // Nothing above should throw; a body that still manages to is unreadable, never fatal.
    return { kind: 'unreadable', problem: `the comment cannot be read (${(error as Error).message})` };
  }
}

/** The comment's bytes, or why they cannot be read. */
function readSnakeBytes(first: Slice): Buffer | string {
  const parts: Buffer[] = [];
  let total = 0;
  let slice = first;
  for (let cells = 1; ; cells++) {
    if (slice.remainingBits % 8 !== 0) return 'the comment does not end on a whole byte';
    if (slice.remainingRefs > 1) return 'the comment branches into more than one cell';
    total += slice.remainingBits / 8;
    if (total > MAX_COMMENT_READ_BYTES) return `the comment is longer than ${MAX_COMMENT_READ_BYTES} bytes`;
    parts.push(slice.loadBuffer(slice.remainingBits / 8));
    if (slice.remainingRefs === 0) return Buffer.concat(parts);
    if (cells >= MAX_COMMENT_CELLS) return `the comment spans more than ${MAX_COMMENT_CELLS} cells`;
    const next = slice.loadRef();
    if (next.isExotic) return 'the comment continues into a special cell';
    slice = next.beginParse();
  }
}

/** The comment's text, or '' when the body carries no readable text comment. */
export function readTextComment(body: Cell): string {
  const reading = readComment(body);
  return reading.kind === 'text' ? reading.text : '';
}

/**
 * A memo as the watcher matches and stores it: without control characters (C0, DEL, C1; NUL
 * cannot even be stored by PostgreSQL), invisible characters, or surrounding white space.
 */
export function cleanMemo(text: string): string {
  return text.replace(NOT_IN_A_MEMO, '').trim();
}

const NOT_IN_A_MEMO =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
  /[\u0000-\u001f\u007f-\u009f\u00ad\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\ufeff]/g;
