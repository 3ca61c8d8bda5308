import os from 'node:os';
import type { FastifyServerOptions } from 'fastify';

/**
 * The app's logger options with `instance` bound into every line (beside pino's own pid and
 * hostname), so the lines of several instances merged in one place say which instance wrote
 * each. Bound once in the logger's base: it costs nothing per line. A logger instance (not
 * options) or `false` is passed through as given.
 */
export function withInstance(
  logger: FastifyServerOptions['logger'],
  instanceId: string,
): FastifyServerOptions['logger'] {
  if (!logger) return false;
  if (logger === true) return { base: baseOf(instanceId) };
  return { ...logger, base: { ...baseOf(instanceId), ...logger.base } };
}

function baseOf(instanceId: string) {
  return { pid: process.pid, hostname: os.hostname(), instance: instanceId };
}
