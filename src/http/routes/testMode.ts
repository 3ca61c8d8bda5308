import { Type } from 'typebox';
import { findAgent } from '../../db/repositories/agents.js';
import { testKeyRequired } from '../../domain/agents/testMode.js';
import { formatAmount } from '../../domain/money/currency.js';
import { TEST_FAUCET_LIMITS, testFaucet } from '../../domain/money/testFaucet.js';
import { AGENT_SECURITY, type Routes } from '../routeTypes.js';
import { Balances, Transaction } from '../schemas/agent.js';
import { AmountInput, Currency, errors, example } from '../schemas/common.js';
import { balancesView, transactionView } from '../views.js';

const tags = ['Test mode'];
const security = AGENT_SECURITY;

const limitsText = (['TON', 'USDT'] as const)
  .map(
    (c) =>
      `${formatAmount(c, TEST_FAUCET_LIMITS[c].perCall)} ${c} a call and ${formatAmount(c, TEST_FAUCET_LIMITS[c].perDay)} ${c} in any 24 hours`,
  )
  .join('; ');

const FAUCET_EXAMPLE = {
  transaction: {
    id: 'txn_01jq7v01x4m2c8w6t0r9b5k3n1p7',
    type: 'TEST_FAUCET' as const,
    amount: '100',
    currency: 'TON' as const,
    fromAddress: null,
    toAddress: null,
    txHash: 'test:txn_01jq7v01x4m2c8w6t0r9b5k3n1p7',
    status: 'confirmed',
    createdAt: '2026-03-14T09:30:00.000Z',
    task: null,
  },
  balances: {
    TON: { balance: '100', lockedByTasks: '0', lowBalanceThreshold: null },
    USDT: { balance: '0', lockedByTasks: '0', lowBalanceThreshold: null },
  },
};

/**
 * Test mode's own routes (issue 37, docs/decisions/test-mode.md): only test keys (`hr_test_...`)
 * reach them; a live key gets 403 saying what a test key looks like.
 */
export const testModeRoutes: Routes = async (app, { ctx }) => {
  // Before the body is read: a live key gets its 403 whatever it sent.
  app.addHook('onRequest', async (request) => {
    if (request.apiKey?.livemode !== false) throw testKeyRequired();
  });

  app.post(
    '/test/faucet',
    {
      schema: {
        tags,
        security,
        operationId: 'testFaucet',
        summary: 'Test money: credits your test balance at once (test keys only)',
        description: `Credits the test balance of the calling test key's agent at once, with a TEST_FAUCET ledger row (txHash test:<id>) and no chain. At most ${limitsText}. A live key gets 403.`,
        body: example(
          Type.Object({
            amount: AmountInput,
            currency: Type.Optional({ ...Currency, description: 'TON (default) or USDT' }),
          }),
          { amount: '100', currency: 'TON' },
        ),
        response: {
          201: example(Type.Object({ transaction: Transaction, balances: Balances }), FAUCET_EXAMPLE),
          ...errors(400, 401, 403, {
            403: {
              error:
                'This route is for test keys only: test keys start with hr_test_ (POST /admin/agents answers one as testApiKey; owners create them in the console with {"mode": "test"})',
            },
            409: {
              error:
                'The test faucet gives at most 10,000 TON a day per agent; 9,950 TON given in the last 24 hours. Retry later or ask for less',
            },
          }),
        },
      },
    },
    async (request, reply) => {
      const row = await testFaucet(ctx, request.agentId, request.body);
      const agent = (await findAgent(ctx.db, request.agentId))!;
      return reply
        .status(201)
        .send({ transaction: transactionView({ ...row, task_title: null }), balances: balancesView(agent) });
    },
  );
};
