import { randomChars } from './randomHex.js';

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
  batch: 'cbt',
  owner: 'own',
  faucetGrant: 'fgr',
  dispute: 'dsp',
  disputeStatement: 'dst',
  submission: 'sub',
  /** A batch of tasks (POST /batches); `cbt` is a chain batch. */
  taskBatch: 'bat',
  moderation: 'mod',
  taskReport: 'rpt',
  approval: 'apr',
  /** A bonus paid for a completed task (POST /tasks/:id/bonus). */
  bonus: 'bon',
} as const;

export type IdKind = keyof typeof ID_PREFIX;

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

/** 26 characters of 5 bits: 130 random bits, so an id that grants access cannot be guessed. */
const RANDOM_CHARS = 26;
/** Ids made in the same millisecond by this process are numbered, so they keep their order. */
const SEQUENCE_CHARS = 4;
const SEQUENCE_MAX = 32 ** SEQUENCE_CHARS - 1;
export const ID_BODY_LENGTH = 10 + SEQUENCE_CHARS + RANDOM_CHARS;
let lastMs = -1;
let sequence = 0;

/**
 * `prefix_` + 10 characters of millisecond time + 4 characters of sequence + 26 characters (130
 * bits) of fresh randomness, Crockford base32. Ids of one kind sort by creation time, which keeps
 * index inserts local and makes the (createdAt, id) list order stable. Within one process they
 * are also monotonic: an id made in the same millisecond as the previous one (or while the clock
 * went back) takes the next sequence number, so events recorded in one transaction keep their
 * order. The random part is never derived from another id: knowing one id tells nothing about
 * the next (before, ids of one millisecond counted up from the first one's random part).
 */
export function newId(kind: IdKind, nowMs: number = Date.now()): string {
  let ms = nowMs;
  if (ms <= lastMs) {
    ms = lastMs;
    sequence++;
    if (sequence > SEQUENCE_MAX) {
      ms = lastMs + 1;
      sequence = 0;
    }
  } else {
    sequence = 0;
  }
  lastMs = ms;
  return `${ID_PREFIX[kind]}_${base32(ms, 10)}${base32(sequence, SEQUENCE_CHARS)}${randomChars(CROCKFORD, RANDOM_CHARS)}`;
}

/**
 * A new id that sorts after `previous` (an id of the same kind): the next in a sequence that must
 * keep its order across instances, such as a chat's messages (two instances' ids of one
 * millisecond are otherwise ordered by chance). Usually newId's own; when that does not sort
 * after `previous`, it takes `previous`'s time and the next sequence number, with fresh randomness.
 */
export function newIdAfter(kind: IdKind, nowMs: number, previous: string): string {
  const id = newId(kind, nowMs);
  if (id > previous) return id;
  const body = previous.slice(ID_PREFIX[kind].length + 1);
  let ms = fromBase32(body.slice(0, 10));
  let seq = fromBase32(body.slice(10, 10 + SEQUENCE_CHARS)) + 1;
  if (seq > SEQUENCE_MAX) {
    ms++;
    seq = 0;
  }
  return `${ID_PREFIX[kind]}_${base32(ms, 10)}${base32(seq, SEQUENCE_CHARS)}${randomChars(CROCKFORD, RANDOM_CHARS)}`;
}

function fromBase32(text: string): number {
  let value = 0;
  for (const char of text) value = value * 32 + Math.max(0, CROCKFORD.indexOf(char));
  return value;
}

/**
 * `length` base32 digits of a whole number below 32^length, most significant first. Plain
 * numbers are exact here: a millisecond time needs 41 bits (10 digits hold 50), a sequence 20.
 */
function base32(value: number, length: number): string {
  let text = '';
  let rest = value;
  for (let i = 0; i < length; i++) {
    text = CROCKFORD[rest % 32] + text;
    rest = Math.floor(rest / 32);
  }
  return text;
}

/** Built once per kind: isIdOf runs on every request that names an id. */
const ID_PATTERN = Object.fromEntries(
  Object.entries(ID_PREFIX).map(([kind, prefix]) => [
    kind,
    new RegExp(`^${prefix}_[0-9a-z]{${ID_BODY_LENGTH}}$`),
  ]),
) as Record<IdKind, RegExp>;

/** True when `id` looks like an id of this kind; used to answer 404 without a query. */
export function isIdOf(kind: IdKind, id: string): boolean {
  return ID_PATTERN[kind].test(id);
}
