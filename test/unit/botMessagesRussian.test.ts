import { describe, expect, it } from 'vitest';
import { botAmount, botTime } from '../../src/telegram/i18n.js';
import { offerWithdrawnLine, renderNotification } from '../../src/telegram/messages.js';
import { withReplacedOffer } from '../../src/telegram/notifier.js';

const TASK_ID = 'tsk_01q3dcbd00a6mvr6xem0zs8yev';
const RU_UTC = { language: 'ru', timeZone: null };
const RU_MOSCOW = { language: 'ru', timeZone: 'Europe/Moscow' };
const noLabel = { title: null, agentName: null };

describe('bot texts in the worker’s language and zone', () => {
  it('an offer in Russian: words, buttons, the reward grouped the Russian way', () => {
    const message = renderNotification(
      'offer',
      { taskId: TASK_ID, title: 'Фото <витрины>', agentName: 'Bot', reward: '1234.5' },
      noLabel,
      RU_UTC,
    );
    expect(message.text).toBe(
      [
        '📩 <b>Новое предложение</b> от Bot',
        '<b>Фото &lt;витрины&gt;</b>',
        'Вознаграждение: <b>1\u00a0234,5\u00a0TON</b>',
        '',
        'Примите, чтобы взять задачу; срок выполнения начнётся с момента принятия.',
      ].join('\n'),
    );
    expect(message.buttons[0]!.map((b) => b.text)).toEqual(['✅ Принять', '✖️ Отклонить']);
    expect(message.openLabel).toBe('Открыть в Handoff');
    // English keeps its own grouping.
    expect(renderNotification('offer', { taskId: TASK_ID, reward: '1234.5' }).text).toContain(
      'Reward: <b>1,234.5\u00a0TON</b>',
    );
  });

  it('times are in the worker’s zone when the profile has one, else UTC, and say which', () => {
    const data = { taskId: TASK_ID, title: 'Фото', reviewDeadline: '2030-01-04T10:00:00.000Z' };
    expect(renderNotification('review_reminder', data, noLabel, RU_MOSCOW).text).toBe(
      '⏳ Проверка задачи <b>Фото</b> скоро закончится.\n' +
        'Если агент ничего не сделает до 4 янв. 2030 г., 13:00 GMT+3, оплата придёт автоматически.',
    );
    expect(renderNotification('review_reminder', data, noLabel, RU_UTC).text).toContain(
      'до 4 янв. 2030 г., 10:00 UTC,',
    );
    expect(
      renderNotification('review_reminder', data, noLabel, { language: 'en', timeZone: 'Asia/Yekaterinburg' })
        .text,
    ).toContain('before Jan 4, 2030, 3:00 PM GMT+5,');
    expect(botTime({ language: 'en', timeZone: 'Not/AZone' }, '2030-01-04T10:00:00.000Z')).toBe(
      'Jan 4, 2030, 10:00 AM UTC',
    );
  });

  it('Russian plurals for a burst of chat messages', () => {
    const render = (count: number) =>
      renderNotification(
        'message',
        { preview: 'Привет', count },
        { title: 'Фото', agentName: 'Bot' },
        RU_UTC,
      ).text.split('\n')[0];
    expect(render(1)).toBe('💬 Новое сообщение от Bot по задаче <b>Фото</b>:');
    expect(render(3)).toBe('💬 3 новых сообщения от Bot по задаче <b>Фото</b>. Последнее:');
    expect(render(5)).toBe('💬 5 новых сообщений от Bot по задаче <b>Фото</b>. Последнее:');
    expect(render(21)).toBe('💬 21 новое сообщение от Bot по задаче <b>Фото</b>. Последнее:');
  });

  it('every kind renders in Russian without English words', () => {
    const kinds = [
      ['application_accepted', { executionDeadline: '2030-01-05T00:00:00.000Z' }],
      ['application_rejected', {}],
      ['payment_sent', { amount: '6.5', txHash: 'abc' }],
      ['task_expired', {}],
      ['offer_withdrawn', { reason: 'Не нужно' }],
      ['task_cancelled', { role: 'assigned' }],
      ['task_cancelled', { role: 'applicant' }],
      ['dispute_opened', { openedBy: 'AGENT', reason: 'Не то здание' }],
      ['dispute_opened', { openedBy: 'WORKER' }],
      ['dispute_resolved', { workerAmount: '3.5', note: 'Половина фото годится' }],
      ['dispute_resolved', { workerAmount: '0' }],
      ['submission_received', { reviewDeadline: '2030-01-04T10:00:00.000Z' }],
      [
        'revision_requested',
        { reason: 'Ближе', executionDeadline: '2030-01-05T00:00:00.000Z', revisionsLeft: 1 },
      ],
      ['auto_released', { amount: '6.5' }],
    ] as const;
    for (const [kind, data] of kinds) {
      const { text } = renderNotification(
        kind,
        { taskId: TASK_ID, title: 'Фото', ...data },
        noLabel,
        RU_MOSCOW,
      );
      expect(text.replace(/TON|Handoff|GMT\+3|<\/?(b|code)>|abc/g, ''), kind).not.toMatch(/[A-Za-z]{2,}/);
    }
  });

  it('a withdrawn offer’s old message is rewritten in the worker’s language', () => {
    const withdrawn = renderNotification(
      'offer_withdrawn',
      { taskId: TASK_ID, title: 'Фото' },
      noLabel,
      RU_UTC,
    );
    const offer = {
      telegramMessageId: '42',
      dataJson: JSON.stringify({ taskId: TASK_ID, title: 'Фото', reward: '5' }),
    };
    const message = withReplacedOffer(withdrawn, offer, undefined, RU_UTC);
    expect(message.replaces?.text).toMatch(/^📩 <b>Новое предложение<\/b>/);
    expect(message.replaces?.text.endsWith(`\n\n${offerWithdrawnLine(RU_UTC)}`)).toBe(true);
    expect(offerWithdrawnLine(RU_UTC)).toBe('🚫 Агент отозвал предложение.');
  });

  it('amounts keep every digit', () => {
    expect(botAmount('ru', '1000000.000000001', 'TON')).toBe('1\u00a0000\u00a0000,000000001\u00a0TON');
    expect(botAmount('en', '0.50', 'USDT')).toBe('0.5\u00a0USDT');
    expect(botAmount('xx', '12345', 'TON')).toBe('12,345\u00a0TON');
  });
});
