-- What POST /tasks commits on PostgreSQL, as one pgbench transaction (bench/pgbench.ts runs it
-- with -M extended, the protocol node-postgres speaks: parse, bind, execute per statement): read
-- the agent, insert the task, its escrow ledger row and its task.funded event, then move the
-- escrow from the balance with the same compare-and-set on the same single agent row. The
-- transaction id makes every row id unique. :now (an ISO time) and :data (the event's JSON) come
-- from --define: pgbench would read the colons inside such literals as variables.
BEGIN;
SELECT * FROM agents WHERE id = :agent;
INSERT INTO tasks (id, agent_id, title, description, reward_nano, fee_nano, total_nano, status, payment_status, execution_deadline_days, deadline, execution_deadline, webhook_url, worker_id, created_at, updated_at, assigned_at, completed_at, cancelled_at, cancel_reason) VALUES ('tsk_pgbench_' || txid_current(), :agent, 'Photograph the town hall', 'A clear daytime photo of the front entrance, landscape orientation, no people.', 500000000, 150000000, 650000000, 'FUNDED', 'DEPOSITED', 7, NULL, NULL, NULL, NULL, :now, :now, NULL, NULL, NULL, NULL);
INSERT INTO transactions (id, agent_id, task_id, type, amount_nano, from_address, to_address, tx_hash, status, created_at, updated_at) VALUES ('txn_pgbench_' || txid_current(), :agent, 'tsk_pgbench_' || txid_current(), 'TASK_ESCROW', 650000000, NULL, NULL, NULL, 'confirmed', :now, :now);
INSERT INTO events (id, agent_id, task_id, type, data_json, created_at) VALUES ('evt_pgbench_' || txid_current(), :agent, 'tsk_pgbench_' || txid_current(), 'task.funded', :data, :now);
UPDATE agents SET balance_nano = balance_nano - 650000000, locked_nano = locked_nano + 650000000, updated_at = :now WHERE id = :agent AND balance_nano >= 650000000 RETURNING *;
END;
