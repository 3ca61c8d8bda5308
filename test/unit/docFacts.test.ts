import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type Config, loadConfig } from '../../src/config.js';
import { formatAmount } from '../../src/domain/money/currency.js';
import { APPLICATION_STATUSES, PAYMENT_STATUSES, TASK_STATUSES } from '../../src/domain/tasks/states.js';
import { webhookDocs } from '../../src/http/schemas/events.js';
import { ALL_TOOLS } from '../../src/mcp/allTools.js';
import { TOOLSET_NAMES, TOOLSETS } from '../../src/mcp/toolsets.js';

/**
 * Docs that cannot drift: what the code knows (the MCP tools, the webhook events, the
 * configuration variables and their defaults, the status words) is compared with what the docs
 * say, so changing one without the other fails here with the line to write.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const read = (page: string) => readFileSync(path.join(ROOT, page), 'utf8');

/** The rows of the Markdown table that follows `<!-- marker... -->`, as arrays of cells. */
function tableAfter(page: string, marker: string): string[][] {
  const text = read(page);
  const at = text.indexOf(`<!-- ${marker}`);
  if (at < 0) throw new Error(`${page} lost its <!-- ${marker} --> table`);
  const lines = text.slice(at).split('\n').slice(1);
  const rows = lines.slice(
    2,
    lines.findIndex((line, i) => i >= 2 && !line.startsWith('|')),
  );
  return rows.map((row) =>
    row
      .slice(1, -1)
      .split(' | ')
      .map((cell) => cell.trim()),
  );
}
const unquote = (cell: string) => cell.replace(/^`|`$/g, '');
const NUMBER_WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];

describe('the MCP tools the docs name', () => {
  it('docs/agents.md lists every toolset with its tools, as src/mcp/toolsets.ts does', () => {
    const documented = tableAfter('docs/agents.md', 'mcp-toolsets').map(([set, tools]) => [
      unquote(set!),
      tools!.split(', ').map(unquote),
    ]);
    const expected = TOOLSET_NAMES.map((set) => [set, [...TOOLSETS[set].tools]]);
    expect(documented, 'the toolsets table of docs/agents.md').toEqual(expected);
  });

  it('the tool count and toolset count the README and docs/agents.md give are the served ones', () => {
    const tools = ALL_TOOLS.map((tool) => tool.name).sort();
    expect(TOOLSET_NAMES.flatMap((set) => TOOLSETS[set].tools).sort()).toEqual(tools);
    const phrase = `${tools.length} tools in ${NUMBER_WORDS[TOOLSET_NAMES.length]} toolsets`;
    for (const page of ['README.md', 'docs/agents.md']) {
      expect(read(page), `${page} says "${phrase}"`).toContain(phrase);
      // No other count of tools anywhere on the page.
      const counts = [...read(page).matchAll(/(\d+) (?:MCP )?tools\b/g)].map((m) => Number(m[1]));
      expect(
        counts.every((n) => n === tools.length),
        `${page}: tool counts ${counts}`,
      ).toBe(true);
    }
  });
});

describe('the webhook events the docs name', () => {
  it('docs/webhooks.md has one row per event the service sends, with its summary', () => {
    const expected = Object.entries(webhookDocs()).map(([event, { post }]) => [`\`${event}\``, post.summary]);
    const documented = tableAfter('docs/webhooks.md', 'webhook-events');
    expect(
      documented,
      `docs/webhooks.md, the events table, should read:\n${expected.map((r) => `| ${r.join(' | ')} |`).join('\n')}`,
    ).toEqual(expected);
  });
});

describe('the status words the docs name', () => {
  it('docs/agents.md lists the task, payment and application statuses of src/domain/tasks/states.ts', () => {
    const tasks = tableAfter('docs/agents.md', 'task-statuses').map(([status]) => unquote(status!));
    expect(tasks).toEqual([...TASK_STATUSES]);
    const text = read('docs/agents.md');
    const paragraph = text.slice(
      text.indexOf('<!-- payment-statuses'),
      text.indexOf('\n\n', text.indexOf('<!-- payment-statuses')),
    );
    const [payment, application] = paragraph.split("An application's `status`") as [string, string];
    const words = (part: string) => [...part.matchAll(/`([A-Z_]+)`/g)].map((m) => m[1]);
    expect(words(payment)).toEqual([...PAYMENT_STATUSES]);
    expect(words(application)).toEqual([...APPLICATION_STATUSES]);
  });
});

describe('the configuration docs/configuration.md documents', () => {
  const rows = new Map(
    read('docs/configuration.md')
      .split('\n')
      .filter((line) => line.startsWith('| `'))
      .flatMap((line) => {
        const [names, byDefault] = line.slice(2).split(' | ') as [string, string];
        return [...names.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => [m[1]!, byDefault] as const);
      }),
  );
  const sources = readdirSync(path.join(ROOT, 'src'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => readFileSync(path.join(ROOT, 'src', file), 'utf8'))
    .join('\n');
  /** Variables read outside configuration.md's concern, and where they are documented instead. */
  const ELSEWHERE: Record<string, string> = {
    HANDOFF_API_KEY: 'docs/agents.md', // the stdio MCP server's, documented with it
    HANDOFF_MCP_TOOLSETS: 'docs/agents.md',
    AWS_REGION: 'docs/configuration.md', // S3_REGION's fallback, named in its row
    HANDOFF_FAIL_AT: 'src/domain/failPoint.ts', // fault injection for the crash tests only
  };

  it('every variable the code reads has a row (or is documented where it belongs)', () => {
    const read_ = new Set(
      [
        ...sources.matchAll(/\benv\.([A-Z][A-Z0-9_]+)/g),
        ...sources.matchAll(/\benv\[['"]([A-Z][A-Z0-9_]+)['"]\]/g),
        ...sources.matchAll(/\w+Setting\(\s*env,\s*'([A-Z][A-Z0-9_]+)'/g),
        ...sources.matchAll(/\bsecret\('([A-Z][A-Z0-9_]+)'/g),
      ].map((m) => m[1]!),
    );
    expect(read_.size).toBeGreaterThan(40);
    const missing = [...read_].filter((name) => {
      if (rows.has(name)) return false;
      const elsewhere = ELSEWHERE[name];
      return !elsewhere || !read(elsewhere).includes(name);
    });
    expect(missing, 'variables the code reads that docs/configuration.md lacks').toEqual([]);
  });

  it('every row names a variable the code reads', () => {
    const stale = [...rows.keys()].filter(
      (name) =>
        !new RegExp(`(env\\.${name}\\b|'${name}'|"${name}")`).test(sources) && !name.startsWith('AWS_'),
    );
    expect(stale, 'rows of docs/configuration.md no code reads').toEqual([]);
  });

  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'handoff-docfacts-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('the defaults the table gives are the ones loadConfig applies', () => {
    const { config } = loadConfig({
      DATA_DIR: dataDir,
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
    });
    const { config: bare } = loadConfig({ DATA_DIR: dataDir });
    const defaults: [string, (c: Config) => unknown][] = [
      ['PORT', (c) => c.port],
      ['HOST', (c) => c.host],
      ['REDIS_PREFIX', (c) => c.redisPrefix],
      ['TELEGRAM_API_ROOT', (c) => c.telegramApiRoot],
      ['RATE_LIMIT_STANDARD', (c) => c.rateLimitStandard],
      ['RATE_LIMIT_CHAT', (c) => c.rateLimitChat],
      ['RATE_LIMIT_UPLOAD', (c) => c.rateLimitUpload],
      ['AUTH_FAILURE_LIMIT', (c) => c.authFailureLimit],
      ['TRUST_PROXY', (c) => c.trustProxy],
      ['WEBHOOK_TIMEOUT_MS', (c) => c.webhookTimeoutMs],
      ['API_KEY_CACHE_TTL_MS', (c) => c.apiKeyCacheTtlMs],
      ['SSE_MAX_STREAMS_PER_KEY', (c) => c.sseMaxStreamsPerKey],
      ['HTTP_HEADERS_TIMEOUT_MS', (c) => c.httpLimits.headersTimeoutMs],
      ['HTTP_BODY_TIMEOUT_MS', (c) => c.httpLimits.bodyTimeoutMs],
      ['HTTP_UPLOAD_TIMEOUT_MS', (c) => c.httpLimits.uploadTimeoutMs],
      ['HTTP_MAX_CONNECTIONS_PER_CLIENT', (c) => c.httpLimits.maxConnectionsPerClient],
      ['TON_NETWORK', (c) => c.tonNetwork],
      ['TONCONNECT_WALLETS_URL', (c) => c.tonConnectWalletsUrl],
      ['SHUTDOWN_DELAY_MS', (c) => c.shutdownDelayMs],
      ['LEASE_TTL_MS', (c) => c.leaseTtlMs],
      ['LEASE_SKEW_MS', (c) => c.leaseSkewMs],
      ['OTEL_SERVICE_NAME', (c) => c.otel?.serviceName],
      ['USDT_MIN_DEPOSIT', (c) => c.usdt && formatAmount('USDT', c.usdt.minDepositMicro)],
      ['USDT_MAX_AGENT_DEPOSITS', (c) => c.usdt && formatAmount('USDT', c.usdt.maxAgentDepositedMicro)],
    ];
    const wrong = defaults.flatMap(([name, get]) => {
      const cell = rows.get(name);
      const documented = cell && /^`([^`]*)`/.exec(cell)?.[1];
      return documented === String(get(config)) ? [] : [`${name}: docs say ${cell}, the code ${get(config)}`];
    });
    // What the table calls unset is absent from the configuration.
    const unset: [string, (c: Config) => unknown][] = [
      ['DATABASE_URL', (c) => c.databaseUrl],
      ['REDIS_URL', (c) => c.redisUrl],
      ['S3_BUCKET', (c) => c.s3],
      ['METRICS_TOKEN', (c) => c.metricsToken],
      ['OTEL_EXPORTER_OTLP_ENDPOINT', (c) => c.otel],
    ];
    for (const [name, get] of unset) {
      if (!rows.get(name)?.startsWith('unset') || get(bare) != null)
        wrong.push(`${name}: docs say ${rows.get(name)}`);
    }
    expect(wrong).toEqual([]);
    expect(read('src/main.ts')).toContain(
      `process.env.LOG_LEVEL || '${unquote(rows.get('LOG_LEVEL')!.split(' ')[0]!)}'`,
    );
  });
});

describe('amounts in both currencies', () => {
  /** Wording that makes TON the only currency, from before USDT (issue 41). */
  const TON_ONLY = [
    /pay(?:s|ing)? (?:them|workers|him|her) in TON\b(?! or USDT)/i,
    /decimal TON strings?/i,
    /amounts? (?:are|in) (?:decimal )?TON\b(?! or USDT)/i,
    /in TON only/i,
  ];
  // The spec's own pages are copies kept as they are (docs/decisions.md says so).
  const SPEC_COPIES = new Set(['docs/agent-api.md', 'docs/spec-decisions.md']);
  const pages = [
    'README.md',
    'package.json',
    'src/http/openapi.ts',
    'src/mcp/server.ts',
    ...readdirSync(path.join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`)
      .filter((f) => !SPEC_COPIES.has(f)),
  ];

  it('no page says that amounts are in TON alone', () => {
    const found = pages.flatMap((page) =>
      read(page)
        .split('\n')
        .flatMap((line, i) =>
          TON_ONLY.some((re) => re.test(line)) ? [`${page}:${i + 1}: ${line.trim()}`] : [],
        ),
    );
    expect(found).toEqual([]);
  });
});
