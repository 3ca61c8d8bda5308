import { type ReactNode, useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, type Message, type Task, type Uploaded, uploadFile } from '../api';
import { followChat, mergeMessages } from '../chatStream';
import { formatChatTime, formatDate } from '../format';
import { refreshSoon } from '../freshness';
import { reasonOf } from '../reason';
import { haptic, useClosingConfirmation } from '../telegram';
import { Empty, Loading } from '../ui';
import { markRead } from '../unread';
import { FileChip } from './FileChip';
import { ImageViewer, type ViewedImage } from './ImageViewer';
import { MessageText } from './MessageText';

/** How close to the end (px) still counts as "reading the newest": new messages scroll into view. */
const NEAR_END = 80;

/**
 * The task's chat as its own full-height screen: the messages (newest at the bottom, where the
 * view starts and stays while the worker reads the newest), live over the server's event stream,
 * and a composer fixed at the bottom of Telegram's viewport (its height shrinks with the
 * keyboard, so the composer stays above it). Seeing the newest message moves the read point.
 */
export function Chat({ task, closed }: { task: Task; closed: boolean }) {
  const { t } = useTranslation();
  const taskId = task.id;
  const [messages, setMessages] = useState<Message[] | null>(null);
  const [loadError, setLoadError] = useState<unknown>(null);
  const [live, setLive] = useState(false);
  const [text, setText] = useState('');
  const [file, setFile] = useState<Uploaded | null>(null);
  const [busy, setBusy] = useState<'upload' | 'send' | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [viewed, setViewed] = useState<ViewedImage | null>(null);
  const [newBelow, setNewBelow] = useState(false);
  const log = useRef<HTMLDivElement>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  /** Whether the view is at the newest message (then it follows new ones). */
  const atEnd = useRef(true);
  const marked = useRef<string | null>(null);
  useClosingConfirmation(!closed && (text.trim().length > 0 || file !== null));

  const load = useCallback(() => {
    const abort = new AbortController();
    setLoadError(null);
    // A message from the stream may come with a change to the task (the agent accepted, asked
    // for changes, paid): the screens re-read soon after it (freshness.ts).
    const add = (m: Message) => {
      setMessages((list) => (list?.some((x) => x.id === m.id) ? list : [...(list ?? []), m]));
      refreshSoon();
    };
    api<{ messages: Message[] }>('GET', `/worker/chat/${encodeURIComponent(taskId)}/messages?limit=100`)
      .then((page) => {
        setMessages((list) => mergeMessages(page.messages.slice().reverse(), list));
        void followChat(taskId, abort.signal, add, setLive, page.messages[0]?.id ?? null);
      })
      .catch(setLoadError);
    return () => abort.abort();
  }, [taskId]);
  useEffect(load, [load]);

  const toEnd = useCallback(() => {
    const el = log.current;
    if (el) el.scrollTop = el.scrollHeight;
    atEnd.current = true;
    setNewBelow(false);
  }, []);

  const newest = messages?.at(-1) ?? null;
  // The read point follows what the worker has seen: the newest message, once it is in view.
  const markSeen = useCallback(() => {
    if (!newest || marked.current === newest.id || !atEnd.current) return;
    if (document.visibilityState !== 'visible') return;
    marked.current = newest.id;
    markRead(taskId, newest.id).catch(() => {
      marked.current = null; // Tried again when the next message or scroll comes.
    });
  }, [newest, taskId]);

  // A new message (or the first page): follow it when the worker is at the end, else offer a jump.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when the newest message changes
  useLayoutEffect(() => {
    if (!newest) return;
    if (atEnd.current || newest.senderType === 'USER') toEnd();
    else setNewBelow(true);
    markSeen();
  }, [newest?.id]);

  // The keyboard, a growing composer or an image that loaded change the log's size: keep the end.
  useEffect(() => {
    const el = log.current;
    if (!el || typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(() => {
      if (atEnd.current) el.scrollTop = el.scrollHeight;
    });
    observer.observe(el);
    const list = el.firstElementChild;
    if (list) observer.observe(list);
    return () => observer.disconnect();
  }, []);

  // Only the worker's own scrolling leaves the end: a scroll the layout causes (an image that
  // loads, the composer that shrinks after sending) must not stop the view from following.
  const touching = useRef(0);
  useEffect(() => {
    const el = log.current;
    if (!el) return;
    const byWorker = () => {
      touching.current = performance.now();
    };
    const kinds = ['wheel', 'touchmove', 'pointerdown', 'keydown'] as const;
    for (const kind of kinds) el.addEventListener(kind, byWorker, { passive: true });
    return () => {
      for (const kind of kinds) el.removeEventListener(kind, byWorker);
    };
  }, []);
  const onScroll = () => {
    const el = log.current;
    if (!el) return;
    const near = el.scrollHeight - el.scrollTop - el.clientHeight < NEAR_END;
    if (near) atEnd.current = true;
    else if (touching.current > 0 && performance.now() - touching.current < 1500) atEnd.current = false;
    if (atEnd.current) {
      setNewBelow(false);
      markSeen();
    }
  };

  const upload = async (chosen: File | undefined) => {
    if (fileInput.current) fileInput.current.value = '';
    if (!chosen) return;
    setBusy('upload');
    setProblem(null);
    try {
      setFile(await uploadFile(chosen));
    } catch (e) {
      setProblem(t('chat.attachFailed', { reason: reasonOf(e) }));
      haptic.error();
    } finally {
      setBusy(null);
    }
  };

  const send = async () => {
    if ((!text.trim() && !file) || busy) return;
    setBusy('send');
    setProblem(null);
    try {
      const { message } = await api<{ message: Message }>(
        'POST',
        `/worker/chat/${encodeURIComponent(taskId)}/messages`,
        { content: text, ...(file ? { fileUrl: file.fileUrl } : {}) },
      );
      atEnd.current = true;
      setMessages((list) => (list?.some((x) => x.id === message.id) ? list : [...(list ?? []), message]));
      setText('');
      setFile(null);
      haptic.tap();
    } catch (e) {
      setProblem(t('chat.sendFailed', { reason: reasonOf(e) }));
      haptic.error();
    } finally {
      setBusy(null);
    }
  };

  const canSend = !busy && (text.trim().length > 0 || file !== null);

  return (
    <section className="chat-screen" aria-labelledby="chat-title">
      <header className="chat-head">
        <h1 id="chat-title" className="chat-title">
          {task.title}
        </h1>
        <p className="chat-sub">
          {task.agent.name ?? t('chat.agent')}
          {' · '}
          <span role="status">{live ? t('chat.live') : messages ? t('chat.connecting') : ''}</span>
        </p>
      </header>
      <div className="chat-log" ref={log} onScroll={onScroll}>
        <ol className="messages" aria-label={t('chat.messages')}>
          {messages === null && !loadError ? (
            <li className="chat-note">
              <Loading label={t('chat.loading')} />
            </li>
          ) : null}
          {loadError ? (
            <li className="chat-note">
              <div className="error" role="alert">
                <span>{t('chat.loadFailed', { reason: reasonOf(loadError) })}</span>
                <button type="button" className="link" onClick={load}>
                  {t('chat.retry')}
                </button>
              </div>
            </li>
          ) : null}
          {messages && messages.length === 0 ? (
            <li className="chat-note">
              <Empty>{closed ? t('chat.emptyClosed') : t('chat.empty')}</Empty>
            </li>
          ) : null}
          {withDays(messages ?? [], (day) => (
            <li key={`day-${day}`} className="day-separator">
              <span>{dayLabel(day, t)}</span>
            </li>
          )).map((item) =>
            'node' in item ? (
              item.node
            ) : (
              <Bubble
                key={item.message.id}
                message={item.message}
                onImage={(image) => {
                  haptic.selection();
                  setViewed(image);
                }}
                onImageLoad={() => {
                  if (atEnd.current && log.current) log.current.scrollTop = log.current.scrollHeight;
                }}
              />
            ),
          )}
        </ol>
      </div>
      {newBelow ? (
        <button type="button" className="chat-jump" onClick={toEnd}>
          {t('chat.newBelow')}
        </button>
      ) : null}
      {closed ? (
        <p className="chat-closed">{t('chat.closed')}</p>
      ) : (
        <form
          className="chat-composer"
          aria-label={t('chat.composer')}
          onSubmit={(e) => {
            e.preventDefault();
            void send();
          }}
        >
          {problem ? (
            <p className="chat-problem" role="alert">
              {problem}
            </p>
          ) : null}
          {busy ? (
            <p className="chat-busy" role="status">
              {busy === 'upload' ? t('chat.uploading') : t('chat.sending')}
            </p>
          ) : null}
          {file ? (
            <div className="chat-attached">
              <FileChip url={file.fileUrl} name={file.fileName} size={file.fileSize} />
              <button type="button" className="link" onClick={() => setFile(null)}>
                {t('chat.removeAttachment')}
              </button>
            </div>
          ) : null}
          <div className="chat-row">
            <label className="chat-attach" title={t('chat.attach')}>
              <svg aria-hidden="true" width="24" height="24" viewBox="0 0 24 24" fill="none">
                <path
                  d="M20 11.5l-8.1 8.1a5 5 0 0 1-7.1-7.1l8.5-8.5a3.3 3.3 0 0 1 4.7 4.7l-8.5 8.5a1.7 1.7 0 0 1-2.4-2.4l7.8-7.8"
                  stroke="currentColor"
                  strokeWidth="1.8"
                  strokeLinecap="round"
                  strokeLinejoin="round"
                />
              </svg>
              <input
                ref={fileInput}
                type="file"
                className="sr-only"
                aria-label={t('chat.attach')}
                disabled={busy !== null}
                onChange={(e) => void upload(e.target.files?.[0])}
              />
            </label>
            <label className="sr-only" htmlFor="chat-text">
              {t('chat.message')}
            </label>
            <textarea
              id="chat-text"
              rows={1}
              maxLength={4000}
              value={text}
              onChange={(e) => setText(e.target.value)}
              onFocus={() => {
                // The keyboard opens: keep the newest message in view above the composer.
                if (atEnd.current) setTimeout(toEnd, 300);
              }}
              placeholder={t('chat.placeholder')}
            />
            <button type="submit" className="chat-send" aria-label={t('chat.send')} disabled={!canSend}>
              <svg aria-hidden="true" width="22" height="22" viewBox="0 0 24 24">
                <path
                  d="M3.4 20.4l17.4-7.5a1 1 0 0 0 0-1.8L3.4 3.6a.9.9 0 0 0-1.3 1l1.9 6.4 9 1-9 1-1.9 6.4a.9.9 0 0 0 1.3 1z"
                  fill="currentColor"
                />
              </svg>
            </button>
          </div>
        </form>
      )}
      {viewed ? <ImageViewer image={viewed} onClose={() => setViewed(null)} /> : null}
    </section>
  );
}

function Bubble({
  message: m,
  onImage,
  onImageLoad,
}: {
  message: Message;
  onImage: (image: ViewedImage) => void;
  onImageLoad: () => void;
}) {
  const { t } = useTranslation();
  const mine = m.senderType === 'USER';
  const name = m.fileName ?? t('files.unnamed');
  const image = m.fileUrl && m.mimeType?.startsWith('image/') ? m.fileUrl : null;
  return (
    <li className={mine ? 'bubble mine' : 'bubble theirs'}>
      <span className="sr-only">{mine ? t('chat.you') : t('chat.agent')}: </span>
      {image ? (
        <button
          type="button"
          className="bubble-image"
          aria-label={t('chat.openImage', { name })}
          onClick={() => onImage({ url: image, name })}
        >
          <img src={image} alt={name} loading="lazy" onLoad={onImageLoad} />
        </button>
      ) : null}
      {m.fileUrl && !image ? <FileChip url={m.fileUrl} name={name} size={m.fileSize} /> : null}
      {m.content ? <MessageText text={m.content} /> : null}
      <time className="bubble-time" dateTime={m.createdAt}>
        {formatChatTime(m.createdAt)}
      </time>
    </li>
  );
}

type Item = { message: Message } | { node: ReactNode };

/** The messages with a separator before each new day (in the phone's zone). */
function withDays(messages: Message[], separator: (day: string) => ReactNode): Item[] {
  const items: Item[] = [];
  let last = '';
  for (const message of messages) {
    const day = localDay(message.createdAt);
    if (day !== last) items.push({ node: separator(day) });
    last = day;
    items.push({ message });
  }
  return items;
}

function localDay(iso: string): string {
  const d = new Date(iso);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

function dayLabel(day: string, t: (key: string) => string): string {
  const now = new Date();
  if (day === localDay(now.toISOString())) return t('chat.today');
  const yesterday = new Date(now.getFullYear(), now.getMonth(), now.getDate() - 1);
  if (day === localDay(yesterday.toISOString())) return t('chat.yesterday');
  const [y, m, d] = day.split('-').map(Number);
  return formatDate(new Date(y ?? 0, (m ?? 1) - 1, d ?? 1, 12).toISOString());
}
