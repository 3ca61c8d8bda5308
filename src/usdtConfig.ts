import { Address } from '@ton/core';
import type { TonNetwork } from './chain/gateway.js';
import { AmountFormatError, parseUnits } from './domain/money.js';

/** The official USDT (Tether) jetton master on TON mainnet. */
export const MAINNET_USDT_MASTER = 'EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs';

/** Whether the books take USDT, which jetton is USDT, and the USDT deposit limits (issue 29). */
export interface UsdtSettings {
  /**
   * USDT tasks, deposits and balances are accepted. Off, every USDT request is a 400 "USDT is not
   * enabled". It needs a master and the jetton chain layer (deposits by jetton transfer, jetton
   * payouts); until that layer is wired, `JETTON_CHAIN_WIRED` below keeps it off, and tests turn
   * it on through the config to exercise the books.
   */
  enabled: boolean;
  /** The USDT jetton master (TEP-74): only transfers of its jetton wallets count as USDT. */
  master: string | null;
  /** Why USDT is off, for the one start-log line main.ts writes; null when it is on. */
  disabledReason?: string | null;
  /** The smallest USDT deposit credited, in micro-USDT (USDT_MIN_DEPOSIT). */
  minDepositMicro: bigint;
  /** The most USDT one agent may have deposited in all, in micro-USDT (USDT_MAX_AGENT_DEPOSITS). */
  maxAgentDepositedMicro: bigint;
}

/**
 * False until the lead wires the jetton chain layer (the chain helper's sandbox jetton master,
 * jetton deposits and jetton payouts): then it goes, and `enabled` follows the master alone.
 */
const JETTON_CHAIN_WIRED = false;

const MICRO = 1_000_000n;
export const USDT_DEFAULTS = {
  minDepositMicro: MICRO / 100n,
  maxAgentDepositedMicro: 1_000_000_000n * MICRO,
} as const;

/** Off, with the defaults: what an app built without USDT settings (most tests) gets. */
export const USDT_OFF: UsdtSettings = { enabled: false, master: null, ...USDT_DEFAULTS };

type Env = Record<string, string | undefined>;

/**
 * TON_USDT_MASTER (mainnet: the official master by default; testnet: required for USDT; the
 * sandbox deploys its own), USDT_MIN_DEPOSIT and USDT_MAX_AGENT_DEPOSITS. A reason USDT is off
 * is kept in `disabledReason`: main.ts logs it as one line at start (an info line, not a config
 * warning: a service that takes only TON is configured as intended).
 */
export function usdtSettings(env: Env, network: TonNetwork): UsdtSettings {
  const given = env.TON_USDT_MASTER?.trim() || null;
  if (given) {
    try {
      Address.parse(given);
    } catch {
      throw new Error(`TON_USDT_MASTER is not a valid TON address: "${given}"`);
    }
  }
  const master = given ?? (network === 'mainnet' ? MAINNET_USDT_MASTER : null);
  const settings: UsdtSettings = {
    enabled: false,
    master,
    minDepositMicro: usdtSetting(env, 'USDT_MIN_DEPOSIT', USDT_DEFAULTS.minDepositMicro),
    maxAgentDepositedMicro: usdtSetting(env, 'USDT_MAX_AGENT_DEPOSITS', USDT_DEFAULTS.maxAgentDepositedMicro),
  };
  const reason = !JETTON_CHAIN_WIRED
    ? 'the jetton chain layer (USDT deposits and payouts) is not part of this build yet'
    : network === 'testnet' && !master
      ? 'TON_USDT_MASTER is not set (on testnet it names the test USDT jetton master)'
      : null;
  if (reason) settings.disabledReason = `USDT is not enabled: ${reason}; USDT requests are answered 400`;
  else settings.enabled = network === 'sandbox' || master !== null;
  return settings;
}

function usdtSetting(env: Env, name: string, fallback: bigint): bigint {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  try {
    const micro = parseUnits(raw, 6, 'USDT');
    if (micro > 0n) return micro;
  } catch (error) {
    if (!(error instanceof AmountFormatError)) throw error;
  }
  throw new Error(
    `${name} must be a positive USDT amount with at most 6 decimals, such as "1.5"; got "${raw}"`,
  );
}
