import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ID_PREFIX, type IdKind, isIdOf, newId, newIdAfter } from '../../src/domain/ids.js';

const KINDS = Object.keys(ID_PREFIX) as IdKind[];

describe('ids', () => {
  it('carry their kind as a prefix, then 40 Crockford base32 characters (130 random bits)', () => {
    expect(ID_PREFIX).toMatchObject({
      agent: 'agt',
      worker: 'wrk',
      task: 'tsk',
      application: 'app',
      chat: 'cht',
      message: 'msg',
      transaction: 'txn',
    });
    for (const kind of KINDS) {
      const id = newId(kind);
      expect(id).toMatch(new RegExp(`^${ID_PREFIX[kind]}_[0-9abcdefghjkmnpqrstvwxyz]{40}$`));
      expect(isIdOf(kind, id)).toBe(true);
      for (const other of KINDS.filter((k) => ID_PREFIX[k] !== ID_PREFIX[kind])) {
        expect(isIdOf(other, id)).toBe(false);
      }
    }
  });

  it('isIdOf refuses look-alikes', () => {
    const id = newId('task');
    for (const bad of [
      '',
      'tsk_',
      id.slice(0, -1),
      `${id}0`,
      id.toUpperCase(),
      ` ${id}`,
      `${id}\n`,
      id.replace('tsk_', 'tsk-'),
      `tsk_${'0'.repeat(39)}'`,
      `x${id}`,
    ]) {
      expect(isIdOf('task', bad), JSON.stringify(bad)).toBe(false);
    }
  });

  it('sort by creation time', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 48 - 2 }),
        fc.integer({ min: 1, max: 10 ** 9 }),
        (t1, delta) => {
          const t2 = Math.min(t1 + delta, 2 ** 48 - 1);
          fc.pre(t2 > t1);
          expect(newId('task', t1) < newId('task', t2)).toBe(true);
        },
      ),
    );
    const now = Date.parse('2030-01-01T00:00:00.000Z');
    const ids = Array.from({ length: 50 }, (_, i) => newId('event', now + i * 7));
    expect([...ids].sort()).toEqual(ids);
  });

  it('ids of one millisecond share the time part, keep their order, and share no randomness', () => {
    const now = Date.now() + 10_000;
    const ids = Array.from({ length: 1000 }, () => newId('task', now));
    expect(new Set(ids.map((id) => id.slice(0, 14))).size).toBe(1);
    expect([...ids].sort()).toEqual(ids);
    // Before, ids of one millisecond counted up from the first one's random part: the next id
    // was guessable from the previous one. Now consecutive random parts are unrelated.
    const randomParts = ids.map((id) => id.slice(-26));
    const common = (a: string, b: string) => {
      let n = 0;
      while (n < a.length && a[n] === b[n]) n++;
      return n;
    };
    const shared = randomParts.slice(1).filter((part, i) => common(part, randomParts[i]!) >= 8);
    expect(shared).toEqual([]);
  });

  it('are unique', () => {
    const ids = new Set(Array.from({ length: 20_000 }, () => newId('message', 1_900_000_000_000)));
    expect(ids.size).toBe(20_000);
  });
});

describe('newIdAfter', () => {
  it('sorts after the given id even when this process’s clock is behind the one that made it', () => {
    const ms = Date.parse('2030-01-01T00:00:00.000Z');
    const ahead = newId('message', ms + 5_000);
    for (let i = 0; i < 50; i++) {
      const next = newIdAfter('message', ms, ahead);
      expect(next > ahead).toBe(true);
      expect(isIdOf('message', next)).toBe(true);
      // It keeps the earlier id's time and takes the next sequence number.
      expect(next.slice(0, 14)).toBe(ahead.slice(0, 14));
      expect(next.slice(14, 18) > ahead.slice(14, 18)).toBe(true);
    }
  });

  it('is newId’s own id when that already sorts after', () => {
    const earlier = newId('message', Date.parse('2030-01-01T00:00:00.000Z'));
    const later = newIdAfter('message', Date.parse('2030-01-01T00:00:01.000Z'), earlier);
    expect(later > earlier).toBe(true);
  });

  it('carries into the next millisecond when the sequence is used up', () => {
    // Later than any id this process made, so newId's own cannot follow it.
    const full = `msg_${'zzzzzzzzzy'}${'zzzz'}${'0'.repeat(26)}`;
    const next = newIdAfter('message', 0, full);
    expect(next > full).toBe(true);
    expect(next.slice(4, 18)).toBe('zzzzzzzzzz0000');
  });
});
