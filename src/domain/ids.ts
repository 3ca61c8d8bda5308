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
  notification: 'ntf',
} as const;

export type IdKind = keyof typeof ID_PREFIX;

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

const RANDOM_BITS = 80n;
const RANDOM_MAX = (1n << RANDOM_BITS) - 1n;
let lastMs = -1;
let lastRandom = 0n;

/**
 * `prefix_` + 10 characters of millisecond time + 16 characters (80 bits) of randomness,
 * Crockford base32. Ids of one kind sort by creation time, which keeps index inserts local and
 * makes the (createdAt, id) list order stable. Within one process they are also monotonic: an id
 * made in the same millisecond as the previous one (or while the clock went back) continues from
 * it, so events recorded in one transaction keep their order.
 */
export function newId(kind: IdKind, nowMs: number = Date.now()): string {
  let ms = nowMs;
  let random: bigint;
  if (ms <= lastMs && lastRandom < RANDOM_MAX) {
    ms = lastMs;
    random = lastRandom + 1n;
  } else {
    random = BigInt(`0x${randomBytes(10).toString('hex')}`);
  }
  lastMs = ms;
  lastRandom = random;
  return `${ID_PREFIX[kind]}_${base32(BigInt(ms), 10)}${base32(random, 16)}`;
}

function base32(value: bigint, length: number): string {
  let text = '';
  let rest = value;
  for (let i = 0; i < length; i++) {
    text = CROCKFORD[Number(rest & 31n)] + text;
    rest >>= 5n;
  }
  return text;
}

/** True when `id` looks like an id of this kind; used to answer 404 without a query. */
export function isIdOf(kind: IdKind, id: string): boolean {
  return new RegExp(`^${ID_PREFIX[kind]}_[0-9a-z]{26}$`).test(id);
}
