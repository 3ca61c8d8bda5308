import { Type } from 'typebox';
import type { TaskRow } from '../../db/repositories/executor.js';
import { formatAmount, rowCurrency } from '../../domain/money/currency.js';
import {
  approveHeld,
  MODERATION_NOTE_MAX,
  moderationQueue,
  OPERATOR_NAME_MAX,
  rejectHeld,
} from '../../domain/trust/moderationQueue.js';
import { reloadScreeningRules } from '../../domain/trust/screeningReload.js';
import { pageView } from '../pageView.js';
import { ADMIN_SECURITY, type Routes } from '../routeTypes.js';
import {
  Amount,
  Currency,
  errors,
  example,
  Limit,
  NextCursor,
  Nullable,
  Timestamp,
} from '../schemas/common.js';
import { TaskStatus } from '../schemas/task.js';

const tags = ['Operator'];
const security = ADMIN_SECURITY;

const TaskIdParam = Type.Object({ taskId: Type.String({ maxLength: 100 }) });
const TASK_ID = 'tsk_01jq7v01x4m2c8w6t0r9b5k3n1p7';
const AGENT_ID = 'agt_01jq7v01x4m2c8w6t0r9b5k3n1p7';
const AT = '2030-01-02T10:00:00.000Z';

const HeldTask = Type.Object({
  task: Type.Object({
    id: Type.String(),
    title: Type.String(),
    description: Type.String(),
    status: TaskStatus,
    currency: Currency,
    reward: Amount,
    totalAmount: { ...Amount, description: 'Escrowed: what a rejection refunds' },
    offeredTo: Nullable(Type.String({ description: 'The worker of a held direct offer' })),
    createdAt: Timestamp,
  }),
  agent: Type.Object({ id: Type.String(), name: Nullable(Type.String()) }),
  rule: Type.String({ description: 'The screening rule (or classifier) that held the task' }),
  ageSeconds: Type.Integer({ description: 'Seconds the task has waited' }),
});

const Operator = Type.Optional(
  Type.String({
    maxLength: OPERATOR_NAME_MAX,
    description: 'Who decides (kept in the moderation log); "admin" when left out',
  }),
);

const Decided = Type.Object({
  task: Type.Object({
    id: Type.String(),
    status: TaskStatus,
    paymentStatus: Type.String(),
    moderation: Type.Object({ status: Type.Enum(['APPROVED', 'REJECTED']), rule: Type.String() }),
  }),
  refund: Nullable(
    Type.Object({ amount: Amount, currency: Currency, destination: Type.Literal('agent_balance') }),
  ),
});

const ALREADY = {
  error: 'The task was already approved by review; reload the queue',
  currentStatus: 'FUNDED',
  moderation: 'APPROVED',
};

const RulesStatus = Type.Object({
  file: Type.String({ description: 'The rules file this instance reads (SCREENING_RULES_FILE)' }),
  version: Type.String({ description: 'The file’s "version"' }),
  rules: Type.Integer({ description: 'How many rules are in force' }),
  loadedAt: Timestamp,
});

/** The operators' moderation queue (issue 39): held tasks and the decision on each. */
export const adminModerationRoutes: Routes = async (app, { ctx }) => {
  app.post(
    '/admin/screening/reload',
    {
      schema: {
        tags,
        security,
        operationId: 'adminReloadScreening',
        summary:
          'Read the screening rules file again, on this instance (send SIGHUP or call each instance); a bad file keeps the rules in force (400 says what to fix)',
        response: {
          200: example(RulesStatus, {
            file: '/etc/handoff/screening-rules.json',
            version: '2030-01-02',
            rules: 24,
            loadedAt: AT,
          }),
          ...errors(401, {
            400: {
              error:
                'The rules file was not loaded: rule follow-person: "action" must be refuse or hold. Fix the file and reload again; until then the rules loaded at 2030-01-02T10:00:00.000Z (version 2030-01-01, 24 rules) stay in force',
              kept: { version: '2030-01-01', rules: 24, loadedAt: AT },
            },
            409: 'Screening is not configured on this instance',
          }),
        },
      },
    },
    async () => reloadScreeningRules(ctx),
  );

  app.get(
    '/admin/moderation',
    {
      schema: {
        tags,
        security,
        operationId: 'adminListModeration',
        summary: 'Tasks screening held (no worker sees them), oldest first, with the rule that held each',
        querystring: Type.Object({
          limit: Limit(20, 100),
          cursor: Type.Optional(Type.String({ maxLength: 400 })),
        }),
        response: {
          200: example(
            Type.Object({ tasks: Type.Array(HeldTask), nextCursor: NextCursor, hasMore: Type.Boolean() }),
            {
              tasks: [
                {
                  task: {
                    id: TASK_ID,
                    title: 'Climb onto the roof and film the sunset',
                    description: 'Details in the chat',
                    status: 'FUNDED',
                    currency: 'TON',
                    reward: '5',
                    totalAmount: '6.5',
                    offeredTo: null,
                    createdAt: AT,
                  },
                  agent: { id: AGENT_ID, name: 'Roof films' },
                  rule: 'dangerous-acts',
                  ageSeconds: 3600,
                },
              ],
              nextCursor: null,
              hasMore: false,
            },
          ),
          ...errors(400, 401),
        },
      },
    },
    async (request) => {
      const result = await moderationQueue(ctx, request.query);
      const nowMs = ctx.clock.now().getTime();
      return pageView(result, 'tasks', (row) => ({
        task: {
          id: row.id,
          title: row.title,
          description: row.description,
          status: row.status,
          currency: rowCurrency(row.currency),
          reward: formatAmount(rowCurrency(row.currency), row.reward_nano),
          totalAmount: formatAmount(rowCurrency(row.currency), row.total_nano),
          offeredTo: row.status === 'OFFERED' ? row.worker_id : null,
          createdAt: row.created_at,
        },
        agent: { id: row.agent_id, name: row.agent_name },
        rule: row.moderation_rule ?? '',
        ageSeconds: Math.max(0, Math.floor((nowMs - Date.parse(row.created_at)) / 1000)),
      }));
    },
  );

  app.post(
    '/admin/moderation/:taskId/approve',
    {
      schema: {
        tags,
        security,
        operationId: 'adminApproveHeldTask',
        summary: 'Approve a held task: workers see it from now on (a held direct offer reaches its worker)',
        params: TaskIdParam,
        body: example(
          Type.Object({
            note: Type.Optional(Type.String({ maxLength: MODERATION_NOTE_MAX })),
            operator: Operator,
          }),
          { note: 'Filming from a roof terrace with railings', operator: 'maria' },
        ),
        response: {
          200: example(Decided, {
            task: {
              id: TASK_ID,
              status: 'FUNDED',
              paymentStatus: 'DEPOSITED',
              moderation: { status: 'APPROVED', rule: 'dangerous-acts' },
            },
            refund: null,
          }),
          ...errors(400, 401, { 404: 'Task not found', 409: ALREADY }),
        },
      },
    },
    async (request) => decided(await approveHeld(ctx, request.params.taskId, request.body ?? {})),
  );

  app.post(
    '/admin/moderation/:taskId/reject',
    {
      schema: {
        tags,
        security,
        operationId: 'adminRejectHeldTask',
        summary:
          'Reject a held task: cancelled, its whole total back to the agent’s balance (as a refund), task.rejected_by_review sent',
        params: TaskIdParam,
        body: example(
          Type.Object({
            reason: Type.String({
              minLength: 1,
              maxLength: MODERATION_NOTE_MAX,
              description: 'Why; the agent reads it',
            }),
            operator: Operator,
          }),
          { reason: 'Work at height without safety equipment', operator: 'maria' },
        ),
        response: {
          200: example(Decided, {
            task: {
              id: TASK_ID,
              status: 'CANCELLED',
              paymentStatus: 'REFUNDED',
              moderation: { status: 'REJECTED', rule: 'dangerous-acts' },
            },
            refund: { amount: '6.5', currency: 'TON', destination: 'agent_balance' },
          }),
          ...errors(400, 401, { 404: 'Task not found', 409: ALREADY }),
        },
      },
    },
    async (request) => decided(await rejectHeld(ctx, request.params.taskId, request.body)),
  );
};

function decided(task: TaskRow) {
  const currency = rowCurrency(task.currency);
  const rejected = task.moderation_status === 'REJECTED';
  return {
    task: {
      id: task.id,
      status: task.status,
      paymentStatus: task.payment_status,
      moderation: {
        status: rejected ? ('REJECTED' as const) : ('APPROVED' as const),
        rule: task.moderation_rule ?? '',
      },
    },
    refund: rejected
      ? { amount: formatAmount(currency, task.total_nano), currency, destination: 'agent_balance' as const }
      : null,
  };
}
