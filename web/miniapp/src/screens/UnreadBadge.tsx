import { useTranslation } from 'react-i18next';
import { useUnread } from '../unread';

/** Unread agent messages of one task (`taskId`) or of all chats. */
export function useUnreadCount(taskId?: string): number {
  const unread = useUnread();
  return taskId === undefined ? unread.total : (unread.byTask.get(taskId) ?? 0);
}

/**
 * The count as a badge, shown only when something is unread ("99+" past that). The number is
 * hidden from screen readers: the control it sits on names it in words through
 * aria-describedby={id}, which leaves the control's own name unchanged ("My tasks").
 */
export function UnreadBadge({ count, id }: { count: number; id: string }) {
  const { t } = useTranslation();
  if (count === 0) return null;
  return (
    <>
      <span className="unread-badge" aria-hidden="true">
        {count > 99 ? '99+' : count}
      </span>
      <span id={id} hidden>
        {t('chat.unreadCount', { count })}
      </span>
    </>
  );
}
