import { Address } from '@ton/core';
import { jettonTransferBody } from '../../chain/jetton/messages.js';
import { parseDepositAmount } from '../agents/agents.js';
import type { DomainContext } from '../context.js';
import { conflict, invalid } from '../errors.js';
import { requestedCurrency } from '../money/currency.js';

/**
 * TON the owner's wallet attaches to the jetton transfer: its own jetton wallet spends part on
 * gas and forwarding, the deposit address's jetton wallet the rest, and what is left comes back
 * to the owner (response destination) as excesses. 0.05 TON is what wallet apps attach.
 */
export const USDT_TOP_UP_ATTACHED_NANO = 50_000_000n;
/** The forward amount that makes the deposit address's jetton wallet notify it (with the memo). */
export const USDT_TOP_UP_FORWARD_NANO = 1n;

/**
 * A USDT top-up as one TON Connect message the owner's wallet signs: a TEP-74 transfer sent to
 * the SENDER's own jetton wallet (which moves the jettons), paying `amount` to the deposit
 * address with the agent's memo as the forward payload's text comment, the one thing the
 * deposit watcher credits by. Built here rather than in the page so the memo, the real USDT
 * master and the amount's limits are the ones the watcher will check.
 */
export async function usdtTopUpMessage(
  ctx: DomainContext,
  agentId: string,
  input: { amount: string | number; from: string },
) {
  requestedCurrency(ctx.usdt, 'currency', 'USDT');
  const amount = parseDepositAmount(ctx, input.amount, 'USDT');
  const sender = parseSender(input.from);
  const jetton = ctx.chain.jetton;
  if (!jetton)
    throw conflict('USDT top-ups need the USDT jetton on the chain, which this service does not have');
  const senderJettonWallet = await jetton.walletAddress(sender.toString());
  const body = jettonTransferBody({
    queryId: 0n,
    amount,
    destination: Address.parse(ctx.chain.depositAddress),
    responseDestination: sender,
    forwardTonNano: USDT_TOP_UP_FORWARD_NANO,
    comment: agentId,
  });
  return {
    address: senderJettonWallet,
    amount: USDT_TOP_UP_ATTACHED_NANO.toString(),
    payload: body.toBoc().toString('base64'),
  };
}

function parseSender(from: string): Address {
  try {
    return Address.parse(from);
  } catch {
    throw invalid('from', 'must be a TON address (the wallet connected through TON Connect)');
  }
}
