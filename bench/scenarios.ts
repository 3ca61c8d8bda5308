/**
 * The scenarios: each server is started, measured and closed here, so a run never leaves a
 * server, a temp dir or a schema behind, even when a measurement throws.
 */
import { makeFixture, TASK_BODY } from './fixtures.js';
import { type Measurement, measure } from './load.js';
import { createBenchSchema, databaseName, dropBenchSchema } from './postgres.js';
import { type DatabaseChoice, startBaseline, startHandoff } from './servers.js';
import type { BenchSettings } from './settings.js';

export function log(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

export async function benchBaseline(settings: BenchSettings): Promise<Measurement[]> {
  const server = await startBaseline();
  try {
    log('bare Fastify GET /');
    const scenario = {
      name: 'bare Fastify GET /',
      database: 'none',
      baseUrl: server.baseUrl,
      postgresDatabase: null,
    };
    return [
      await measure({ ...scenario, method: 'GET', path: '/', headers: {}, expectStatus: 200 }, settings),
    ];
  } finally {
    await server.close();
  }
}

export async function benchHandoff(
  database: DatabaseChoice,
  settings: BenchSettings,
): Promise<Measurement[]> {
  log(`${database.kind}: starting the app (migrations, sandbox chain)`);
  const server = await startHandoff(database);
  try {
    const fixture = await makeFixture(server.baseUrl, server.adminToken);
    const headers = { authorization: fixture.authorization };
    const postgresDatabase = database.kind === 'postgres' ? databaseName(database.url) : null;
    const common = { database: database.kind, baseUrl: server.baseUrl, headers, postgresDatabase };
    const results: Measurement[] = [];
    log(`${database.kind}: POST /tasks`);
    results.push(
      await measure(
        {
          ...common,
          name: 'POST /tasks',
          method: 'POST',
          path: '/tasks',
          body: TASK_BODY,
          expectStatus: 201,
        },
        settings,
      ),
    );
    log(`${database.kind}: GET /tasks/:id`);
    results.push(
      await measure(
        {
          ...common,
          name: 'GET /tasks/:id',
          method: 'GET',
          path: `/tasks/${fixture.taskId}`,
          expectStatus: 200,
        },
        settings,
      ),
    );
    return results;
  } finally {
    await server.close();
  }
}

export async function benchPostgres(settings: BenchSettings): Promise<Measurement[]> {
  const schema = await createBenchSchema(settings.postgresUrl);
  try {
    return await benchHandoff({ kind: 'postgres', url: settings.postgresUrl, schema }, settings);
  } finally {
    await dropBenchSchema(settings.postgresUrl, schema);
  }
}
