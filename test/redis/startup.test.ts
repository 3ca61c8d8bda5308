import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { loadConfig, SINGLE_INSTANCE_NOTICE } from '../../src/config.js';
import { RedisLink } from '../../src/redis/link.js';
import { startupErrorLine } from '../../src/startupError.js';
import { createTestApp } from '../helpers/app.js';
import { CONFIG_SECRETS as SECRETS, tempDirs } from '../helpers/configEnv.js';
import { spawnLogged } from '../helpers/launch.js';
import { dropPrefix, TcpProxy, TEST_REDIS_URL, testPrefix } from '../helpers/redis.js';
import { serviceEnv } from '../helpers/serviceProcess.js';

const tempDir = tempDirs('handoff-redis-');

/** A local port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('REDIS_URL and REDIS_PREFIX', () => {
  it('are unset and handoff: by default; a redis:// or rediss:// URL and a visible prefix are taken', () => {
    const { config } = loadConfig({ DATA_DIR: tempDir(), ...SECRETS });
    expect(config.redisUrl).toBeNull();
    expect(config.redisPrefix).toBe('handoff:');
    const set = loadConfig({
      DATA_DIR: tempDir(),
      ...SECRETS,
      REDIS_URL: 'rediss://user:pw@redis.internal:6380/2',
      REDIS_PREFIX: 'prod-a:',
    }).config;
    expect(set.redisUrl).toBe('rediss://user:pw@redis.internal:6380/2');
    expect(set.redisPrefix).toBe('prod-a:');
  });

  it('refuse anything else, saying what is expected', () => {
    for (const REDIS_URL of ['localhost:6379', 'http://127.0.0.1:6379', 'redis://', 'not a url']) {
      expect(() => loadConfig({ DATA_DIR: tempDir(), ...SECRETS, REDIS_URL }), REDIS_URL).toThrow(
        /^REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL such as redis:\/\/127\.0\.0\.1:6379\/0/,
      );
    }
    for (const REDIS_PREFIX of ['with space', 'x'.repeat(65), 'tab\t']) {
      expect(() => loadConfig({ DATA_DIR: tempDir(), ...SECRETS, REDIS_PREFIX })).toThrow(
        /^REDIS_PREFIX must be 1-64 visible ASCII characters/,
      );
    }
  });

  it('PostgreSQL without REDIS_URL gives exactly one notice that several instances need it; SQLite or REDIS_URL none', () => {
    const pg = { DATABASE_URL: 'postgres://u@db.internal/handoff' };
    const notices = (env: Record<string, string>) =>
      loadConfig({ DATA_DIR: tempDir(), ...SECRETS, ...env }).notices.map((n) => n.message);
    // Uploads in a bucket, so the S3 notice (test/unit/s3Config.test.ts) stays out of this one.
    const pgS3 = { ...pg, S3_BUCKET: 'handoff-uploads' };
    expect(notices(pgS3)).toEqual([SINGLE_INSTANCE_NOTICE]);
    expect(notices(pg).filter((n) => n === SINGLE_INSTANCE_NOTICE)).toHaveLength(1);
    expect(SINGLE_INSTANCE_NOTICE).toMatch(/several instances on this database need REDIS_URL$/);
    expect(notices({})).toEqual([]);
    expect(notices({ ...pgS3, REDIS_URL: 'redis://127.0.0.1:6379/0' })).toEqual([]);
  });
});

describe('Redis down at start', () => {
  it('connect() fails within its timeout with an error that startupErrorLine turns into one clear line', async () => {
    const port = await closedPort();
    const link = new RedisLink(`redis://:secret@127.0.0.1:${port}/0`, 'x:');
    const error = await link.connect().then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: 'REDIS_UNREACHABLE' });
    const line = startupErrorLine(error, { port: 3000, databaseUrl: null });
    expect(line).toBe(
      `Handoff could not start: cannot reach Redis at 127.0.0.1:${port} (ECONNREFUSED). Start Redis or fix REDIS_URL (unset it to run one instance without Redis).`,
    );
    expect(line).not.toContain('secret');
  });

  it('the service exits 1 with that line and nothing else', async () => {
    const port = await closedPort();
    const run = spawnLogged(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      ...serviceEnv(tempDir(), { env: {} }),
      PORT: String(await closedPort()),
      REDIS_URL: `redis://127.0.0.1:${port}/0`,
    });
    expect(await run.exited).toEqual({ code: 1, signal: null });
    expect(run.output().trim().split('\n')).toEqual([
      `Handoff could not start: cannot reach Redis at 127.0.0.1:${port} (ECONNREFUSED). Start Redis or fix REDIS_URL (unset it to run one instance without Redis).`,
    ]);
  }, 60_000);
});

describe('GET /ready with Redis', () => {
  it('stays 200 while Redis does not answer, saying redis "down" (and in handoff_redis_up), then "up" again', async () => {
    const prefix = testPrefix();
    const proxy = await TcpProxy.start();
    const t = await createTestApp({ redis: { url: proxy.url(), prefix } });
    const redisUp = async () => /^handoff_redis_up (\d)$/m.exec(await t.app.metrics.text())?.[1];
    try {
      expect((await t.app.inject({ method: 'GET', url: '/ready' })).json()).toEqual({
        status: 'ready',
        redis: 'up',
      });
      expect(await redisUp()).toBe('1');
      await proxy.cut();
      // The instance keeps serving on local fallbacks: a balancer must not take it (and every
      // other instance) out because Redis is away.
      const down = await t.app.inject({ method: 'GET', url: '/ready' });
      expect([down.statusCode, down.json()]).toEqual([200, { status: 'ready', redis: 'down' }]);
      expect(await redisUp()).toBe('0');
      // /health stays liveness only.
      expect((await t.app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
      await proxy.restore();
      let body: unknown = null;
      for (let i = 0; i < 60; i++) {
        body = (await t.app.inject({ method: 'GET', url: '/ready' })).json();
        if ((body as { redis?: string }).redis === 'up') break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(body).toEqual({ status: 'ready', redis: 'up' });
      expect(await redisUp()).toBe('1');
    } finally {
      await t.close();
      await proxy.cut();
      await dropPrefix(prefix, TEST_REDIS_URL);
    }
  });
});
