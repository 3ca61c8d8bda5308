import { Address } from '@ton/core';
import { formatAddress } from '../../chain/address.js';
import { jettonWalletDeriver } from '../../chain/jetton/contracts.js';
import type { JettonGateway } from '../../chain/jetton/gateway.js';
import { jettonTransferBody } from '../../chain/jetton/messages.js';
import { parseDepositAmount } from '../agents/agents.js';
import { usdtDepositWallet } from '../chain/usdtWallet.js';
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
 * master and the amount's limits are the ones the watcher will check. `ownerWallet` is the
 * signed-in owner's own wallet.
 */
export async function usdtTopUpMessage(
  ctx: DomainContext,
  agentId: string,
  input: { amount: string | number; from: string },
  ownerWallet: string,
) {
  requestedCurrency(ctx.usdt, 'currency', 'USDT');
  const amount = parseDepositAmount(ctx, input.amount, 'USDT');
  const sender = parseSender(input.from);
  const jetton = ctx.chain.jetton;
  if (!jetton)
    throw conflict('USDT top-ups need the USDT jetton on the chain, which this service does not have');
  const senderJettonWallet = await senderJettonWalletOf(ctx, jetton, sender, ownerWallet);
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

/**
 * The sender's jetton wallet, computed here rather than asked of the master: every provider
 * request counts against the budget the deposit watcher and the payout sender share, and `from`
 * is anything the caller types, so asking per `from` let anyone with a console account delay
 * deposits and payouts by repeating this request. The derivation is checked against the one
 * answer the watcher needs anyway (the deposit address's jetton wallet, kept in chain_state).
 * A master it does not fit (not the stablecoin contract) is asked only for the owner's own
 * signed-in wallet, which the gateway caches: one request per owner, never per `from`.
 */
async function senderJettonWalletOf(
  ctx: DomainContext,
  jetton: JettonGateway,
  sender: Address,
  ownerWallet: string,
): Promise<string> {
  const master = Address.parse(jetton.masterAddress);
  const known = {
    owner: Address.parse(ctx.chain.depositAddress),
    wallet: await usdtDepositWallet(ctx, jetton),
  };
  const derive = jettonWalletDeriver(master, known);
  if (derive) return formatAddress(derive(sender), ctx.chain.network);
  if (!sender.equals(Address.parse(ownerWallet)))
    throw invalid('from', 'must be the wallet you signed in with: send the top-up from that wallet');
  return jetton.walletAddress(sender.toString());
}

function parseSender(from: string): Address {
  try {
    return Address.parse(from);
  } catch {
    throw invalid('from', 'must be a TON address (the wallet connected through TON Connect)');
  }
}
