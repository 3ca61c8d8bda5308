// Writes the SDK's generated types (sdk/src/generated/openapi.ts) from the OpenAPI document the
// service serves at /openapi.json: `npm run sdk:generate` builds the app in-process on a
// throw-away data directory, or reads a running service with `npm run sdk:generate -- <url>`.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { closeServices, openServices } from '../src/services.js';
import { renderSdkTypes, SDK_TYPES_FILE } from './sdkTypes.js';

async function servedDocument(): Promise<unknown> {
  const url = process.argv[2];
  if (url) {
    const res = await fetch(new URL('/openapi.json', url));
    if (!res.ok) throw new Error(`GET ${url}/openapi.json answered ${res.status}`);
    return res.json();
  }
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'handoff-sdk-generate-'));
  try {
    const { config } = loadConfig({ DATA_DIR: dataDir, PUBLIC_URL: 'http://localhost:3000' });
    const services = await openServices(config);
    const app = await buildApp({ config, ...services });
    try {
      const res = await app.inject({ method: 'GET', url: '/openapi.json' });
      return res.json();
    } finally {
      await app.close();
      await closeServices(services);
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

writeFileSync(SDK_TYPES_FILE, await renderSdkTypes(await servedDocument()));
console.log(`wrote ${SDK_TYPES_FILE}`);
