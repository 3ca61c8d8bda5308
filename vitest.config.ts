import { configDefaults, defineConfig } from 'vitest/config';

// The browser walks (test/e2e) test the web apps: the same bundle reading the same JSON, whichever
// database is behind the API, and the API's answers are tested on both databases. They are a
// third of a run, so the default run (SQLite) has them and a run on PostgreSQL leaves them out
// unless TEST_BROWSER_WALKS=1; CI runs each walk once and every other test on both databases.
const walksOnThisRun = !process.env.TEST_DATABASE_URL || process.env.TEST_BROWSER_WALKS === '1';

// Test files run in parallel forks; each builds its own app on its own SQLite file or PostgreSQL
// schema (see test/helpers/app.ts), so they never share state. The web apps are built once per
// run first (skipped when their sources did not change), for the e2e tests, and one migrated
// database is made for the apps to copy (test/helpers/dbTemplate.ts).
export default defineConfig({
  // In the repository the SDK (@handoff/sdk, a workspace) is its TypeScript source; outside it,
  // its built dist/ (see sdk/package.json's exports).
  resolve: { conditions: ['handoff-source'] },
  ssr: { resolve: { conditions: ['handoff-source'] } },
  test: {
    include: ['test/**/*.test.ts'],
    exclude: walksOnThisRun ? configDefaults.exclude : [...configDefaults.exclude, 'test/e2e/**'],
    globalSetup: ['test/e2e/globalSetup.ts', 'test/helpers/dbTemplateSetup.ts'],
    pool: 'forks',
    // Test files share one module registry per worker: with isolation every file imported the
    // app, the chain libraries and their dependencies again (about 2 s a file, 380 s a run on
    // SQLite). Nothing a test relies on lives at module level but process-wide caches of
    // compiled schemas and the sandbox chain template; outside parts are replaced on their
    // shared module objects (vi.spyOn), never with vi.mock, which a shared registry ignores.
    isolate: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // expect.poll waits for something a browser or a background loop does: 1 s (vitest's default)
    // was missed on a loaded 2-core machine running both halves at once; a poll ends as soon as
    // its condition holds, so a longer limit costs nothing when all is well.
    expect: { poll: { timeout: 15_000 } },
  },
});
