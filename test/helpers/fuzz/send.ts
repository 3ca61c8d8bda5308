import http from 'node:http';
import type { FuzzCase } from './cases.js';

/** What came back: enough to judge it, never the whole of a stream. */
export interface Answer {
  status: number;
  contentType: string;
  body: string;
}

/** Longer than any answer the service takes to refuse or serve a fuzz case. */
const TIMEOUT_MS = 10_000;

/**
 * One case over real HTTP (not inject: Node's own parser sees the raw path and body bytes, as it
 * does in production). An open event stream is closed once its status is known. A keep-alive
 * agent reuses connections; a connection the server closes after a refusal is simply replaced.
 */
export function send(baseUrl: string, agent: http.Agent, c: FuzzCase): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const body = c.body === undefined ? undefined : Buffer.from(c.body, 'utf8');
    const headers: Record<string, string | number> = { ...c.headers };
    if (body) headers['content-length'] = body.length;
    const req = http.request(`${baseUrl}${c.url}`, { method: c.method, headers, agent }, (res) => {
      const contentType = String(res.headers['content-type'] ?? '');
      if (contentType.startsWith('text/event-stream')) {
        res.destroy();
        return resolve({ status: res.statusCode ?? 0, contentType, body: '' });
      }
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, contentType, body: Buffer.concat(chunks).toString('utf8') }),
      );
      res.on('error', reject);
    });
    req.setTimeout(TIMEOUT_MS, () => req.destroy(new Error(`no answer within ${TIMEOUT_MS} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}
