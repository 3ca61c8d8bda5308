import { useTranslation } from 'react-i18next';
import { haptic } from '../telegram';
import { UnreadBadge, useUnreadCount } from './UnreadBadge';

/** The task page's way into its chat: a cell with the unread count, like a chat in Telegram's list. */
export function OpenChat({ taskId, onOpen }: { taskId: string; onOpen: () => void }) {
  const { t } = useTranslation();
  const unread = useUnreadCount(taskId);
  return (
    <button
      type="button"
      className="open-chat"
      aria-describedby={unread > 0 ? `unread-chat-${taskId}` : undefined}
      onClick={() => {
        haptic.selection();
        onOpen();
      }}
    >
      {/* Drawn, not an emoji: a phone or a test browser without an emoji font shows a box. */}
      <svg
        className="open-chat-icon"
        viewBox="0 0 24 24"
        width="22"
        height="22"
        aria-hidden="true"
        fill="none"
        stroke="currentColor"
        strokeWidth="1.8"
        strokeLinejoin="round"
      >
        <path d="M4 5.5h16a1 1 0 0 1 1 1v9a1 1 0 0 1-1 1H10l-4.5 3.5V16.5H4a1 1 0 0 1-1-1v-9a1 1 0 0 1 1-1Z" />
      </svg>
      <span className="open-chat-text">{t('chat.open')}</span>
      <UnreadBadge count={unread} id={`unread-chat-${taskId}`} />
      <span className="open-chat-chevron" aria-hidden="true">
        ›
      </span>
    </button>
  );
}
