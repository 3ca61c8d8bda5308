import { beginCell } from '@ton/core';
import { findAgent } from '../../db/repositories/agents.js';
import { balanceOf } from '../../db/repositories/balances.js';
import { depositInstructionsIn } from '../chain/chainDeposits.js';
import type { DomainContext } from '../context.js';
import { notFound } from '../errors.js';
import { formatAmount, requestedCurrency } from './currency.js';

/**
 * Where an agent's top-ups go: the platform's deposit wallet, with the agent id as the transfer's
 * text comment (the memo that says whose deposit it is).
 */
export async function depositInfo(ctx: DomainContext, agentId: string, currencyField?: string) {
  const currency = requestedCurrency(ctx.usdt, 'currency', currencyField);
  const agent = await findAgent(ctx.db, agentId);
  if (!agent) throw notFound('Agent');
  const sandbox = ctx.chain.network === 'sandbox';
  const { minimumNano, ...where } = depositInstructionsIn(ctx, agentId, currency);
  const balance = balanceOf(agent, currency);
  return {
    deposit: { ...where, minimum: formatAmount(currency, minimumNano), currency },
    balance: formatAmount(currency, balance.balance),
    lockedByTasks: formatAmount(currency, balance.locked),
    instructions:
      currency === 'USDT'
        ? `Send USDT (the jetton of master ${ctx.usdt.master}) to ${ctx.chain.depositAddress} with the text comment ${agentId} in the transfer's forward payload; a transfer without it cannot be credited to you.`
        : sandbox
          ? 'This service runs on the local TON sandbox: the operator tops you up (POST /admin/agents/{id}/deposits ' +
            'or `npm run cli -- deposit <agentId> <amount>`), which sends a real sandbox transfer to this address ' +
            'with your memo and credits what the chain shows arrived.'
          : `Send TON to ${ctx.chain.depositAddress} with the text comment ${agentId}; a transfer without it cannot be credited to you.`,
  };
}

/** The memo as a text-comment cell (op 0 + UTF-8), base64 BOC: TON Connect's message payload. */
export function commentPayload(memo: string): string {
  return beginCell().storeUint(0, 32).storeStringTail(memo).endCell().toBoc().toString('base64');
}
