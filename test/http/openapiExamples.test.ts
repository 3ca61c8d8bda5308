import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Json } from '../helpers/agentApi.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { exampleProblems } from '../helpers/openapiExamples.js';

let t: TestApp;
let doc: Json;

beforeAll(async () => {
  t = await createTestApp();
  doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
});
afterAll(async () => {
  await t?.close();
});

describe('the API reference shows an example for everything', () => {
  it('every operation has a request example (with a JSON body), and an example for its success and every error it documents, each matching its schema; every webhook an example payload', () => {
    expect(exampleProblems(doc)).toEqual([]);
  });

  it('the check names what is missing or wrong, and where to add it', () => {
    const broken = structuredClone(doc);
    const create = broken.paths['/tasks'].post;
    delete create.requestBody.content['application/json'].example;
    delete create.requestBody.content['application/json'].examples;
    delete create.responses['409'].content['application/json'].example;
    create.responses['201'].content['application/json'].example = { task: { id: 7 } };
    const problems = exampleProblems(broken);
    expect(problems).toContain(
      'POST /tasks (createTask): the request body has no example; in src/http/routes/tasks.ts write `body: example(TheBodySchema, {...})`',
    );
    expect(problems).toContain(
      "POST /tasks (createTask): response 409 has no example; in src/http/routes/tasks.ts give it one: `...errors(..., { 409: 'what went wrong and what to do' })`",
    );
    expect(
      problems.find((p) => p.startsWith('POST /tasks (createTask): the example of response 201')),
    ).toMatch(/does not match its schema: .*must/);
  });
});
