import { readFileSync, statfsSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import SQLite from 'better-sqlite3';

export interface Machine {
  cpuModel: string;
  cores: number;
  memoryGiB: number;
  node: string;
  os: string;
  kernel: string;
  sqlite: string;
  /** Filled in once the PostgreSQL server answered; the reason it did not otherwise. */
  postgres: string;
  autocannon: string;
  /** What kind of filesystem the SQLite file sat on: tmpfs would flatter its write numbers. */
  tempFilesystem: string;
}

/** statfs magic numbers of the filesystems a temp dir is likely to be on. */
const FILESYSTEMS: Record<number, string> = {
  61267: 'ext4',
  16914836: 'tmpfs',
  1481003842: 'xfs',
  2435016766: 'btrfs',
  2035054128: 'overlayfs',
};

export function describeMachine(postgres: string): Machine {
  const cpus = os.cpus();
  const require = createRequire(import.meta.url);
  const autocannonPackage = require('autocannon/package.json') as { version: string };
  const fsType = statfsSync(os.tmpdir()).type;
  return {
    cpuModel: cpus[0]?.model.trim() || 'unknown',
    cores: cpus.length,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    os: osName(),
    kernel: `${os.type()} ${os.release()} ${os.arch()}`,
    sqlite: sqliteVersion(),
    postgres,
    autocannon: autocannonPackage.version,
    tempFilesystem: `${os.tmpdir()} on ${FILESYSTEMS[fsType] ?? `filesystem 0x${fsType.toString(16)}`}`,
  };
}

/** The SQLite library better-sqlite3 was built with (it bundles its own). */
function sqliteVersion(): string {
  const db = new SQLite(':memory:');
  try {
    return (db.prepare('select sqlite_version() as v').get() as { v: string }).v;
  } finally {
    db.close();
  }
}

function osName(): string {
  try {
    const release = readFileSync('/etc/os-release', 'utf8');
    return /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(release)?.[1] ?? os.version();
  } catch {
    return os.version();
  }
}
