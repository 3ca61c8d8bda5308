import { describe, expect, it } from 'vitest';
import { renderNotification } from '../../src/telegram/messages.js';

const TASK_ID = 'tsk_01q3dcbd00a6mvr6xem0zs8yev';

describe('bot texts of the review (issue 25)', () => {
  it('a submission received names the review deadline and the automatic payment', () => {
    const message = renderNotification('submission_received', {
      taskId: TASK_ID,
      title: 'Photo <b>',
      reviewDeadline: '2030-01-04T10:00:00.000Z',
    });
    expect(message.text).toBe(
      '📤 Your work on <b>Photo &lt;b&gt;</b> was submitted for review.\n' +
        'The agent has until Jan 4, 2030, 10:00 AM UTC to approve it, ask for a revision or open a dispute; if it does nothing, you are paid automatically then.',
    );
    expect(message.openTaskId).toBe(TASK_ID);
  });

  it('a revision request quotes the reason (escaped and clipped), the new deadline and what is left', () => {
    const { text } = renderNotification('revision_requested', {
      taskId: TASK_ID,
      title: 'Photo',
      reason: `<i>Closer</i> ${'x'.repeat(400)}`,
      executionDeadline: '2030-01-05T00:00:00.000Z',
      revisionsLeft: 2,
    });
    const lines = text.split('\n');
    expect(lines[0]).toBe('✏️ The agent asked for a revision of <b>Photo</b>.');
    expect(lines[1]).toMatch(/^Reason: &lt;i&gt;Closer&lt;\/i&gt; x+…$/);
    expect(lines[1]!.length).toBeLessThan(340);
    expect(lines.slice(2)).toEqual([
      'Submit the revised work by Jan 5, 2030, 12:00 AM UTC.',
      'Revisions the agent may still ask for: 2.',
    ]);
  });

  it('the reminder and the auto-release', () => {
    expect(
      renderNotification('review_reminder', { title: 'Photo', reviewDeadline: '2030-01-04T10:00:00.000Z' })
        .text,
    ).toBe(
      '⏳ The review of <b>Photo</b> ends soon.\nIf the agent does nothing before Jan 4, 2030, 10:00 AM UTC, you are paid automatically.',
    );
    expect(renderNotification('auto_released', { title: 'Photo', amount: '6.5' }).text).toBe(
      '✅ The review window of <b>Photo</b> ended without an answer from the agent: the work is approved.\n' +
        '<b>6.5\u00a0TON</b> is on its way to your wallet.',
    );
  });
});
