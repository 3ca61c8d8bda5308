import { useTranslation } from 'react-i18next';
import { selectionTap } from '../native';
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
        selectionTap();
        onOpen();
      }}
    >
      <span className="open-chat-icon" aria-hidden="true">
        💬
      </span>
      <span className="open-chat-text">{t('chat.open')}</span>
      <UnreadBadge count={unread} id={`unread-chat-${taskId}`} />
      <span className="open-chat-chevron" aria-hidden="true">
        ›
      </span>
    </button>
  );
}
