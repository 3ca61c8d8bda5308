import { beginCell, type Cell, comment } from '@ton/core';
import { describe, expect, it } from 'vitest';
import { readTextComment as sandboxReadTextComment } from '../../src/chain/sandboxTx.js';
import {
  cleanMemo,
  MAX_COMMENT_CELLS,
  MAX_COMMENT_READ_BYTES,
  readComment,
  readTextComment,
} from '../../src/chain/textComment.js';

/** Op 0 and `chunks`, one cell each, chained by their first reference. */
function chain(chunks: Buffer[]): Cell {
  let tail: Cell | null = null;
  for (const chunk of chunks.slice(1).reverse()) {
    const b = beginCell().storeBuffer(chunk);
    if (tail) b.storeRef(tail);
    tail = b.endCell();
  }
  const head = beginCell().storeUint(0, 32).storeBuffer(chunks[0]!);
  if (tail) head.storeRef(tail);
  return head.endCell();
}

describe('reading a comment from any body the chain allows', () => {
  it('reads text comments, in one cell or several', () => {
    expect(readComment(comment('agt_x'))).toEqual({ kind: 'text', text: 'agt_x' });
    expect(readComment(comment('é🙂'.repeat(150)))).toEqual({ kind: 'text', text: 'é🙂'.repeat(150) });
    expect(readComment(chain([Buffer.from('ab'), Buffer.from('cd')]))).toEqual({
      kind: 'text',
      text: 'abcd',
    });
  });

  it('finds no comment in other bodies', () => {
    expect(readComment(beginCell().endCell())).toEqual({ kind: 'none' });
    expect(readComment(beginCell().storeUint(0, 31).endCell())).toEqual({ kind: 'none' });
    expect(readComment(beginCell().storeUint(0xff, 8).storeBuffer(Buffer.from('hi')).endCell())).toEqual({
      kind: 'none',
    });
    expect(readComment(beginCell().storeUint(0x2167da4b, 32).storeUint(1, 64).endCell())).toEqual({
      kind: 'none',
    });
  });

  it('says why a text comment is unreadable, and never throws', () => {
    const cases: [Cell, RegExp][] = [
      [beginCell().storeUint(0, 32).storeBit(1).endCell(), /whole byte/],
      [
        beginCell()
          .storeUint(0, 32)
          .storeBuffer(Buffer.from([0xc3, 0x28]))
          .endCell(),
        /UTF-8/,
      ],
      [chain(Array.from({ length: MAX_COMMENT_CELLS + 1 }, () => Buffer.from('a'))), /more than 16 cells/],
      [chain(Array.from({ length: 9 }, () => Buffer.alloc(120, 0x61))), /longer than 1024 bytes/],
      [
        beginCell()
          .storeUint(0, 32)
          .storeRef(beginCell().storeUint(1, 8))
          .storeRef(beginCell().storeUint(1, 8))
          .endCell(),
        /branches/,
      ],
    ];
    for (const [body, problem] of cases) {
      const reading = readComment(body);
      expect(reading.kind).toBe('unreadable');
      expect(reading.kind === 'unreadable' && reading.problem).toMatch(problem);
      expect(readTextComment(body)).toBe('');
      expect(sandboxReadTextComment(body)).toBe('');
    }
    expect(MAX_COMMENT_READ_BYTES).toBeGreaterThanOrEqual(1000); // our own comments always fit
  });

  it('cleans a memo of control and invisible characters before it is matched or stored', () => {
    expect(cleanMemo('\u0000\t agt_x\u0007\u009f\u200b\ufeff\r\n')).toBe('agt_x');
    expect(cleanMemo('a\u0000b')).toBe('ab');
    expect(cleanMemo('tâche 🙂')).toBe('tâche 🙂');
  });
});
