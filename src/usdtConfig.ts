import { Address } from '@ton/core';
import type { ChainGateway, TonNetwork } from './chain/gateway.js';
import { AmountFormatError, parseUnits } from './domain/money/money.js';

/** The official USDT (Tether) jetton master on TON mainnet. */
export const MAINNET_USDT_MASTER = 'EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs';

/**
 * What the configuration says about USDT (issue 29): which master the network gateway opens as
 * USDT, and the USDT deposit limits. Whether USDT is on is not decided here but by the chain
 * gateway (`usdtOnChain`).
 */
export interface UsdtConfig {
  /**
   * The USDT jetton master the network gateway opens (TON_USDT_MASTER; mainnet: the official one
   * by default). Null on testnet without TON_USDT_MASTER, and in the sandbox, which deploys its own.
   */
  master: string | null;
  /** The smallest USDT deposit credited, in micro-USDT (USDT_MIN_DEPOSIT). */
  minDepositMicro: bigint;
  /** The most USDT one agent may have deposited in all, in micro-USDT (USDT_MAX_AGENT_DEPOSITS). */
  maxAgentDepositedMicro: bigint;
}

/** Whether the books take USDT and which jetton is USDT, as the app holds it (`ctx.usdt`). */
export interface UsdtSettings extends UsdtConfig {
  /**
   * USDT tasks, deposits and balances are accepted. Off, every USDT request is a 400 "USDT is not
   * enabled". On exactly when the chain gateway has a jetton (`ChainGateway.jetton`).
   */
  enabled: boolean;
  /** The USDT master the chain gateway holds (the sandbox: its own "USDT (sandbox)"); null when off. */
  master: string | null;
  /** Why USDT is off, for the one start-log line main.ts writes; absent when it is on. */
  disabledReason?: string;
}

const MICRO = 1_000_000n;
export const USDT_DEFAULTS = {
  minDepositMicro: MICRO / 100n,
  maxAgentDepositedMicro: 1_000_000_000n * MICRO,
} as const;

type Env = Record<string, string | undefined>;

/**
 * TON_USDT_MASTER (mainnet: the official master by default; testnet: required for USDT; the
 * sandbox deploys its own and ignores it), USDT_MIN_DEPOSIT and USDT_MAX_AGENT_DEPOSITS.
 */
export function usdtSettings(env: Env, network: TonNetwork): UsdtConfig {
  const given = env.TON_USDT_MASTER?.trim() || null;
  if (given) {
    try {
      Address.parse(given);
    } catch {
      throw new Error(`TON_USDT_MASTER is not a valid TON address: "${given}"`);
    }
  }
  return {
    master: network === 'sandbox' ? null : (given ?? (network === 'mainnet' ? MAINNET_USDT_MASTER : null)),
    minDepositMicro: usdtSetting(env, 'USDT_MIN_DEPOSIT', USDT_DEFAULTS.minDepositMicro),
    maxAgentDepositedMicro: usdtSetting(env, 'USDT_MAX_AGENT_DEPOSITS', USDT_DEFAULTS.maxAgentDepositedMicro),
  };
}

/**
 * The one USDT switch: on exactly when the chain gateway has a jetton (the sandbox always, with
 * its own master; a network when a master is configured), and `master` is the gateway's. Derived,
 * never configured on its own, so the books can never take USDT the chain cannot move, nor name
 * a master other than the one the chain layer pays and credits in. Off, `disabledReason` is the
 * start-log line (an info line, not a config warning: a service that takes only TON is
 * configured as intended).
 */
export function usdtOnChain(
  config: UsdtConfig | undefined,
  chain: Pick<ChainGateway, 'network' | 'jetton'>,
): UsdtSettings {
  const limits = {
    minDepositMicro: config?.minDepositMicro ?? USDT_DEFAULTS.minDepositMicro,
    maxAgentDepositedMicro: config?.maxAgentDepositedMicro ?? USDT_DEFAULTS.maxAgentDepositedMicro,
  };
  const jetton = chain.jetton;
  if (jetton) return { enabled: true, master: jetton.masterAddress, ...limits };
  const why =
    chain.network === 'testnet'
      ? 'TON_USDT_MASTER is not set (on testnet it names the test USDT jetton master)'
      : 'the chain gateway has no USDT jetton master';
  return {
    enabled: false,
    master: null,
    ...limits,
    disabledReason: `USDT is not enabled: ${why}; USDT requests are answered 400`,
  };
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
