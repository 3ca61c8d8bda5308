import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { checkPublicHost } from '../events/addressGuard.js';

/**
 * GETs an https URL for the wallets refresh job, bounded: public addresses only (the webhooks'
 * SSRF guard: the host is resolved once, checked, and the socket connects to the checked
 * address), at most `maxBytes` of body, `timeoutMs` for the whole exchange, a few redirects (each
 * checked again), and only the content types the caller accepts. Rejects with a readable reason.
 */
export interface BoundedGetOptions {
  maxBytes: number;
  timeoutMs: number;
  /** Lower-case media types (without parameters) the answer may have. */
  accept: readonly string[];
  /** Tests reach a local server: skip the public-address check (never set in the service). */
  allowPrivate?: boolean;
}

export interface BoundedGetResult {
  body: Buffer;
  contentType: string;
}

const MAX_REDIRECTS = 3;

export async function boundedGet(url: string, options: BoundedGetOptions): Promise<BoundedGetResult> {
  let target = new URL(url);
  for (let redirects = 0; ; redirects++) {
    const answer = await getOnce(target, options);
    if ('body' in answer) return answer;
    if (redirects >= MAX_REDIRECTS) throw new Error(`more than ${MAX_REDIRECTS} redirects from ${url}`);
    target = new URL(answer.location, target);
  }
}

async function getOnce(
  target: URL,
  options: BoundedGetOptions,
): Promise<BoundedGetResult | { location: string }> {
  if (target.protocol !== 'https:' && !options.allowPrivate) throw new Error(`${target.href} is not https`);
  let lookup: LookupFunction | undefined;
  if (!options.allowPrivate) {
    const checked = await checkPublicHost(target.hostname);
    if ('refused' in checked) throw new Error(checked.refused);
    const { address, family } = checked;
    lookup = (_hostname, lookupOptions, callback) => {
      if (lookupOptions.all) callback(null, [{ address, family }]);
      else callback(null, address, family);
    };
  }
  const client = target.protocol === 'https:' ? https : await import('node:http');
  return new Promise((resolve, reject) => {
    const request = client.get(target, { ...(lookup ? { lookup } : {}), headers: { accept: '*/*' } });
    const timer = setTimeout(
      () =>
        request.destroy(new Error(`no complete answer from ${target.host} within ${options.timeoutMs} ms`)),
      options.timeoutMs,
    );
    request.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    request.once('response', (response) => {
      const status = response.statusCode ?? 0;
      const fail = (reason: string) => {
        clearTimeout(timer);
        request.destroy();
        reject(new Error(`${target.href}: ${reason}`));
      };
      if (status >= 300 && status < 400 && response.headers.location) {
        clearTimeout(timer);
        response.resume();
        resolve({ location: response.headers.location });
        return;
      }
      if (status !== 200) return fail(`answered ${status}`);
      const contentType = (response.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      if (!options.accept.includes(contentType)) return fail(`content type "${contentType}" not accepted`);
      const declared = Number(response.headers['content-length'] ?? 0);
      if (declared > options.maxBytes) return fail(`${declared} bytes is over ${options.maxBytes}`);
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > options.maxBytes) return fail(`more than ${options.maxBytes} bytes`);
        chunks.push(chunk);
      });
      response.once('end', () => {
        clearTimeout(timer);
        if (size <= options.maxBytes) resolve({ body: Buffer.concat(chunks), contentType });
      });
      response.once('error', (error) => fail(error.message));
    });
  });
}
