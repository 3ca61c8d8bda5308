/**
 * The floor under SQLite GET /tasks/:id: a bare Fastify GET route that runs the two reads GET
 * /tasks/:id runs (the task with its agent's name, and its newest 100 applications with their
 * applicants) on the app's own schema, straight on better-sqlite3, in one read transaction per
 * event-loop turn as the app's driver groups reads (src/db/sqliteDriver.ts), and answers the
 * task. The reads' SQL is the app's own query builders', compiled once at start-up on the app's
 * own database handle, so the twin cannot drift from the app. What it leaves out is everything else
 * the app does: authentication, rate limits, validation, the domain, Kysely at request time, the
 * response schema. So it is as fast as GET /tasks/:id could be with these reads and this schema
 * on this machine: the twin of bench/floor.ts for the read path.
 */
import Fastify from 'fastify';
import { taskApplications } from '../src/db/repositories/applications.js';
import { taskWithAgentNameQuery } from '../src/db/repositories/tasks.js';
import { newId } from '../src/domain/ids.js';
import { TASK_DETAIL_APPLICATIONS } from '../src/domain/tasks/taskQueries.js';
import { TASK_BODY } from './fixtures.js';
import { type FloorServer, openFloorDatabase, serveFloor, taskValues, turnCommits } from './floor.js';
import { TASK_ANSWER } from './servers.js';

/** The one task the floor serves (the bench's scenario reads it, as it reads the fixture's). */
export const READ_FLOOR_TASK_ID = newId('task');

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

export async function startReadFloor(): Promise<FloorServer> {
  const database = await openFloorDatabase('handoff-read-floor-', (db) => [
    taskWithAgentNameQuery(db, READ_FLOOR_TASK_ID),
    taskApplications(db, READ_FLOOR_TASK_ID, null, TASK_DETAIL_APPLICATIONS),
  ]);
  const { file, agentId } = database;
  const [taskSql, applicationsSql] = database.sql as [string, string];
  const at = new Date().toISOString();
  database.insertTask.run(
    ...taskValues(READ_FLOOR_TASK_ID, agentId, TASK_BODY.title, TASK_BODY.description, at),
  );
  const readTask = file.prepare(taskSql);
  const readApplications = file.prepare(applicationsSql);
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
        // The floors serve a live agent's tasks (test mode's twins are not measured).
        livemode: true,
        applications: applications.map((a) => ({
          id: a.id,
          worker: { id: a.worker_id, username: a.worker_username },
          createdAt: a.created_at,
        })),
      },
    };
  });
  return serveFloor(app, database);
}
