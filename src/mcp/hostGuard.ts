import type { FastifyReply, FastifyRequest } from 'fastify';

const LOOPBACK = ['localhost', '127.0.0.1', '[::1]'];

function parsed(url: string): URL | null {
  try {
    return new URL(url);
  } catch {
    return null;
  }
}

/**
 * DNS-rebinding protection for /mcp: a web page that makes its own domain resolve to this server
 * still sends its own Host and Origin, so only requests addressed to PUBLIC_URL's host (or to
 * loopback, for local clients) are served. A browser's Origin must be PUBLIC_URL's own origin,
 * scheme, host and port alike (plain http://, or another port of the same host, is another site),
 * or a loopback page on any port over http(s) (local MCP tools such as an inspector run on ports
 * of their own; no page from elsewhere has a loopback origin).
 */
export function hostGuard(publicUrl: string) {
  const publicOrigin = parsed(publicUrl);
  const allowedHosts = new Set(
    [publicOrigin?.hostname.toLowerCase(), ...LOOPBACK].filter((h): h is string => h !== undefined),
  );
  const hostNames = [...allowedHosts].join(', ');
  const originNames = [publicOrigin?.origin, ...LOOPBACK.map((h) => `http(s)://${h}[:port]`)]
    .filter(Boolean)
    .join(', ');
  const originAllowed = (origin: string): boolean => {
    const url = parsed(origin);
    if (!url) return false;
    if (publicOrigin && url.origin === publicOrigin.origin) return true;
    return (url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK.includes(url.hostname);
  };
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const host = request.headers.host;
    const hostname = host ? parsed(`http://${host}`)?.hostname.toLowerCase() : undefined;
    if (!hostname || !allowedHosts.has(hostname)) {
      return reply.status(403).send({ error: `Host not allowed; address MCP requests to ${hostNames}` });
    }
    const origin = request.headers.origin;
    if (origin !== undefined && !originAllowed(origin)) {
      return reply
        .status(403)
        .send({ error: `Origin not allowed; MCP accepts browser requests only from ${originNames}` });
    }
  };
}
