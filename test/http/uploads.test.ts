import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createAgent, createWorker, type TestAgent, type TestWorker } from '../helpers/fixtures.js';
import { type LocalS3, startLocalS3 } from '../helpers/s3.js';

const MiB = 1024 * 1024;
const LIMIT = 20 * MiB;

let t: TestApp;
let base: string;
/** The bucket when the suite runs on S3; undefined on local disk. */
let s3: LocalS3 | undefined;

interface Uploaded {
  fileUrl: string;
  fileName: string;
  fileSize: number;
  mimeType: string;
}
interface SignedUrl {
  uploadUrl: string;
  fileUrl: string;
  expiresAt: string;
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** Response URLs name the public URL (http://localhost:3000); the test server listens elsewhere. */
function local(url: string): string {
  expect(url.startsWith(`${t.config.publicUrl}/`), url).toBe(true);
  return base + url.slice(t.config.publicUrl.length);
}

type Side = TestAgent | TestWorker;
const uploadPath = (side: Side) => ('apiKey' in side ? '/upload' : '/worker/upload');

/** A fresh agent: the upload limit is 10 requests a minute per key. */
const freshAgent = () => createAgent(t);

async function multipart(side: Side, name: string, type: string, bytes: Uint8Array) {
  const form = new FormData();
  form.append('file', new Blob([bytes], { type }), name);
  return fetch(`${base}${uploadPath(side)}`, { method: 'POST', headers: side.headers, body: form });
}

async function multipartOk(side: Side, name: string, type: string, bytes: Uint8Array): Promise<Uploaded> {
  const res = await multipart(side, name, type, bytes);
  const body = await res.text();
  expect(res.status, body).toBe(200);
  return JSON.parse(body);
}

async function signUrl(side: Side, filename: string, contentType: string) {
  return fetch(`${base}${uploadPath(side)}`, {
    method: 'POST',
    headers: { ...side.headers, 'content-type': 'application/json' },
    body: JSON.stringify({ filename, contentType }),
  });
}

async function signUrlOk(side: Side, filename: string, contentType: string): Promise<SignedUrl> {
  const res = await signUrl(side, filename, contentType);
  const body = await res.text();
  expect(res.status, body).toBe(200);
  return JSON.parse(body);
}

function put(uploadUrl: string, bytes: Uint8Array, contentType = 'application/octet-stream') {
  return fetch(local(uploadUrl), { method: 'PUT', headers: { 'content-type': contentType }, body: bytes });
}

async function download(fileUrl: string) {
  const res = await fetch(local(fileUrl));
  return { res, bytes: new Uint8Array(await res.arrayBuffer()) };
}

/** Every file under the upload directory, finished or partial, or every object in the bucket. */
async function storedFiles(): Promise<string[]> {
  if (s3) return s3.keys();
  const root = path.join(t.config.dataDir, 'uploads');
  if (!existsSync(root)) return [];
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name));
}

async function uploadRows() {
  return t.ctx.db.selectFrom('uploads').select(['id', 'status', 'size']).execute();
}

/** `total` bytes made on demand in 64 KiB chunks, never held at once. */
function generated(total: number): Readable & { produced: () => number } {
  const chunk = Buffer.alloc(64 * 1024, 0x5a);
  let produced = 0;
  const stream = new Readable({
    read() {
      if (produced >= total) {
        this.push(null);
        return;
      }
      const n = Math.min(chunk.length, total - produced);
      produced += n;
      this.push(n === chunk.length ? chunk : chunk.subarray(0, n));
    },
  });
  return Object.assign(stream, { produced: () => produced });
}

interface RawResult {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  error?: Error;
}

/**
 * A request over node:http that streams `body` with backpressure and returns as soon as the server
 * answers, even if the server answers before reading the whole body and then closes the socket.
 */
function rawRequest(
  url: string,
  options: { method: string; headers: Record<string, string | number>; body: Readable | Buffer },
): Promise<RawResult> {
  return new Promise((resolve) => {
    let settled = false;
    const request = http.request(url, { method: options.method, headers: options.headers, agent: false });
    const finish = (result: RawResult) => {
      if (settled) return;
      settled = true;
      if (options.body instanceof Readable) {
        options.body.unpipe(request);
        options.body.destroy();
      }
      request.destroy();
      resolve(result);
    };
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (c: Buffer) => chunks.push(c));
      const done = () =>
        finish({
          status: response.statusCode ?? 0,
          headers: response.headers,
          text: Buffer.concat(chunks).toString('utf8'),
        });
      response.on('end', done);
      response.on('close', done);
    });
    request.on('error', (error) => {
      // A write error after the answer arrived is expected when the server stops reading;
      // give the parser a moment to deliver an answer already on the wire.
      setTimeout(() => finish({ status: 0, headers: {}, text: '', error }), 200);
    });
    if (options.body instanceof Readable) options.body.pipe(request);
    else request.end(options.body);
  });
}

/** Runs `work` while sampling the process's resident memory; returns the peak growth. */
async function peakRssGrowth<T>(work: () => Promise<T>): Promise<{ result: T; growth: number }> {
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 5);
  try {
    const result = await work();
    peak = Math.max(peak, process.memoryUsage().rss);
    return { result, growth: peak - baseline };
  } finally {
    clearInterval(sampler);
  }
}

function multipartBody(name: string, type: string, size: number) {
  const boundary = `----handoff${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\n` +
      `Content-Type: ${type}\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return { boundary, head, tail, length: head.length + size + tail.length };
}

// The same behaviour on both stores: local disk (the embedded default) and an S3-compatible bucket.
describe.each(['disk', 's3'] as const)('uploads stored on %s', (storage) => {
  beforeAll(async () => {
    s3 = storage === 's3' ? await startLocalS3() : undefined;
    t = await createTestApp(s3 ? { s3: s3.settings } : {});
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await t.close();
    await s3?.close();
  });

  describe('multipart uploads', () => {
    it('a 1 MiB binary image round-trips byte for byte (agent)', async () => {
      const agent = await freshAgent();
      const bytes = randomBytes(MiB);
      const uploaded = await multipartOk(agent, 'photo.png', 'image/png', bytes);
      expect(uploaded).toEqual({
        fileUrl: expect.stringMatching(/^http:\/\/localhost:3000\/files\/upl_[0-9a-z]{40}\/photo\.png$/),
        fileName: 'photo.png',
        fileSize: MiB,
        mimeType: 'image/png',
      });
      const { res, bytes: served } = await download(uploaded.fileUrl);
      expect(res.status).toBe(200);
      expect(served.length).toBe(MiB);
      expect(sha256(served)).toBe(sha256(bytes));
      expect(res.headers.get('content-type')).toBe('image/png');
      expect(res.headers.get('content-length')).toBe(String(MiB));
    });

    it('works for workers at /worker/upload, and the file is usable in their chat', async () => {
      const worker = await createWorker(t);
      const bytes = randomBytes(70_000);
      const uploaded = await multipartOk(worker, 'report.pdf', 'application/pdf', bytes);
      expect(uploaded).toMatchObject({
        fileName: 'report.pdf',
        fileSize: 70_000,
        mimeType: 'application/pdf',
      });
      const { res, bytes: served } = await download(uploaded.fileUrl);
      expect(res.status).toBe(200);
      expect(sha256(served)).toBe(sha256(bytes));
    });

    it('needs a key or a worker sign-in', async () => {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array([1])], { type: 'image/png' }), 'a.png');
      expect((await fetch(`${base}/upload`, { method: 'POST', body: form })).status).toBe(401);
      expect((await fetch(`${base}/worker/upload`, { method: 'POST', body: form })).status).toBe(401);
      const json = { 'content-type': 'application/json' };
      const body = JSON.stringify({ filename: 'a.png', contentType: 'image/png' });
      expect((await fetch(`${base}/upload`, { method: 'POST', headers: json, body })).status).toBe(401);
    });

    it('exactly 20 MiB is accepted; 20 MiB + 1 byte is 413 and nothing is stored', async () => {
      const agent = await freshAgent();
      const atLimit = await multipartOk(agent, 'big.zip', 'application/zip', Buffer.alloc(LIMIT, 1));
      expect(atLimit.fileSize).toBe(LIMIT);

      const filesBefore = await storedFiles();
      const rowsBefore = await uploadRows();
      const over = Buffer.alloc(LIMIT + 1, 2);
      const form = multipartBody('too-big.zip', 'application/zip', over.length);
      const res = await rawRequest(`${base}/upload`, {
        method: 'POST',
        headers: {
          ...agent.headers,
          'content-type': `multipart/form-data; boundary=${form.boundary}`,
          'content-length': form.length,
        },
        body: Buffer.concat([form.head, over, form.tail]),
      });
      expect(res.status, res.error?.message).toBe(413);
      expect(JSON.parse(res.text).error).toEqual(expect.any(String));
      expect(await storedFiles()).toEqual(filesBefore);
      expect(await uploadRows()).toEqual(rowsBefore);
    });

    it('a streamed oversize multipart body is refused without holding it in memory', async () => {
      const agent = await freshAgent();
      const filesBefore = await storedFiles();
      const rowsBefore = await uploadRows();
      const size = 200 * MiB;
      const form = multipartBody('huge.zip', 'application/zip', size);
      const source = generated(size);
      const body = Readable.from(
        (async function* () {
          yield form.head;
          yield* source;
          yield form.tail;
        })(),
      );
      const { result, growth } = await peakRssGrowth(() =>
        rawRequest(`${base}/upload`, {
          method: 'POST',
          headers: { ...agent.headers, 'content-type': `multipart/form-data; boundary=${form.boundary}` },
          body,
        }),
      );
      // Node's server closes a connection whose body it has not read right after answering, so a
      // client still writing at full speed may see the reset (EPIPE) before it reads the 413.
      if (result.status !== 413) expect(result.error?.message).toMatch(/EPIPE|ECONNRESET/);
      else expect(JSON.parse(result.text).error).toEqual(expect.any(String));
      // Either way the server stopped the upload soon after the limit.
      expect(source.produced()).toBeGreaterThan(LIMIT);
      expect(source.produced()).toBeLessThan(size / 2);
      expect(growth).toBeLessThan(100 * MiB);
      expect(await storedFiles()).toEqual(filesBefore);
      expect(await uploadRows()).toEqual(rowsBefore);
    });
  });

  describe('signed upload URLs (JSON mode)', () => {
    it('POST {filename, contentType} returns {uploadUrl, fileUrl, expiresAt}; a PUT stores the bytes once', async () => {
      const agent = await freshAgent();
      const signed = await signUrlOk(agent, 'scan.pdf', 'application/pdf');
      expect(Object.keys(signed).sort()).toEqual(['expiresAt', 'fileUrl', 'uploadUrl']);
      expect(signed.uploadUrl).toMatch(/^http:\/\/localhost:3000\/uploads\/upl_[0-9a-z]{40}\?/);
      expect(signed.fileUrl).toMatch(/^http:\/\/localhost:3000\/files\/upl_[0-9a-z]{40}\/scan\.pdf$/);
      expect(Date.parse(signed.expiresAt) - t.clock.now().getTime()).toBe(15 * 60_000);

      // Nothing to serve before the bytes arrive.
      expect((await download(signed.fileUrl)).res.status).toBe(404);

      const bytes = randomBytes(300_000);
      const res = await put(signed.uploadUrl, bytes);
      const body = await res.text();
      expect(res.status, body).toBe(200);
      expect(JSON.parse(body)).toEqual({
        fileUrl: signed.fileUrl,
        fileName: 'scan.pdf',
        fileSize: 300_000,
        mimeType: 'application/pdf',
      });
      const served = await download(signed.fileUrl);
      expect(served.res.status).toBe(200);
      expect(sha256(served.bytes)).toBe(sha256(bytes));
      expect(served.res.headers.get('content-type')).toBe('application/pdf');

      // The URL works once: a second PUT is 409 and does not replace the file.
      const again = await put(signed.uploadUrl, randomBytes(10));
      expect(again.status).toBe(409);
      expect(((await again.json()) as { error: unknown }).error).toEqual(expect.any(String));
      expect(sha256((await download(signed.fileUrl)).bytes)).toBe(sha256(bytes));
    });

    it('works for workers too', async () => {
      const worker = await createWorker(t);
      const signed = await signUrlOk(worker, 'clip.mp4', 'video/mp4');
      const bytes = randomBytes(4096);
      expect((await put(signed.uploadUrl, bytes)).status).toBe(200);
      const served = await download(signed.fileUrl);
      expect(sha256(served.bytes)).toBe(sha256(bytes));
      expect(served.res.headers.get('content-disposition')).toMatch(/^inline/);
    });

    it('the bytes are stored as sent whatever Content-Type the PUT carries', async () => {
      const agent = await freshAgent();
      const cases: [string, string, Buffer][] = [
        ['notes.txt', 'text/plain', Buffer.from('line one\nline two\n')],
        ['data.json', 'application/json', Buffer.from('{"a": [1, 2, 3]}')],
        ['table.csv', 'text/csv', Buffer.from('a,b\n1,2\n')],
        ['pic.png', 'image/png', randomBytes(2048)],
      ];
      for (const [filename, type, bytes] of cases) {
        const signed = await signUrlOk(agent, filename, type);
        const res = await put(signed.uploadUrl, bytes, type);
        const body = await res.text();
        expect(res.status, `${type}: ${body}`).toBe(200);
        expect(JSON.parse(body).fileSize, type).toBe(bytes.length);
        const served = await download(signed.fileUrl);
        expect(Buffer.from(served.bytes).equals(bytes), type).toBe(true);
      }
    });

    it('a tampered signature, expiry or id is 403 and stores nothing', async () => {
      const agent = await freshAgent();
      const signed = await signUrlOk(agent, 'a.png', 'image/png');
      const other = await signUrlOk(agent, 'b.png', 'image/png');
      const url = new URL(signed.uploadUrl);
      const sig = url.searchParams.get('signature')!;
      const expires = url.searchParams.get('expires')!;
      expect(sig.length).toBeGreaterThan(20);

      const variants: string[] = [];
      const flipped = new URL(url);
      flipped.searchParams.set('signature', (sig[0] === 'A' ? 'B' : 'A') + sig.slice(1));
      variants.push(flipped.toString());
      const later = new URL(url);
      later.searchParams.set('expires', String(Number(expires) + 3_600_000));
      variants.push(later.toString());
      const noSig = new URL(url);
      noSig.searchParams.delete('signature');
      variants.push(noSig.toString());
      const swapped = new URL(other.uploadUrl);
      swapped.searchParams.set('signature', sig);
      swapped.searchParams.set('expires', expires);
      variants.push(swapped.toString());

      for (const variant of variants) {
        const res = await put(variant, randomBytes(100));
        expect(res.status, variant).toBe(403);
        expect(((await res.json()) as { error: unknown }).error).toEqual(expect.any(String));
      }
      expect((await download(signed.fileUrl)).res.status).toBe(404);
      expect((await download(other.fileUrl)).res.status).toBe(404);
      // The genuine URL still works.
      expect((await put(signed.uploadUrl, randomBytes(100))).status).toBe(200);
    });

    it('an expired URL (16 minutes later) is 403', async () => {
      const agent = await freshAgent();
      const signed = await signUrlOk(agent, 'late.png', 'image/png');
      t.clock.advance(16 * 60_000);
      const res = await put(signed.uploadUrl, randomBytes(100));
      expect(res.status).toBe(403);
      expect(((await res.json()) as { error: unknown }).error).toMatch(/expired/i);
      expect((await download(signed.fileUrl)).res.status).toBe(404);
    });

    it('a declared oversize PUT is 413 at once, without reading the body', async () => {
      const agent = await freshAgent();
      const signed = await signUrlOk(agent, 'huge.zip', 'application/zip');
      const filesBefore = await storedFiles();
      const size = 200 * MiB;
      const source = generated(size);
      const started = Date.now();
      const { result, growth } = await peakRssGrowth(() =>
        rawRequest(local(signed.uploadUrl), {
          method: 'PUT',
          headers: { 'content-type': 'application/octet-stream', 'content-length': size },
          body: source,
        }),
      );
      expect(result.status, result.error?.message).toBe(413);
      expect(JSON.parse(result.text).error).toEqual(expect.any(String));
      expect(Date.now() - started).toBeLessThan(5_000);
      // The server answered long before the body could have been sent.
      expect(source.produced()).toBeLessThan(LIMIT);
      expect(growth).toBeLessThan(100 * MiB);
      expect(await storedFiles()).toEqual(filesBefore);
      expect((await download(signed.fileUrl)).res.status).toBe(404);
    });

    it('a chunked oversize PUT (no Content-Length) is 413 after 20 MiB, not held in memory, and the URL stays usable', async () => {
      const agent = await freshAgent();
      const signed = await signUrlOk(agent, 'stream.zip', 'application/zip');
      const filesBefore = await storedFiles();
      const size = 200 * MiB;
      const source = generated(size);
      const { result, growth } = await peakRssGrowth(() =>
        rawRequest(local(signed.uploadUrl), {
          method: 'PUT',
          headers: { 'content-type': 'application/octet-stream', 'transfer-encoding': 'chunked' },
          body: source,
        }),
      );
      expect(result.status, result.error?.message).toBe(413);
      expect(JSON.parse(result.text).error).toEqual(expect.any(String));
      expect(source.produced()).toBeGreaterThan(LIMIT);
      expect(source.produced()).toBeLessThan(size);
      expect(growth).toBeLessThan(100 * MiB);
      expect(await storedFiles()).toEqual(filesBefore);
      expect((await download(signed.fileUrl)).res.status).toBe(404);

      // Nothing was kept, so the same URL can still take a file of an allowed size.
      const bytes = randomBytes(1000);
      expect((await put(signed.uploadUrl, bytes)).status).toBe(200);
      expect(sha256((await download(signed.fileUrl)).bytes)).toBe(sha256(bytes));
    });
  });

  describe('types and served headers', () => {
    it('refuses types outside the list with 415 in both modes, storing nothing', async () => {
      const agent = await freshAgent();
      const worker = await createWorker(t);
      const filesBefore = await storedFiles();
      const rowsBefore = await uploadRows();
      for (const type of ['text/html', 'image/svg+xml', 'application/x-msdownload']) {
        const viaForm = await multipart(agent, 'page.html', type, Buffer.from('<script>alert(1)</script>'));
        expect(viaForm.status, type).toBe(415);
        expect(((await viaForm.json()) as { error: unknown }).error).toEqual(expect.any(String));
        const viaJson = await signUrl(worker, 'page.html', type);
        expect(viaJson.status, type).toBe(415);
        expect(((await viaJson.json()) as { error: unknown }).error).toEqual(expect.any(String));
      }
      expect(await storedFiles()).toEqual(filesBefore);
      expect(await uploadRows()).toEqual(rowsBefore);
    });

    it('serves nosniff always; PDF and text as attachments, images inline', async () => {
      const agent = await freshAgent();
      const cases: [string, string, 'inline' | 'attachment'][] = [
        ['doc.pdf', 'application/pdf', 'attachment'],
        ['notes.txt', 'text/plain', 'attachment'],
        ['data.json', 'application/json', 'attachment'],
        ['pic.png', 'image/png', 'inline'],
        ['song.mp3', 'audio/mpeg', 'inline'],
      ];
      for (const [name, type, disposition] of cases) {
        const uploaded = await multipartOk(agent, name, type, randomBytes(256));
        const { res } = await download(uploaded.fileUrl);
        expect(res.status).toBe(200);
        expect(res.headers.get('x-content-type-options'), type).toBe('nosniff');
        expect(res.headers.get('content-type'), type).toBe(type);
        expect(res.headers.get('content-disposition'), type).toBe(`${disposition}; filename*=UTF-8''${name}`);
      }
    });

    it('cleans path parts, quotes and control characters out of file names', async () => {
      const agent = await freshAgent();
      const viaForm = await multipartOk(agent, '../../etc/passwd.txt', 'text/plain', Buffer.from('x'));
      expect(viaForm.fileName).toBe('passwd.txt');
      expect(viaForm.fileUrl).toMatch(/\/files\/upl_[0-9a-z]{40}\/passwd\.txt$/);

      const viaJson = await signUrlOk(
        agent,
        '..\\..\\windows\\"evil"\r\nSet-Cookie: a=b.pdf',
        'application/pdf',
      );
      expect(viaJson.fileUrl).not.toMatch(/\.\.|%22|%0D|%0A/i);
      expect((await put(viaJson.uploadUrl, Buffer.from('%PDF-1.4'))).status).toBe(200);
      const { res } = await download(viaJson.fileUrl);
      expect(res.status).toBe(200);
      expect(res.headers.get('set-cookie')).toBeNull();
      const disposition = res.headers.get('content-disposition')!;
      expect(disposition).toBe(
        `attachment; filename*=UTF-8''${encodeURIComponent('evilSet-Cookie: a=b.pdf')}`,
      );
      expect(disposition).not.toMatch(/["\\/\r\n]/);

      // Names with nothing left still give a fileUrl that serves the file.
      for (const name of ['/', '""', '..', '.']) {
        const fallback = await signUrlOk(agent, name, 'image/png');
        expect((await put(fallback.uploadUrl, Buffer.from([1, 2, 3]))).status).toBe(200);
        const served = await download(fallback.fileUrl);
        expect(served.res.status, `${name} -> ${fallback.fileUrl}`).toBe(200);
        expect([...served.bytes]).toEqual([1, 2, 3]);
      }
    });

    it('an unknown file is 404', async () => {
      expect((await fetch(`${base}/files/upl_${'0'.repeat(26)}/x.png`)).status).toBe(404);
      expect((await fetch(`${base}/files/nope/x.png`)).status).toBe(404);
    });
  });
});
