import fc from 'fast-check';
import {
  BROKEN_MULTIPART,
  boundaryStrings,
  CONTENT_TYPES,
  CONTROL_CHARS,
  extraHeaders,
  HUGE_NUMBERS,
  NUL,
  percentEncode,
  WRONG_BODIES,
  WRONG_TYPES,
  withChar,
} from './hostileInputs.js';
import {
  arbitraryOf,
  type FieldPath,
  leafPaths,
  pathName,
  type Schema,
  schemaAt,
  setAt,
  stringPaths,
} from './schemaValues.js';
import type { Param, Target } from './targets.js';

/** One request the fuzzer sends, with a label that says what is hostile about it. */
export interface FuzzCase {
  label: string;
  method: string;
  /** Path and query, already percent-encoded. */
  url: string;
  headers: Record<string, string>;
  body?: string;
}

/** What a target's cases are built from: the real ids and credentials of the test's world. */
export interface CaseInputs {
  doc: Schema;
  seed: number;
  /** Random cases for this target (besides the deterministic ones). */
  randomRuns: number;
  /** A real value for a path or query parameter (a task id the caller owns, a signed upload's signature). */
  realParam(param: Param): string | undefined;
  /** Other real ids (of the wrong kind, or someone else's) to put into path parameters. */
  otherIds: string[];
  /** A body the route accepts (or close to it), so the one hostile field is what gets judged. */
  goodBody: unknown;
  validAuth: Record<string, string>;
  badAuths: Record<string, string>[];
}

/** A request being put together: path values, query values and body before they are encoded. */
interface Draft {
  label: string;
  pathValues: Record<string, string>;
  query: [string, string][];
  headers: Record<string, string>;
  body: string | undefined;
}

const JSON_TYPE = { 'content-type': 'application/json' };

/** Every case for one target: deterministic ones (each field, each parameter) and random ones. */
export function casesFor(target: Target, inputs: CaseInputs): FuzzCase[] {
  const base = baseDraft(target, inputs);
  const drafts = [
    ...authDrafts(base, inputs),
    ...(target.copyOf ? [] : controlCharDrafts(target, base, inputs)),
    ...(target.multipart ? multipartDrafts(base) : []),
    ...randomDrafts(target, base, inputs),
  ];
  return drafts.map((d) => toCase(target, d));
}

function baseDraft(target: Target, inputs: CaseInputs): Draft {
  const pathValues: Record<string, string> = {};
  const query: [string, string][] = [];
  for (const param of target.params) {
    const real = inputs.realParam(param);
    if (param.in === 'path') pathValues[param.name] = encodeURIComponent(real ?? 'x');
    else if (param.in === 'query' && real !== undefined) query.push([param.name, real]);
  }
  const body = target.body === undefined ? undefined : JSON.stringify(inputs.goodBody);
  const headers = { ...inputs.validAuth, ...(body === undefined ? {} : JSON_TYPE) };
  return { label: 'valid', pathValues, query, headers, body };
}

/** No credential and wrong ones: the route must refuse with a JSON 401/403, never fail. */
function authDrafts(base: Draft, inputs: CaseInputs): Draft[] {
  const withoutAuth = { ...base.headers };
  for (const name of ['authorization', 'cookie', 'x-csrf-token', 'x-telegram-bot-api-secret-token'])
    delete withoutAuth[name];
  return [
    { ...base, label: 'valid' },
    { ...base, label: 'no credentials', headers: withoutAuth },
    ...inputs.badAuths.map((bad, i) => ({
      ...base,
      label: `bad credentials #${i}`,
      headers: { ...withoutAuth, ...bad },
    })),
  ];
}

/**
 * U+0000 into every string field of the body and every parameter, one at a time, then another
 * control character chosen by the seed: each field must be refused (or cleaned), never a 500.
 */
function controlCharDrafts(target: Target, base: Draft, inputs: CaseInputs): Draft[] {
  const pick = fc.sample(fc.tuple(fc.constantFrom(...CONTROL_CHARS), fc.nat()), {
    seed: inputs.seed,
    numRuns: 64,
  });
  let n = 0;
  const hostile = (text: string) => {
    const [char, where] = pick[n++ % pick.length]!;
    return [withChar(text, NUL, where), withChar(text, char, where)];
  };
  const drafts: Draft[] = [];
  for (const path of target.body === undefined ? [] : stringPaths(inputs.doc, target.body)) {
    const current = valueAtPath(inputs.goodBody, path);
    for (const text of hostile(typeof current === 'string' ? current : 'text'))
      drafts.push(
        withBody(
          base,
          `control char in body ${pathName(path)}: ${show(text)}`,
          setAt(inputs.goodBody, path, text),
        ),
      );
  }
  for (const param of target.params) {
    const real = inputs.realParam(param) ?? 'x';
    for (const text of hostile(real)) {
      if (param.in === 'path')
        drafts.push({
          ...base,
          label: `control char in path ${param.name}: ${show(text)}`,
          pathValues: { ...base.pathValues, [param.name]: percentEncode(text) },
        });
      if (param.in === 'query')
        drafts.push({
          ...base,
          label: `control char in query ${param.name}: ${show(text)}`,
          query: [...base.query.filter(([k]) => k !== param.name), [param.name, text]],
        });
    }
  }
  // All at once, as a careless client would paste text.
  if (target.body !== undefined) {
    const all = stringPaths(inputs.doc, target.body).reduce<unknown>(
      (body, path) => setAt(body, path, `a${NUL}\u0001\ud800b`),
      inputs.goodBody,
    );
    drafts.push(withBody(base, 'control chars in every body string', all));
  }
  return drafts;
}

/** Each kind of broken multipart, to a route that takes uploads. */
function multipartDrafts(base: Draft): Draft[] {
  return BROKEN_MULTIPART.map((m) => {
    const headers = { ...base.headers };
    delete headers['content-type'];
    if (m.contentType !== undefined) headers['content-type'] = m.contentType;
    return { ...base, label: `multipart: ${m.name}`, headers, body: m.body };
  });
}

/** Random mutations of the valid request, drawn with the seed: the same seed sends the same cases. */
function randomDrafts(target: Target, base: Draft, inputs: CaseInputs): Draft[] {
  const { doc } = inputs;
  const leaves = target.body === undefined ? [] : leafPaths(doc, target.body);
  const strings = target.body === undefined ? [] : stringPaths(doc, target.body);
  const query = target.params.filter((p) => p.in === 'query');
  const paths = target.params.filter((p) => p.in === 'path');
  const mutations: fc.Arbitrary<Draft>[] = [
    // A well-shaped body from the schema (often wrong in value), with odd headers.
    fc
      .tuple(target.body ? arbitraryOf(doc, target.body) : fc.constant(undefined), extraHeaders)
      .map(([body, headers]) => ({
        ...withBody(
          base,
          'schema-shaped body',
          body === undefined ? undefined : { ...(inputs.goodBody as object), ...(body as object) },
        ),
        headers: { ...base.headers, ...headers },
      })),
    fc.constantFrom(...WRONG_BODIES).map((raw) => ({
      ...base,
      label: `body ${show(raw)}`,
      headers: { ...base.headers, ...JSON_TYPE },
      body: raw,
    })),
    fc.constantFrom(...CONTENT_TYPES).map((type) => ({
      ...base,
      label: `content-type ${show(type)}`,
      headers: { ...base.headers, 'content-type': type },
      body: base.body ?? '{}',
    })),
    fc
      .record({
        key: fc.constantFrom('extra', '__proto__', 'constructor', 'id', 'agentId', 'status', 'balance'),
        value: fc.constantFrom(...WRONG_TYPES),
      })
      .map(({ key, value }) =>
        withBody(base, `extra field ${key}`, { ...(inputs.goodBody as object), [key]: value }),
      ),
  ];
  if (leaves.length) {
    mutations.push(
      fc
        .tuple(fc.constantFrom(...leaves), fc.constantFrom(...WRONG_TYPES, ...HUGE_NUMBERS))
        .map(([path, value]) =>
          withBody(base, `${pathName(path)} = ${show(value)}`, setAt(inputs.goodBody, path, value)),
        ),
    );
  }
  if (strings.length) {
    mutations.push(
      fc.constantFrom(...strings).chain((path) => {
        const s = schemaAt(doc, target.body, path);
        return fc
          .constantFrom(...boundaryStrings(s.minLength, s.maxLength))
          .map((text) =>
            withBody(base, `${pathName(path)} of length ${text.length}`, setAt(inputs.goodBody, path, text)),
          );
      }),
    );
  }
  if (query.length) {
    const values = fc.oneof(
      fc.constantFrom(
        '',
        '-1',
        '0',
        '1e999',
        '99999999999999999999',
        'abc',
        'true',
        'null',
        '[]',
        '%',
        'a'.repeat(2000),
      ),
      fc.constantFrom(...HUGE_NUMBERS.map(String)),
    );
    mutations.push(
      fc.tuple(fc.constantFrom(...query), values, fc.boolean()).map(([param, value, twice]) => ({
        ...base,
        label: `query ${param.name}=${show(value)}${twice ? ' twice' : ''}`,
        query: [
          ...base.query.filter(([k]) => k !== param.name),
          [param.name, value],
          ...(twice ? [[param.name, '1'] as [string, string]] : []),
        ],
      })),
    );
  }
  if (paths.length) {
    const values = fc.oneof(
      fc.constantFrom(
        '',
        'a'.repeat(101),
        'a'.repeat(5000),
        '..',
        '%2e%2e%2f',
        '%',
        '%zz',
        '%C0%80',
        '%ED%A0%80',
        '-1',
        '0',
      ),
      fc.constantFrom(...inputs.otherIds.map(encodeURIComponent)),
    );
    mutations.push(
      fc.tuple(fc.constantFrom(...paths), values).map(([param, value]) => ({
        ...base,
        label: `path ${param.name}=${show(value)}`,
        pathValues: { ...base.pathValues, [param.name]: value },
      })),
    );
  }
  return fc.sample(fc.oneof(...mutations), { seed: inputs.seed, numRuns: inputs.randomRuns });
}

function withBody(base: Draft, label: string, body: unknown): Draft {
  if (body === undefined) return { ...base, label };
  return { ...base, label, headers: { ...base.headers, ...JSON_TYPE }, body: JSON.stringify(body) };
}

function valueAtPath(value: unknown, path: FieldPath): unknown {
  return path.reduce<unknown>(
    (node, key) => (node as Record<string | number, unknown> | undefined)?.[key],
    value,
  );
}

function toCase(target: Target, draft: Draft): FuzzCase {
  const path = target.path.replace(/\{(\w+)\}/g, (_, name: string) => draft.pathValues[name] ?? 'x');
  const search = draft.query.map(([k, v]) => `${encodeURIComponent(k)}=${percentEncode(v)}`).join('&');
  return {
    label: draft.label,
    method: target.method,
    url: search ? `${path}?${search}` : path,
    headers: draft.headers,
    ...(draft.body === undefined ? {} : { body: draft.body }),
  };
}

/** Short, escaped, for labels: control characters show as \uXXXX. */
export function show(value: unknown): string {
  const text = typeof value === 'string' ? value : String(JSON.stringify(value));
  const escaped = JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…(${text.length})` : text);
  return escaped.replace(
    /[\u007f-\u00a0\u2028\u2029\u200b\ufeff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
