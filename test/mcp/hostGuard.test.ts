import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { hostGuard } from '../../src/mcp/hostGuard.js';

describe('the MCP Host and Origin guard', () => {
  const app = Fastify();
  app.addHook('onRequest', hostGuard('https://handoff.example.com'));
  app.post('/mcp', async () => ({ ok: true }));
  const statusOf = async (headers: Record<string, string>) =>
    (await app.inject({ method: 'POST', url: '/mcp', headers })).statusCode;

  it("accepts only PUBLIC_URL's own origin: scheme, host and port", async () => {
    const host = 'handoff.example.com';
    expect(await statusOf({ host, origin: 'https://handoff.example.com' })).toBe(200);
    expect(await statusOf({ host, origin: 'https://HANDOFF.example.com:443' })).toBe(200);
    // Plain http (readable and writable on the way), or another service on another port.
    expect(await statusOf({ host, origin: 'http://handoff.example.com' })).toBe(403);
    expect(await statusOf({ host, origin: 'https://handoff.example.com:8443' })).toBe(403);
    expect(await statusOf({ host, origin: 'https://evil.handoff.example.com' })).toBe(403);
    expect(await statusOf({ host, origin: 'null' })).toBe(403);
    expect(await statusOf({ host, origin: 'file://handoff.example.com' })).toBe(403);
    // No Origin: not a browser.
    expect(await statusOf({ host })).toBe(200);
  });

  it('accepts local pages over http(s) on any port, and refuses foreign hosts', async () => {
    expect(await statusOf({ host: 'localhost:3000', origin: 'http://localhost:6274' })).toBe(200);
    expect(await statusOf({ host: '127.0.0.1:3000', origin: 'https://[::1]:5173' })).toBe(200);
    expect(await statusOf({ host: 'localhost:3000', origin: 'ws://localhost:6274' })).toBe(403);
    expect(await statusOf({ host: 'evil.example' })).toBe(403);
    const refused = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { host: 'handoff.example.com', origin: 'http://handoff.example.com' },
    });
    expect(refused.json().error).toContain('https://handoff.example.com');
  });
});
