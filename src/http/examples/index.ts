import { agentExamples } from './agent.js';
import { chatExamples } from './chat.js';
import { operatorExamples } from './operator.js';
import { tasksExamples } from './tasks.js';
import type { OperationExamples } from './types.js';
import { webhooksExamples } from './webhooks.js';
import { workerExamples } from './worker.js';

/** Every operation's examples kept here, by operationId. */
export const OPERATION_EXAMPLES: Record<string, OperationExamples> = {
  ...agentExamples,
  ...chatExamples,
  ...operatorExamples,
  ...tasksExamples,
  ...webhooksExamples,
  ...workerExamples,
};
