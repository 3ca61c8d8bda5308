import { describe, expect, it } from 'vitest';
import {
  escapeHtml,
  MAX_CALLBACK_BYTES,
  offerCallbackData,
  parseOfferCallback,
  renderNotification,
} from '../../src/telegram/messages.js';

const TASK_ID = 'tsk_01q3dcbd00a6mvr6xem0zs8yev';

describe('bot texts', () => {
  it('escapes what users wrote for Telegram HTML', () => {
    expect(escapeHtml('a < b && c > "d"')).toBe('a &lt; b &amp;&amp; c &gt; "d"');
    const { text } = renderNotification('application_rejected', { taskId: TASK_ID, title: '</b><i>x' });
    expect(text).toBe('Your application for <b>&lt;/b&gt;&lt;i&gt;x</b> was not selected this time.');
  });

  it('offer buttons fit Telegram’s 64-byte callback data and parse back', () => {
    for (const action of ['accept', 'decline'] as const) {
      const data = offerCallbackData(action, TASK_ID);
      expect(Buffer.byteLength(data)).toBeLessThanOrEqual(MAX_CALLBACK_BYTES);
      expect(parseOfferCallback(data)).toEqual({ action, taskId: TASK_ID });
    }
    expect(parseOfferCallback('offer:steal:tsk_1')).toBeNull();
    expect(parseOfferCallback(`offer:accept:${TASK_ID}:extra`)).toBeNull();
    expect(parseOfferCallback('offer:accept:')).toBeNull();
  });

  it('chat messages: one quotes it, a burst says how many; files are mentioned; labels fill in', () => {
    const label = { title: 'Walk the dog', agentName: null };
    expect(renderNotification('message', { preview: 'Hi', count: 1 }, label).text).toBe(
      '💬 New message from the agent about <b>Walk the dog</b>:\nHi',
    );
    expect(renderNotification('message', { preview: '', hasFile: true, count: 4 }, label).text).toBe(
      '💬 4 new messages from the agent about <b>Walk the dog</b>.\n📎 With a file.',
    );
  });

  it('long user text is clipped so no message outgrows Telegram’s limit', () => {
    const { text } = renderNotification(
      'message',
      { preview: 'p'.repeat(5000), count: 2 },
      { title: 't'.repeat(5000), agentName: 'a'.repeat(5000) },
    );
    expect(text.length).toBeLessThan(1000);
    expect(text).toContain('…');
  });

  it('clipped user text keeps whole emoji, ZWJ sequences and accents (no half surrogate pair)', () => {
    const family = '👩‍👩‍👧‍👦'; // one grapheme, 11 UTF-16 units
    const { text } = renderNotification(
      'message',
      { preview: `${'e\u0301'.repeat(200)}`, count: 1 },
      { title: `ok ${family.repeat(30)}`, agentName: '😀'.repeat(80) },
    );
    const title = /<b>(.*)<\/b>/.exec(text)![1]!;
    // Telegram counts UTF-16 units: 200 of them, the ellipsis included.
    expect(title).toBe(`ok ${family.repeat(17)}…`);
    expect(text).toMatch(/\n(e\u0301){149}…$/);
    expect(/[\ud800-\udbff](?![\udc00-\udfff])/.test(text)).toBe(false);
  });

  it('payment and expiry name the amount, hash and task', () => {
    expect(renderNotification('payment_sent', { title: 'Job', amount: '6.5', txHash: 'abc123' }).text).toBe(
      '💸 Payment sent: <b>6.5\u00a0TON</b> for <b>Job</b>.\nTransaction: <code>abc123</code>',
    );
    expect(renderNotification('task_expired', { title: 'Job' }).buttons).toEqual([]);
  });
});
