/**
 * Whether an error says the database cannot be reached or written right now, as opposed to a bug
 * or a bad statement: the request is answered 503 with Retry-After (nothing it asked for was
 * done, or its transaction was rolled back), not 500. Kept to causes that pass by themselves.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e = error, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    if (unavailable(e)) return true;
  }
  return false;
}

/** Seconds a caller is told to wait before retrying while the database is away. */
export const DATABASE_RETRY_AFTER_S = 5;

/** Socket-level failures reaching PostgreSQL (a restart, a failover, a network cut). */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/**
 * What SQLite says when its file cannot be written: the disk is full, an I/O error, the file or
 * its directory became read-only, or another process holds the lock past busy_timeout.
 */
const SQLITE_CODES = /^SQLITE_(FULL|IOERR|READONLY|CANTOPEN|BUSY)/;

/** What pg itself says when a connection breaks or cannot be made in time. */
const PG_CLIENT_MESSAGES = [
  'Connection terminated unexpectedly',
  'Connection terminated due to connection timeout',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error and is not queryable',
];

function unavailable(error: Error): boolean {
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (SOCKET_CODES.has(code) || SQLITE_CODES.test(code)) return true;
    // SQLSTATE class 08 (connection exception); 57P01-57P03: the server shuts down or starts.
    if (/^08[0-9A-Z]{3}$/.test(code) || /^57P0[1-3]$/.test(code)) return true;
  }
  if (error instanceof AggregateError && error.errors.some((e) => e instanceof Error && unavailable(e)))
    return true;
  return PG_CLIENT_MESSAGES.some((message) => error.message.includes(message));
}
