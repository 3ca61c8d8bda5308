import { describe, expect, it } from 'vitest';
import { renderNotification } from '../../src/telegram/messages.js';

const TASK_ID = 'tsk_01q3dcbd00a6mvr6xem0zs8yev';

describe('dispute bot texts', () => {
  it('opened: the agent’s as news, the worker’s own as a receipt; the reason quoted and escaped', () => {
    const byAgent = renderNotification('dispute_opened', {
      taskId: TASK_ID,
      title: 'Photo',
      openedBy: 'AGENT',
      reason: 'Wrong <building>',
    });
    expect(byAgent.text).toBe(
      [
        '⚖️ The agent opened a dispute about <b>Photo</b>.',
        'Reason: Wrong &lt;building&gt;',
        'The reward stays in escrow until an operator decides. Add your side in Handoff (text and photos).',
      ].join('\n'),
    );
    expect(byAgent.openTaskId).toBe(TASK_ID);
    const byWorker = renderNotification('dispute_opened', {
      taskId: TASK_ID,
      title: 'Photo',
      openedBy: 'WORKER',
    });
    expect(byWorker.text.split('\n')[0]).toBe('⚖️ Your dispute about <b>Photo</b> is open.');
  });

  it('resolved: what the worker gets (or that it gets nothing) and the operator’s note', () => {
    const paid = renderNotification('dispute_resolved', {
      taskId: TASK_ID,
      title: 'Photo',
      workerAmount: '3.5',
      note: 'Half the photos were usable',
    });
    expect(paid.text).toBe(
      '⚖️ The dispute about <b>Photo</b> was decided: <b>3.5\u00a0TON</b> is being sent to your wallet.\n' +
        'Operator’s note: Half the photos were usable',
    );
    const nothing = renderNotification('dispute_resolved', {
      taskId: TASK_ID,
      title: 'Photo',
      workerAmount: '0',
    });
    expect(nothing.text).toBe(
      '⚖️ The dispute about <b>Photo</b> was decided: no payment to you; the reward went back to the agent.',
    );
    const long = renderNotification('dispute_resolved', {
      taskId: TASK_ID,
      workerAmount: '1',
      note: 'x'.repeat(10_000),
    });
    expect(long.text.length).toBeLessThan(4096);
  });
});
