import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { Json } from './agentApi.js';

const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ??
  addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

const ROOT = path.resolve(import.meta.dirname, '../..');
/** Media types whose answers a reader wants to see; files' bytes have none to show. */
const SHOWN = ['application/json', 'text/event-stream'];
const METHODS = ['get', 'put', 'post', 'patch', 'delete'];

/** The source file that declares `operationId`, so a problem names where to add the example. */
function fileOf(operationId: string | undefined): string {
  if (!operationId) return 'its route file';
  const dirs = ['src/http/routes', 'src/http'];
  for (const dir of dirs) {
    for (const name of readdirSync(path.join(ROOT, dir))) {
      if (!name.endsWith('.ts')) continue;
      const file = path.join(dir, name);
      if (readFileSync(path.join(ROOT, file), 'utf8').includes(`operationId: '${operationId}'`)) return file;
    }
  }
  return 'its route file';
}

/** The examples a media object carries: `example`, or the values of `examples`. */
function examplesOf(media: Json): unknown[] {
  if (media.example !== undefined) return [media.example];
  if (media.examples) return Object.values<Json>(media.examples).map((e) => e.value);
  return [];
}

/**
 * Every problem with the document's examples, one sentence each: an operation with a JSON body
 * and no request example, a response (success or error) without an example, a webhook without an
 * example payload, or an example its schema refuses (with the schema's complaint).
 */
export function exampleProblems(doc: Json): string[] {
  const ajv = addFormats(new Ajv({ strict: false, allErrors: true }));
  ajv.addSchema({ ...doc, $id: 'openapi.json' });
  const check = (schema: Json, value: unknown): string | undefined => {
    const text = JSON.stringify(schema).replaceAll('"#/components/', '"openapi.json#/components/');
    const validate = ajv.compile(JSON.parse(text));
    if (validate(value)) return undefined;
    return (validate.errors ?? []).map((e) => `${e.instancePath || '(the body)'} ${e.message}`).join('; ');
  };
  const problems: string[] = [];
  const visit = (where: string, operationId: string | undefined, op: Json, webhook: boolean) => {
    const file = webhook ? 'src/http/schemas/events.ts' : fileOf(operationId);
    const body = op.requestBody?.content?.['application/json'];
    if (body) {
      const found = examplesOf(body);
      if (!found.length) {
        problems.push(
          webhook
            ? `${where}: the event has no example payload; give its data schema one in ${file}`
            : `${where}: the request body has no example; in ${file} write \`body: example(TheBodySchema, {...})\``,
        );
      }
      for (const value of found) {
        const wrong = check(body.schema, value);
        if (wrong) problems.push(`${where}: the request example does not match its schema: ${wrong}`);
      }
    }
    if (webhook) return;
    for (const [status, response] of Object.entries<Json>(op.responses ?? {})) {
      for (const type of SHOWN) {
        const media = response.content?.[type];
        if (!media) continue;
        const found = examplesOf(media);
        if (!found.length) {
          problems.push(
            status.startsWith('2')
              ? `${where}: response ${status} has no example; in ${file} write \`${status}: example(TheResponseSchema, {...})\``
              : `${where}: response ${status} has no example; in ${file} give it one: \`...errors(..., { ${status}: 'what went wrong and what to do' })\``,
          );
        }
        for (const value of found) {
          const wrong = type === 'application/json' ? check(media.schema, value) : undefined;
          if (wrong)
            problems.push(`${where}: the example of response ${status} does not match its schema: ${wrong}`);
        }
      }
    }
  };
  for (const [p, item] of Object.entries<Json>(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method];
      if (op) visit(`${method.toUpperCase()} ${p} (${op.operationId})`, op.operationId, op, false);
    }
  }
  for (const [name, item] of Object.entries<Json>(doc.webhooks ?? {}))
    visit(`webhook ${name}`, undefined, item.post, true);
  return problems;
}
