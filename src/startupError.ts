/**
 * One line that says what went wrong at startup and what to do, instead of a stack trace: the
 * usual causes are a port in use, a database that cannot be reached, or a bad setting (whose
 * message from config.ts already says what is expected).
 */
export function startupErrorLine(
  error: unknown,
  setting: { port: number; databaseUrl: string | null },
): string {
  type Failure = { code?: string; message?: string; port?: number; cause?: unknown };
  // The code that names the cause may sit on a wrapped error (a migration that could not connect).
  let e = error as Failure;
  while (e && !e.code && e.cause) e = e.cause as Failure;
  const message = (e?.message || (error as Failure)?.message) ?? String(error);
  switch (e?.code) {
    case 'REDIS_UNREACHABLE':
      return `Handoff could not start: ${message}. Start Redis or fix REDIS_URL (unset it to run one instance without Redis).`;
    case 'EADDRINUSE':
      return `Handoff could not start: port ${e.port ?? setting.port} is in use. Stop the other process or set PORT to a free port.`;
    case 'EACCES':
      return `Handoff could not start: no permission to listen on port ${e.port ?? setting.port}. Use a port above 1023 or run with the needed rights.`;
    case 'ECONNREFUSED':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
      return `Handoff could not start: cannot reach the database at ${databaseHost(setting.databaseUrl)} (${e.code}). Start PostgreSQL or fix DATABASE_URL.`;
    case '28P01':
    case '28000':
      return `Handoff could not start: the database refused the login (${message}). Fix the user or password in DATABASE_URL.`;
    case '3D000':
      return `Handoff could not start: ${message}. Create the database or fix its name in DATABASE_URL.`;
  }
  return `Handoff could not start: ${message.split('\n')[0]}`;
}

/** host:port of a postgres:// URL, never its password. */
function databaseHost(url: string | null): string {
  if (!url) return 'the configured address';
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || 5432}`;
  } catch {
    return 'the configured address';
  }
}
