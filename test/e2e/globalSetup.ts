// @ts-expect-error: a plain ES module script without type declarations
import { buildWebApps } from '../../scripts/build-web.mjs';

/**
 * Builds the web apps once per test run, before any test file starts (the e2e tests and the
 * serving tests load dist/web); nothing is rebuilt when the sources did not change.
 */
export default async function setup(): Promise<void> {
  await (buildWebApps as (options: { log: (line: string) => void }) => Promise<string[]>)({
    log: (line) => process.stdout.write(`${line}\n`),
  });
}
