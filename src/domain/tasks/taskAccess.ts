import type { Executor, TaskRow } from '../../db/repositories/executor.js';
import { findTask } from '../../db/repositories/tasks.js';
import { accessDenied, notFound } from '../errors.js';
import { isIdOf } from '../ids.js';

/** The task, when it exists (404) and belongs to this agent (403). */
export async function loadAgentTask(db: Executor, agentId: string, taskId: string): Promise<TaskRow> {
  const task = isIdOf('task', taskId) ? await findTask(db, taskId) : undefined;
  if (!task) throw notFound('Task');
  if (task.agent_id !== agentId) throw accessDenied();
  return task;
}

/** The task, when it exists (404) and this worker holds it, now or in the past (403). */
export async function loadWorkerTask(db: Executor, workerId: string, taskId: string): Promise<TaskRow> {
  const task = isIdOf('task', taskId) ? await findTask(db, taskId) : undefined;
  if (!task) throw notFound('Task');
  if (task.worker_id !== workerId) throw accessDenied();
  return task;
}

/** When the worker must finish: the absolute deadline if the task has one, else days from now. */
export function executionDeadlineFor(task: TaskRow, now: Date): string {
  if (task.deadline) return task.deadline;
  const days = task.execution_deadline_days ?? 7;
  return new Date(now.getTime() + days * 86_400_000).toISOString();
}
