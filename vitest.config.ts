import { defineConfig } from 'vitest/config';

// Test files run in parallel forks; each builds its own app on its own SQLite file or PostgreSQL
// schema (see test/helpers/app.ts), so they never share state.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
