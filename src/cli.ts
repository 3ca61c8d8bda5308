import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { signInitData } from './telegram/initData.js';

/**
 * Operator CLI. It talks to the running server's operator API (never to the database or chain
 * files directly), so it is safe while the server runs and works the same against production.
 */
const USAGE = `Usage: npm run cli -- <command> [options]

Commands:
  create-agent [--name NAME]        create an agent; prints its id, API key and test key (shown once)
  deposit <agentId> <amount> [USDT] top up an agent with <amount> TON (sandbox: a real chain transfer), or USDT
  agent <agentId>                   show an agent's balance
  audit                             recompute all balances from the ledger and report problems
  reconcile                         compare the books with the hot wallet's history (testnet/mainnet):
                                    deposits booked once, no foreign outgoing transfer, no payout
                                    pending over an hour; exits 1 when there is a difference
  chain                             the chain's state: hot wallet, watcher, transfers, provider errors
  worker-init-data --telegram-id N [--first-name NAME] [--username NAME]
                                    development: print Mini App init data for the worker API
                                    (signed with TELEGRAM_BOT_TOKEN; use as "Authorization: tma <it>")

Options:
  --url URL      server address (else $HANDOFF_URL, $PUBLIC_URL, http://localhost:$PORT, or
                 http://localhost:3000); every command says which on stderr
  ADMIN_TOKEN and TELEGRAM_BOT_TOKEN come from the environment, else from DATA_DIR/secrets.`;

function secret(name: string): string {
  const fromEnv = process.env[name];
  if (fromEnv) return fromEnv;
  const file = path.join(path.resolve(process.env.DATA_DIR || './data'), 'secrets', name);
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    throw new Error(`${name} is not set and ${file} does not exist; start the server once or set ${name}`);
  }
}

async function call(url: string, method: string, pathname: string, body?: unknown): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(`${url}${pathname}`, {
      method,
      headers: { authorization: `Bearer ${secret('ADMIN_TOKEN')}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new Error(`Cannot reach the server at ${url}; is it running (npm start)?`);
  }
  const json = (await res.json()) as { error?: string };
  if (!res.ok) throw new Error(`${res.status}: ${json.error ?? 'request failed'} ${JSON.stringify(json)}`);
  return json;
}

/**
 * The server the CLI talks to, and why that one: --url, HANDOFF_URL, PUBLIC_URL, PORT, or the
 * default port. Said on every run: a shell without PORT once reached port 3000 silently.
 */
function serverOf(flag: string | undefined): { url: string; source: string } {
  const env = process.env;
  const [url, source] = flag
    ? [flag, '--url']
    : env.HANDOFF_URL
      ? [env.HANDOFF_URL, 'HANDOFF_URL']
      : env.PUBLIC_URL
        ? [env.PUBLIC_URL, 'PUBLIC_URL']
        : env.PORT
          ? [`http://localhost:${env.PORT}`, 'PORT']
          : ['http://localhost:3000', 'the default: set --url or HANDOFF_URL to choose another server'];
  return { url: url.replace(/\/+$/, ''), source };
}

async function main(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      url: { type: 'string' },
      name: { type: 'string' },
      'telegram-id': { type: 'string' },
      'first-name': { type: 'string' },
      username: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [command, ...args] = positionals;
  const { url, source } = serverOf(values.url);
  // On stderr, so the JSON on stdout stays pipeable; only for the commands that call the server.
  if (command && command !== 'worker-init-data' && !values.help) {
    console.error(`Operator API: ${url} (${source})`);
  }
  const print = (value: unknown) => console.log(JSON.stringify(value, null, 2));
  switch (command) {
    case 'create-agent':
      return print(await call(url, 'POST', '/admin/agents', values.name ? { name: values.name } : {}));
    case 'deposit':
      if (args.length !== 2 && args.length !== 3)
        throw new Error('deposit needs <agentId> <amount> [TON|USDT]');
      return print(
        await call(url, 'POST', `/admin/agents/${encodeURIComponent(args[0]!)}/deposits`, {
          amount: args[1],
          // `deposit <agentId> <amount> USDT`: the sandbox USDT faucet.
          ...(args[2] ? { currency: args[2] } : {}),
        }),
      );
    case 'agent':
      if (args.length !== 1) throw new Error('agent needs <agentId>');
      return print(await call(url, 'GET', `/admin/agents/${encodeURIComponent(args[0]!)}`));
    case 'audit':
      return print(await call(url, 'GET', '/admin/audit'));
    case 'chain':
      return print(await call(url, 'GET', '/admin/chain'));
    case 'reconcile': {
      const report = (await call(url, 'GET', '/admin/reconciliation')) as { ok: boolean };
      print(report);
      if (!report.ok) process.exitCode = 1;
      return;
    }
    case 'worker-init-data': {
      const id = Number(values['telegram-id']);
      if (!Number.isSafeInteger(id) || id <= 0)
        throw new Error('worker-init-data needs --telegram-id <positive integer>');
      const user = { id, first_name: values['first-name'] || 'Dev', username: values.username };
      console.log(signInitData(user, secret('TELEGRAM_BOT_TOKEN'), new Date()));
      return;
    }
    default:
      console.log(USAGE);
      if (command && !values.help) process.exitCode = 1;
  }
}

main(process.argv.slice(2)).catch((error: Error) => {
  console.error(error.message);
  process.exit(1);
});
