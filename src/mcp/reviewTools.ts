import { requestRevision } from '../domain/trust/revisions.js';
import { listSubmissionsForAgent, submissionView } from '../domain/trust/submissions.js';
import { revisionView } from '../http/views.js';
import { READ_ONLY, type ToolDef, writes } from './tool.js';

const TASK_ID = { id: 'taskId' };

/** Reviewing submitted work (issue 25); complete_task approves, the disputes work adds its own. */
export const reviewTools: ToolDef[] = [
  {
    name: 'list_submissions',
    title: 'List submitted work',
    description:
      'The work submitted for your task, newest first: note, files, location (withinArea) and status. ' +
      'Approve a PENDING one with complete_task or ask for changes with request_revision before the task’s ' +
      'reviewDeadline: after it the work is approved and paid automatically.',
    route: 'GET /tasks/:id/submissions',
    rename: TASK_ID,
    annotations: READ_ONLY,
    run: async (env, args) => ({
      submissions: (await listSubmissionsForAgent(env.ctx, env.agentId, args.taskId)).map(submissionView),
    }),
  },
  {
    name: 'request_revision',
    title: 'Request a revision',
    description:
      'Send the PENDING submission back with what to change (reason). The task returns to IN_PROGRESS, the ' +
      'review clock stops, the worker gets at least 24 hours more. At most 3 per task. A repeat is refused ' +
      'once nothing waits for review.',
    route: 'POST /tasks/:id/revisions',
    rename: TASK_ID,
    keyed: { view: revisionView },
    annotations: writes({ destructive: false, idempotent: false }),
    run: (env, args) => requestRevision(env.ctx, env.agentId, args.taskId, args.reason),
  },
];
