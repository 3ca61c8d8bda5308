import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

/** axe-core's browser bundle, injected as a script file: nothing is fetched from the network. */
const AXE_SCRIPT = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

interface AxeNode {
  target: unknown[];
  failureSummary?: string;
}
interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: AxeNode[];
}

/**
 * The page's serious and critical accessibility violations as axe-core finds them, one readable
 * line per violation and element ("color-contrast (serious): Elements must meet minimum color
 * contrast ratio thresholds at .tag"). An empty list is the pass; tests assert `toEqual([])` so a
 * failure shows what to fix. Minor and moderate findings are left out on purpose: the e2e tests
 * hold the line the issue sets (no serious or critical ones), not every best practice.
 */
export async function seriousViolations(page: Page): Promise<string[]> {
  // Scripts as strings: the test code is compiled without the DOM's types.
  if (!(await page.evaluate('typeof window.axe === "object"'))) {
    // The apps' Content-Security-Policy (script-src 'self') refuses a <script> added to the page
    // (addScriptTag), so axe's source is evaluated through the browser's debugging protocol, which
    // the page's CSP does not govern. The page itself keeps its real policy.
    await page.evaluate(`${readFileSync(AXE_SCRIPT, 'utf8')}\n;window.axe = axe;`);
  }
  const violations = (await page.evaluate(
    "window.axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations)",
  )) as AxeViolation[];
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}): ${v.help} at ${n.target.join(' ')}`));
}

/**
 * The page's widths, and the element reaching furthest right outside any container that scrolls
 * or clips sideways by itself (named in a failure, with its parent chain).
 */
const WIDTHS_SCRIPT = `(() => {
  const root = document.documentElement;
  const contained = (el) => {
    for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
      const x = getComputedStyle(p).overflowX;
      if (x === 'auto' || x === 'scroll' || x === 'hidden' || x === 'clip') return true;
    }
    return false;
  };
  const name = (el) => {
    const cls = typeof el.className === 'string' && el.className ? '.' + el.className.trim().split(/\\s+/).join('.') : '';
    return el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + cls;
  };
  let widest = '';
  let right = root.clientWidth;
  for (const el of document.body.querySelectorAll('*')) {
    const r = el.getBoundingClientRect().right;
    if (r > right + 0.5 && !contained(el)) {
      right = r;
      const chain = [];
      for (let p = el; p && p !== document.body && chain.length < 5; p = p.parentElement) chain.unshift(name(p));
      widest = chain.join(' > ') + ' (' + Math.round(r) + ' px)';
    }
  }
  return { scrollWidth: root.scrollWidth, clientWidth: root.clientWidth, widest };
})()`;

/**
 * Fails when the page scrolls sideways: its content is wider than the viewport. A table may still
 * scroll inside its own container; the page itself must not.
 */
export async function expectNoHorizontalScroll(page: Page): Promise<void> {
  const { scrollWidth, clientWidth, widest } = (await page.evaluate(WIDTHS_SCRIPT)) as {
    scrollWidth: number;
    clientWidth: number;
    widest: string;
  };
  if (scrollWidth > clientWidth) {
    throw new Error(
      `The page scrolls sideways: ${scrollWidth} px of content in ${clientWidth} px${widest ? ` (widest: ${widest})` : ''}`,
    );
  }
}
