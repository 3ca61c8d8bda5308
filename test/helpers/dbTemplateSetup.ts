import { rmSync } from 'node:fs';
import type { TestProject } from 'vitest/node';
import { type DbTemplate, makeDbTemplate } from './dbTemplate.js';

declare module 'vitest' {
  export interface ProvidedContext {
    dbTemplate: DbTemplate | null;
  }
}

/** Migrates one database for the whole run; test apps copy it (test/helpers/dbTemplate.ts). */
export default async function setup(project: TestProject): Promise<() => void> {
  const template = await makeDbTemplate(process.env.TEST_DATABASE_URL || null);
  project.provide('dbTemplate', template);
  return () => {
    if (template) rmSync(template.dir, { recursive: true, force: true });
  };
}
