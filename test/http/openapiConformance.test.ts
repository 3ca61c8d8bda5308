import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Json } from '../helpers/agentApi.js';
import { type TestApp, workerAuth } from '../helpers/app.js';
import { createAgent } from '../helpers/fixtures.js';
import { type Answer, send } from '../helpers/fuzz/send.js';
import { documentTargets, type Target } from '../helpers/fuzz/targets.js';
import { createUnthrottledTestApp } from '../helpers/moneyChecks.js';

const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ??
  addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

/**
 * Every operation's real answers against its own document: each operation is called with the
 * mistakes a client makes (a malformed Idempotency-Key, an id too long or badly escaped, a body
 * of the wrong shape, a query value out of range, no credentials), and every status that comes
 * back must be one the operation documents, with a body its documented schema accepts.
 */
let t: TestApp;
let baseUrl: string;
let doc: Json;
let validator: Ajv;
const connections = new http.Agent({ keepAlive: true, maxSockets: 4 });
const credentials: Record<string, Record<string, string>> = { none: {} };

beforeAll(async () => {
  t = await createUnthrottledTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  doc = await (await fetch(`${baseUrl}/openapi.json`)).json();
  validator = addFormats(new Ajv({ strict: false, allErrors: true }));
  validator.addSchema({ ...doc, $id: 'openapi.json' });
  credentials.agent = (await createAgent(t)).headers;
  credentials.worker = workerAuth(t, 88_001);
  credentials.admin = t.admin;
}, 60_000);
afterAll(async () => {
  connections.destroy();
  await t.close();
});

interface Mistake {
  name: string;
  /** Whether the mistake applies to the operation. */
  applies: (target: Target) => boolean;
  path?: (name: string) => string;
  query?: string;
  headers?: Record<string, string>;
  body?: string;
  anonymous?: boolean;
}

const hasPathParams = (target: Target) => target.params.some((p) => p.in === 'path');
const MISTAKES: Mistake[] = [
  {
    name: 'a malformed Idempotency-Key',
    applies: () => true,
    headers: { 'idempotency-key': 'two words' },
  },
  { name: 'an id of 300 characters', applies: hasPathParams, path: () => 'x'.repeat(300) },
  { name: 'an id of 101 characters', applies: hasPathParams, path: () => 'x'.repeat(101) },
  { name: 'a badly escaped id', applies: hasPathParams, path: () => '%E0%A4%A' },
  {
    name: 'a body of the wrong shape',
    applies: (target) => target.body !== undefined,
    body: '[1, 2]',
  },
  {
    name: 'a query value out of range',
    applies: (target) => target.params.some((p) => p.in === 'query'),
    query: 'limit=0&cursor=%00',
  },
  { name: 'a NUL in a query parameter', applies: () => true, query: 'x=%00' },
  {
    name: 'a broken JSON body',
    applies: (target) => target.method !== 'GET',
    body: '{"a": ',
  },
  { name: 'no credentials', applies: (target) => target.auth !== 'none', anonymous: true },
];

/** The pointer to a schema in the document, for ajv. */
const pointer = (...parts: string[]) =>
  `openapi.json#/${parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;

async function call(target: Target, mistake: Mistake): Promise<Answer> {
  const path = target.path.replace(/\{(\w+)\}/g, (_m, name: string) =>
    mistake.path ? mistake.path(name) : `${name}_0000000000000000000000000000`,
  );
  const headers: Record<string, string> = {
    ...(mistake.anonymous ? {} : credentials[target.auth]),
    ...mistake.headers,
  };
  let body: string | undefined;
  if (target.body !== undefined || target.multipart || mistake.body !== undefined) {
    body = mistake.body ?? '{}';
    headers['content-type'] = 'application/json';
  }
  const url = `${path}${mistake.query ? `?${mistake.query}` : ''}`;
  return send(baseUrl, connections, { method: target.method, url, headers, body } as never);
}

describe('the OpenAPI document against the real answers', () => {
  it('every operation answers each mistake with a status it documents, in its documented shape', async () => {
    const problems: string[] = [];
    const targets = documentTargets(doc).filter((target) => target.auth in credentials);
    expect(targets.length).toBeGreaterThan(50);
    for (const target of targets) {
      const [method, path] = [target.method.toLowerCase(), target.path];
      const responses = doc.paths[path][method].responses as Record<string, Json>;
      for (const mistake of MISTAKES.filter((m) => m.applies(target))) {
        const answer = await call(target, mistake);
        const where = `${target.id} with ${mistake.name}: ${answer.status}`;
        const documented = responses[String(answer.status)];
        if (!documented) {
          problems.push(`${where} is not documented (${answer.body.slice(0, 120)})`);
          continue;
        }
        if (!answer.contentType.startsWith('application/json')) continue;
        const check = validator.getSchema(
          pointer(
            'paths',
            path,
            method,
            'responses',
            String(answer.status),
            'content',
            'application/json',
            'schema',
          ),
        );
        if (check && !check(JSON.parse(answer.body))) {
          problems.push(`${where} does not match its schema: ${validator.errorsText(check.errors)}`);
        }
      }
    }
    if (problems.length) console.log(`PROBLEMS\n${problems.join('\n')}`);
    expect(problems).toEqual([]);
  }, 120_000);
});
