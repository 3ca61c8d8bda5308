import { Type } from 'typebox';
import {
  DISPUTE_REASON_MAX,
  STATEMENT_ATTACHMENTS_MAX,
  STATEMENT_TEXT_MAX,
  STATEMENTS_PER_SIDE_MAX,
} from '../../domain/disputes/disputeLimits.js';
import { Amount, Currency, Nullable, nameSchemas, Timestamp } from './common.js';

export const DisputeParty = Type.Enum(['AGENT', 'WORKER']);

export const DisputeAttachment = Type.Object({
  fileUrl: Type.String({ description: 'The uploaded file (GET it with the same credentials)' }),
  name: Type.String(),
  contentType: Type.String(),
  size: Type.Integer({ description: 'Bytes' }),
});

export const DisputeResolution = Type.Object({
  workerAmount: {
    ...Amount,
    description: 'Sent to the worker’s wallet on chain, in the task’s currency (`currency`)',
  },
  platformFee: {
    ...Amount,
    description:
      'The platform fee in proportion: fee x workerAmount / reward, rounded down to the currency’s smallest unit',
  },
  agentAmount: { ...Amount, description: 'Returned to the agent’s balance: the rest of the escrowed total' },
  note: Type.String({ description: 'The operator’s explanation to both sides' }),
  resolvedAt: Timestamp,
  currency: Currency,
});

export const DisputeStatement = Type.Object({
  by: DisputeParty,
  text: Type.String(),
  attachments: Type.Array(DisputeAttachment),
  createdAt: Timestamp,
});

export const Dispute = Type.Object({
  id: Type.String({ description: 'Dispute id (dsp_...)' }),
  status: Type.Enum(['OPEN', 'RESOLVED']),
  openedBy: DisputeParty,
  reason: Type.String(),
  statements: Type.Array(DisputeStatement, { description: 'Evidence from both sides, oldest first' }),
  resolution: Nullable(DisputeResolution),
});

export const OpenDisputeBody = Type.Object({
  reason: Type.String({
    minLength: 1,
    maxLength: DISPUTE_REASON_MAX,
    description: `What is wrong, for the operator who judges (1 to ${DISPUTE_REASON_MAX} characters)`,
  }),
});

export const StatementBody = Type.Object({
  text: Type.String({
    minLength: 1,
    maxLength: STATEMENT_TEXT_MAX,
    description: `Your side, 1 to ${STATEMENT_TEXT_MAX} characters; at most ${STATEMENTS_PER_SIDE_MAX} statements per side`,
  }),
  attachments: Type.Optional(
    Type.Array(Type.String({ maxLength: 2000 }), {
      maxItems: STATEMENT_ATTACHMENTS_MAX,
      description: `Up to ${STATEMENT_ATTACHMENTS_MAX} fileUrls of your own uploads (POST /upload first)`,
    }),
  ),
});

export const StatementResult = Type.Object({ statement: DisputeStatement, dispute: Dispute });

nameSchemas({
  DisputeAttachment,
  DisputeResolution,
  DisputeStatement,
  Dispute,
  OpenDisputeBody,
  StatementBody,
});
