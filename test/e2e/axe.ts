/**
 * Accessibility and layout checks every e2e screen runs: axe-core (the real checker, loaded from
 * node_modules into the page; nothing is fetched) and "no horizontal scroll".
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

const AXE_PATH = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
let axeCode: string | undefined;
const axeSource = () => {
  axeCode ??= readFileSync(AXE_PATH, 'utf8');
  return axeCode;
};

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
 * The serious and critical axe violations on the page as it is now, one readable line each
 * ("color-contrast (serious): Elements must meet minimum color contrast ratio thresholds at
 * .card > .reward"), so a failing test says what to fix. Empty when there are none.
 */
export async function seriousViolations(page: Page): Promise<string[]> {
  // Evaluated rather than added as a <script>: the app's Content-Security-Policy (script-src
  // 'self') refuses inline scripts, and DevTools' evaluation is not subject to it.
  if (!(await page.evaluate('typeof window.axe !== "undefined"'))) await page.evaluate(axeSource());
  const violations = (await page.evaluate(
    'window.axe.run(document, { resultTypes: ["violations"] }).then((r) => r.violations)',
  )) as AxeViolation[];
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}): ${v.help} at ${n.target.join(' ')}`));
}

/**
 * What sticks out past the window: the document's scroll width against the window's width
 * (innerWidth) and its layout width (clientWidth, without a scrollbar), and each element whose
 * right edge is past the window (body's `overflow-x: hidden` would only hide it, cutting the
 * content off). Elements inside an overflowing one are left out: the outermost is the culprit.
 */
const OVERFLOW_SCRIPT = `(() => {
  const width = window.innerWidth;
  const wide = [];
  for (const el of document.querySelectorAll('body *')) {
    const rect = el.getBoundingClientRect();
    if (rect.width === 0 && rect.height === 0) continue;
    if (rect.right <= width + 0.5) continue;
    if (wide.some((outer) => outer.contains(el))) continue;
    wide.push(el);
  }
  const describe = (el) => {
    const rect = el.getBoundingClientRect();
    const name = el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') +
      (typeof el.className === 'string' && el.className ? '.' + el.className.trim().split(/\\s+/).join('.') : '');
    return name + ' right=' + Math.round(rect.right) + ' "' + (el.textContent || '').trim().slice(0, 40) + '"';
  };
  return {
    innerWidth: width,
    clientWidth: document.documentElement.clientWidth,
    scrollWidth: Math.max(document.documentElement.scrollWidth, document.body.scrollWidth),
    wider: wide.map(describe),
  };
})()`;

export interface Overflow {
  innerWidth: number;
  clientWidth: number;
  scrollWidth: number;
  /** The outermost elements past innerWidth, described ("div.card right=372 \"Reward…\""). */
  wider: string[];
}

/** How wide the page is against the window, and what sticks out (see OVERFLOW_SCRIPT). */
export const pageOverflow = (page: Page) => page.evaluate(OVERFLOW_SCRIPT) as Promise<Overflow>;

/** Fails when the page scrolls sideways, naming what sticks out (at any viewport width). */
export async function expectNoHorizontalScroll(page: Page, where = ''): Promise<void> {
  const fit = await pageOverflow(page);
  expect(fit.scrollWidth, `horizontal scroll on ${where}: ${JSON.stringify(fit)}`).toBeLessThanOrEqual(
    fit.clientWidth,
  );
}
/** Both checks in one call, for the end of every screen a test visits. */
export async function checkScreen(page: Page, where: string): Promise<void> {
  await expectNoHorizontalScroll(page, where);
  expect(await seriousViolations(page), `axe on ${where}`).toEqual([]);
}
