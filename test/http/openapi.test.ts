import spectralCore from '@stoplight/spectral-core';
import * as parsers from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IDEMPOTENT_ROUTES } from '../../src/http/idempotency.js';
import { refineDocument } from '../../src/http/openapi.js';
import type { Json } from '../helpers/agentApi.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

const { Document, Spectral } = spectralCore;
const METHODS = ['get', 'put', 'post', 'patch', 'delete'];

function operations(doc: Json): { id: string; op: Json }[] {
  const out: { id: string; op: Json }[] = [];
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    for (const method of METHODS)
      if (item[method]) out.push({ id: `${method.toUpperCase()} ${path}`, op: item[method] });
  }
  return out;
}

/** What the document must hold for every operation; returns the problems found. */
function documentProblems(doc: Json): string[] {
  const problems: string[] = [];
  const ids = new Set<string>();
  for (const { id, op } of operations(doc)) {
    if (!op.operationId) problems.push(`${id}: no operationId`);
    else if (ids.has(op.operationId)) problems.push(`${id}: duplicate operationId ${op.operationId}`);
    ids.add(op.operationId);
    if (!op.summary) problems.push(`${id}: no summary`);
    if (!op.tags?.length) problems.push(`${id}: no tag`);
    const responses = Object.entries<Json>(op.responses ?? {});
    if (!responses.some(([status]) => status.startsWith('2'))) problems.push(`${id}: no success response`);
    for (const [status, response] of responses) {
      const content = response.content ? Object.values<Json>(response.content) : [];
      if (!content.some((c) => c.schema)) problems.push(`${id} ${status}: no response schema`);
      if (!response.description || response.description === 'Default Response') {
        problems.push(`${id} ${status}: no description`);
      }
    }
  }
  return problems;
}

async function spectralResults(doc: Json) {
  const spectral = new Spectral();
  spectral.setRuleset({ extends: [[oas as never, 'recommended']] });
  return spectral.run(new Document(JSON.stringify(doc, null, 2), parsers.Json, 'openapi.json'));
}

describe('the OpenAPI document', () => {
  let t: TestApp;
  let doc: Json;
  beforeAll(async () => {
    t = await createTestApp();
    const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    doc = res.json();
  });
  afterAll(() => t.close());

  it('every operation has an operationId, a summary, a tag, and a described schema for every response', () => {
    expect(operations(doc).length).toBeGreaterThan(40);
    expect(documentProblems(doc)).toEqual([]);
  });

  it('the check fails on an operation without an operationId or a response schema', () => {
    const broken = structuredClone(doc);
    delete broken.paths['/tasks'].post.operationId;
    delete broken.paths['/tasks/{id}'].get.responses['200'].content;
    expect(documentProblems(broken)).toEqual([
      'POST /tasks: no operationId',
      'GET /tasks/{id} 200: no response schema',
    ]);
  });

  it('lints clean with Spectral’s OpenAPI ruleset (no errors, no warnings)', async () => {
    const results = await spectralResults(doc);
    const shown = results.map((r) => `${r.severity} ${r.code} ${r.path.join('.')}: ${r.message}`);
    expect(shown).toEqual([]);
    // The lint can fail: a document with an undefined $ref and a duplicate operationId does.
    const broken = structuredClone(doc);
    broken.paths['/tasks'].post.responses['201'].content['application/json'].schema = {
      $ref: '#/components/schemas/Nope',
    };
    broken.paths['/tasks/{id}'].get.operationId = 'createTask';
    const codes = (await spectralResults(broken)).filter((r) => r.severity === 0).map((r) => r.code);
    expect(codes).toEqual(expect.arrayContaining(['invalid-ref', 'operation-operationId-unique']));
  });

  it('uses named component schemas and documents the error bodies', () => {
    expect(Object.keys(doc.components.schemas)).toEqual(
      expect.arrayContaining(['Task', 'Application', 'Message', 'Transaction', 'Error', 'ValidationError']),
    );
    const create = doc.paths['/tasks'].post;
    expect(create.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/CreateTaskBody',
    });
    expect(create.responses['402'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/InsufficientBalance',
    });
    expect(create.responses['401'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/Unauthorized',
    });
    expect(JSON.stringify(doc)).not.toContain('Default Response');
  });

  it('documents Idempotency-Key on exactly the idempotent routes, and X-Request-Id on every response', () => {
    const withKey = operations(doc)
      .filter(({ op }) =>
        (op.parameters ?? []).some((p: Json) =>
          [
            '#/components/parameters/IdempotencyKey',
            '#/components/parameters/IdempotencyKeyRequired',
          ].includes(p.$ref),
        ),
      )
      .map(({ id }) => id)
      .sort();
    expect(withKey).toEqual([...IDEMPOTENT_ROUTES].sort());
    for (const { op } of operations(doc)) {
      for (const response of Object.values<Json>(op.responses)) {
        expect(response.headers['X-Request-Id']).toEqual({ $ref: '#/components/headers/RequestId' });
      }
    }
  });

  it('refineDocument leaves a same-named variant inline instead of clobbering the component', () => {
    const out = refineDocument({
      paths: {
        '/a': {
          get: {
            responses: {
              '200': {
                content: {
                  'application/json': {
                    schema: {
                      type: 'object',
                      properties: {
                        x: { title: 'Thing', type: 'string' },
                        y: { title: 'Thing', type: ['string', 'null'] },
                      },
                    },
                  },
                },
              },
            },
          },
        },
      },
    });
    const props = out.paths['/a'].get.responses['200'].content['application/json'].schema.properties;
    expect(props.x).toEqual({ $ref: '#/components/schemas/Thing' });
    expect(props.y.type).toEqual(['string', 'null']);
  });
});

describe('the /docs page', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('loads only same-origin assets, shows no vendor content, and forbids other origins by CSP', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/docs' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    const assets = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).toBeGreaterThan(0);
    for (const asset of assets) expect(asset).toMatch(/^\/(?!\/)/);
    let all = page.body;
    for (const asset of assets) {
      const res = await t.app.inject({ method: 'GET', url: asset });
      expect(res.statusCode, asset).toBe(200);
      if (!asset.endsWith('.json')) all += res.body;
    }
    expect(all).not.toMatch(/https?:\/\//);
    expect(all).not.toMatch(/scalar|ask ai|generate mcp|deploy|cdn|googleapis|unpkg|jsdelivr/i);
  });
});
