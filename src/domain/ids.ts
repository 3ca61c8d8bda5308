import { randomBytes } from 'node:crypto';

/** Every id carries its kind, so a log line or a support ticket says what it points at. */
export const ID_PREFIX = {
  agent: 'agt',
  apiKey: 'key',
  worker: 'wrk',
  task: 'tsk',
  application: 'app',
  chat: 'cht',
  message: 'msg',
  transaction: 'txn',
  rating: 'rat',
  event: 'evt',
  delivery: 'dlv',
  upload: 'upl',
} as const;

export type IdKind = keyof typeof ID_PREFIX;

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

/**
 * `prefix_` + 10 characters of millisecond time + 16 random characters (80 bits), Crockford
 * base32. Ids of one kind sort by creation time, which keeps index inserts local and makes the
 * (createdAt, id) list order stable.
 */
export function newId(kind: IdKind, nowMs: number = Date.now()): string {
  let time = '';
  let t = nowMs;
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const bytes = randomBytes(10);
  let rand = '';
  // 10 bytes = 80 bits = 16 base32 characters, read 5 bits at a time.
  let acc = 0;
  let bits = 0;
  for (const byte of bytes) {
    acc = (acc << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      rand += CROCKFORD[(acc >> bits) & 31];
    }
    acc &= (1 << bits) - 1;
  }
  return `${ID_PREFIX[kind]}_${time}${rand}`;
}

/** True when `id` looks like an id of this kind; used to answer 404 without a query. */
export function isIdOf(kind: IdKind, id: string): boolean {
  return new RegExp(`^${ID_PREFIX[kind]}_[0-9a-z]{26}$`).test(id);
}
