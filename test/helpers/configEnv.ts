import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';

/** The secrets a configuration test gives loadConfig, so none is generated into DATA_DIR. */
export const CONFIG_SECRETS = {
  ADMIN_TOKEN: 'admin-token-from-env-0123456789abcdef',
  SECRET_KEY: 'ab'.repeat(32),
  TELEGRAM_BOT_TOKEN: '123:bot-token-from-env',
};

/**
 * A maker of fresh temporary directories named `<prefix>...`, each removed after the test that
 * made it. Called at a test file's top level (it registers the afterEach).
 */
export function tempDirs(prefix: string): () => string {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
    dirs.push(dir);
    return dir;
  };
}
