import vm from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

/** Just enough of a DOM for the docs page's script: elements, text nodes, attributes. */
interface FakeNode {
  tag: string;
  text?: string;
  attrs: Record<string, string>;
  children: FakeNode[];
}
function fakeDocument() {
  const element = (tag: string): FakeNode & Record<string, unknown> => {
    const node: FakeNode & Record<string, unknown> = {
      tag,
      attrs: {},
      children: [],
      setAttribute(name: string, value: string) {
        node.attrs[name] = value;
      },
      appendChild(child: FakeNode) {
        node.children.push(child);
        return child;
      },
      scrollIntoView() {},
      addEventListener() {},
      style: {},
    };
    Object.defineProperty(node, 'textContent', {
      set(value: string) {
        node.children = value ? [{ tag: '#text', text: value, attrs: {}, children: [] }] : [];
      },
    });
    return node;
  };
  const byId: Record<string, FakeNode> = { nav: element('nav'), main: element('main') };
  return {
    byId,
    document: {
      createElement: element,
      createTextNode: (text: string): FakeNode => ({ tag: '#text', text, attrs: {}, children: [] }),
      getElementById: (id: string) => byId[id] ?? null,
    },
  };
}
function* walk(node: FakeNode): Generator<FakeNode> {
  yield node;
  for (const child of node.children) yield* walk(child);
}

describe('/docs', () => {
  it('renders the document’s `code` spans as <code>, never as literal backticks', async () => {
    const script = (await t.app.inject({ method: 'GET', url: '/docs/docs.js' })).body;
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const { byId, document } = fakeDocument();
    let rendered!: () => void;
    const done = new Promise<void>((resolve) => {
      rendered = resolve;
    });
    const fetch = async () => ({ json: async () => doc });
    vm.runInNewContext(script, { document, fetch, location: { hash: '' } });
    // The script renders at the end of fetch's promise chain: microtasks all run before this.
    setImmediate(rendered);
    await done;
    const nodes = [...walk(byId.main!)];
    expect(nodes.length).toBeGreaterThan(1000);
    const texts = nodes.filter((n) => n.tag === '#text').map((n) => n.text ?? '');
    const codes = nodes
      .filter((n) => n.tag === 'code')
      .flatMap((n) => n.children.map((c) => c.text ?? n.attrs.text ?? ''));
    expect(texts.filter((text) => text.includes('`'))).toEqual([]);
    // From the 429 response's description: "retry after `Retry-After` seconds".
    expect(codes).toContain('Retry-After');
    expect(codes).toContain('Idempotency-Key');
  });

  it('has an icon: GET /favicon.ico is a 16 x 16 Windows icon, linked from the page', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/favicon.ico' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/x-icon');
    const icon = res.rawPayload;
    expect([...icon.subarray(0, 6)]).toEqual([0, 0, 1, 0, 1, 0]); // reserved, type icon, one image
    expect([icon[6], icon[7]]).toEqual([16, 16]);
    expect(icon.readUInt32LE(14)).toBe(icon.length - 22); // the image fills the rest
    expect(icon.readUInt32LE(22)).toBe(40); // a BITMAPINFOHEADER
    const page = await t.app.inject({ method: 'GET', url: '/docs' });
    expect(page.body).toContain('<link rel="icon" href="/favicon.ico">');
  });
});
