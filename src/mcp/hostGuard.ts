import type { FastifyReply, FastifyRequest } from 'fastify';

const LOOPBACK = ['localhost', '127.0.0.1', '[::1]'];

function hostnameOf(url: string): string | null {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return null;
  }
}

/**
 * DNS-rebinding protection for /mcp: a web page that makes its own domain resolve to this server
 * still sends its own Host and Origin, so only requests addressed to PUBLIC_URL's host (or to
 * loopback, for local clients) are served, and a browser's Origin must be one of those too.
 */
export function hostGuard(publicUrl: string) {
  const allowed = new Set([hostnameOf(publicUrl), ...LOOPBACK].filter((h): h is string => h !== null));
  const names = [...allowed].join(', ');
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const host = request.headers.host;
    const hostname = host ? hostnameOf(`http://${host}`) : null;
    if (!hostname || !allowed.has(hostname)) {
      return reply.status(403).send({ error: `Host not allowed; address MCP requests to ${names}` });
    }
    const origin = request.headers.origin;
    if (origin !== undefined) {
      const originHost = hostnameOf(origin);
      if (!originHost || !allowed.has(originHost)) {
        return reply
          .status(403)
          .send({ error: `Origin not allowed; MCP accepts browser requests only from ${names}` });
      }
    }
  };
}
