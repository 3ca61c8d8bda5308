/**
 * The floor under SQLite GET /tasks/:id: a bare Fastify GET route that runs the two reads GET
 * /tasks/:id runs (the task with its agent's name, and its newest 100 applications with their
 * applicants, the statements Kysely compiles for src/db/repositories) on the app's own schema,
 * straight on better-sqlite3, in one read transaction per event-loop turn as the app's driver
 * groups reads (src/db/sqliteDriver.ts), and answers the task. What it leaves out is everything
 * else the app does: authentication, rate limits, validation, the domain, Kysely, the response
 * schema. So it is as fast as GET /tasks/:id could be with these reads and this schema on this
 * machine: the twin of bench/floor.ts for the read path.
 */
import Fastify from 'fastify';
import { newId } from '../src/domain/ids.js';
import { TASK_BODY } from './fixtures.js';
import { openFloorDatabase, serveFloor, taskValues, turnCommits } from './floor.js';
import { type RunningServer, TASK_ANSWER } from './servers.js';

/** The one task the floor serves (the bench's scenario reads it, as it reads the fixture's). */
export const READ_FLOOR_TASK_ID = newId('task');

const TASK_WITH_AGENT_NAME =
  'select "tasks".*, "agents"."name" as "agent_name" from "tasks" inner join "agents" on "agents"."id" = "tasks"."agent_id" where "tasks"."id" = ?';
const NEWEST_APPLICATIONS =
  'select "applications".*, "workers"."username" as "worker_username", "workers"."first_name" as "worker_first_name", "workers"."last_name" as "worker_last_name", "workers"."wallet_address" as "worker_wallet_address", "workers"."show_telegram" as "worker_show_telegram" from "applications" inner join "workers" on "workers"."id" = "applications"."worker_id" where "applications"."task_id" = ? order by "applications"."created_at" desc, "applications"."id" desc limit 100';

interface TaskRow {
  id: string;
  agent_id: string;
  agent_name: string;
  title: string;
  description: string;
  created_at: string;
  updated_at: string;
}

interface ApplicationRow {
  id: string;
  worker_id: string;
  worker_username: string | null;
  created_at: string;
}

export async function startReadFloor(): Promise<RunningServer> {
  const database = await openFloorDatabase('handoff-read-floor-');
  const { file, agentId } = database;
  const at = new Date().toISOString();
  database.insertTask.run(
    ...taskValues(READ_FLOOR_TASK_ID, agentId, TASK_BODY.title, TASK_BODY.description, at),
  );
  const readTask = file.prepare(TASK_WITH_AGENT_NAME);
  const readApplications = file.prepare(NEWEST_APPLICATIONS);
  const turn = turnCommits(file);

  const app = Fastify({ logger: false });
  app.get<{ Params: { id: string } }>('/tasks/:id', async (request, reply) => {
    // Read-only, so the answer need not wait for the turn's COMMIT (nor does the app's).
    turn.join();
    const task = readTask.get(request.params.id) as TaskRow | undefined;
    if (!task || task.agent_id !== agentId) return reply.status(404).send({ error: 'Task not found' });
    const applications = readApplications.all(task.id) as ApplicationRow[];
    return {
      task: {
        ...TASK_ANSWER.task,
        id: task.id,
        title: task.title,
        description: task.description,
        createdAt: task.created_at,
        updatedAt: task.updated_at,
        agent: { id: task.agent_id, name: task.agent_name },
        applications: applications.map((a) => ({
          id: a.id,
          worker: { id: a.worker_id, username: a.worker_username },
          createdAt: a.created_at,
        })),
      },
    };
  });
  return serveFloor(app, database.close);
}
