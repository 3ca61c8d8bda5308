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

/** The page's width against the window's, and the outermost elements that stick out on the right. */
const OVERFLOW_SCRIPT = `(() => {
  const width = document.documentElement.clientWidth;
  const wide = [];
  for (const el of document.querySelectorAll('body *')) {
    const rect = el.getBoundingClientRect();
    if ((rect.width === 0 && rect.height === 0) || rect.right <= width + 0.5) continue;
    if (wide.some((outer) => outer.contains(el))) continue;
    wide.push(el);
  }
  const describe = (el) =>
    el.tagName.toLowerCase() +
    (typeof el.className === 'string' && el.className ? '.' + el.className.trim().split(/\\s+/).join('.') : '') +
    ' right=' + Math.round(el.getBoundingClientRect().right);
  return {
    scrollWidth: Math.max(document.documentElement.scrollWidth, document.body.scrollWidth),
    width,
    wider: wide.map(describe),
  };
})()`;

/** Fails when the page scrolls sideways, naming what sticks out (at any viewport width). */
export async function expectNoHorizontalScroll(page: Page, where = ''): Promise<void> {
  const fit = (await page.evaluate(OVERFLOW_SCRIPT)) as {
    scrollWidth: number;
    width: number;
    wider: string[];
  };
  expect(fit.scrollWidth, `horizontal scroll on ${where}: ${JSON.stringify(fit)}`).toBeLessThanOrEqual(
    fit.width,
  );
}

/** Both checks in one call, for the end of every screen a test visits. */
export async function checkScreen(page: Page, where: string): Promise<void> {
  await expectNoHorizontalScroll(page, where);
  expect(await seriousViolations(page), `axe on ${where}`).toEqual([]);
}
