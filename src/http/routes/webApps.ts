import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Config } from '../../config.js';
import { type WebAppName, webSecurityHeaders } from '../webSecurityHeaders.js';

/** Where `npm run build:web` puts each app under web/ (dist/web/<name>). */
export const WEB_BUILD_DIR = fileURLToPath(new URL('../../../dist/web/', import.meta.url));

/** The web apps and the paths they are served at. */
export const WEB_APPS: readonly { name: WebAppName; prefix: string }[] = [
  { name: 'miniapp', prefix: '/app' },
  { name: 'console', prefix: '/console' },
];

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};
/** Vite names built assets by their content hash: they never change, so caches keep them. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** Path segments are short; anything longer is not one of the app's files. */
const MAX_PATH_CHARS = 300;

/**
 * Serves a built single-page app at `prefix`: its files, and index.html for every other path
 * (the app routes on the client). index.html is revalidated on every load so a new build shows
 * at once; hashed assets under assets/ are cached for a year. Every file carries the app's
 * Content-Security-Policy (webSecurityHeaders.ts), whose connect-src names `bridgeOrigins()`.
 */
export function serveWebApp(
  app: FastifyInstance,
  name: WebAppName,
  prefix: string,
  bridgeOrigins: () => readonly string[],
  buildDir = WEB_BUILD_DIR,
) {
  const root = path.join(buildDir, name);
  const handler = async (requested: string, reply: FastifyReply) => {
    const file = await findFile(root, requested);
    if (file) {
      const immutable = requested.startsWith('assets/');
      reply.headers(webSecurityHeaders(name, bridgeOrigins()));
      return sendFile(reply, file, immutable ? IMMUTABLE : 'no-cache');
    }
    // A missing asset is a 404 (a stale page asking for an old build), not the app's page; so is
    // an unknown path of an app's JSON API (the console's /console/api/...).
    if (requested.startsWith('assets/') || requested.startsWith('api/') || path.extname(requested) !== '') {
      return reply.status(404).send({ error: `${prefix}/${requested} was not found` });
    }
    const index = await findFile(root, 'index.html');
    if (!index) {
      return reply.status(503).send({ error: `The ${name} web app is not built: run npm run build:web` });
    }
    reply.headers(webSecurityHeaders(name, bridgeOrigins()));
    return sendFile(reply, index, 'no-cache');
  };
  app.get(prefix, { schema: { hide: true } }, (_request, reply) => reply.redirect(`${prefix}/`));
  app.get<{ Params: { '*': string } }>(`${prefix}/*`, { schema: { hide: true } }, (request, reply) =>
    handler(request.params['*'] ?? '', reply),
  );
}

/** A regular file inside `root` for a URL path, or null (never a path outside `root`). */
async function findFile(root: string, requested: string): Promise<string | null> {
  if (requested.length > MAX_PATH_CHARS || requested.includes('\0')) return null;
  const file = path.resolve(root, requested === '' ? 'index.html' : requested);
  if (!file.startsWith(`${root}${path.sep}`)) return null;
  try {
    return (await stat(file)).isFile() ? file : null;
  } catch {
    return null;
  }
}

function sendFile(reply: FastifyReply, file: string, cacheControl: string) {
  return reply
    .header('content-type', TYPES[path.extname(file)] ?? 'application/octet-stream')
    .header('cache-control', cacheControl)
    .header('x-content-type-options', 'nosniff')
    .send(createReadStream(file));
}

/**
 * The TON Connect manifest wallets show when the worker connects (the app's name and icon);
 * its `url` is the origin whose host the wallet signs into the ton_proof.
 */
export function serveTonConnectManifest(app: FastifyInstance, config: Pick<Config, 'publicUrl'>) {
  app.get('/tonconnect-manifest.json', { schema: { hide: true } }, async (_request, reply) =>
    reply.header('cache-control', 'public, max-age=300').send({
      url: config.publicUrl,
      name: 'Handoff',
      iconUrl: `${config.publicUrl}/app/icon.png`,
    }),
  );
}
