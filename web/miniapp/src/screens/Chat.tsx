import { useEffect, useRef, useState } from 'react';
import { api, authHeader, kib, type Message, shortDate } from '../api';
import { haptic } from '../telegram';
import { Empty, ErrorNote, Loading } from '../ui';

interface Uploaded {
  fileUrl: string;
  fileName: string;
  fileSize: number;
  mimeType: string;
}

/**
 * The task's chat: the history, then new messages as they arrive (the server's event stream,
 * read with fetch because EventSource cannot send the Authorization header), a text box, and
 * an attachment uploaded before the message is sent.
 */
export function Chat({ taskId, closed }: { taskId: string; closed: boolean }) {
  const [messages, setMessages] = useState<Message[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [text, setText] = useState('');
  const [file, setFile] = useState<Uploaded | null>(null);
  const [busy, setBusy] = useState<'upload' | 'send' | null>(null);
  const [live, setLive] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);
  const end = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const abort = new AbortController();
    const add = (m: Message) =>
      setMessages((list) => (list?.some((x) => x.id === m.id) ? list : [...(list ?? []), m]));
    api<{ messages: Message[] }>('GET', `/worker/chat/${taskId}/messages?limit=100`)
      .then((page) => {
        setMessages((list) => mergeHistory(page.messages.slice().reverse(), list));
        void follow(taskId, abort.signal, add, setLive, page.messages[0]?.id ?? null);
      })
      .catch(setError);
    return () => abort.abort();
  }, [taskId]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: scrolls to the newest whenever the list changes
  useEffect(() => {
    end.current?.scrollIntoView?.({ block: 'end' });
  }, [messages]);

  const upload = async (chosen: File | undefined) => {
    if (!chosen) return;
    setBusy('upload');
    setError(null);
    try {
      const form = new FormData();
      form.append('file', chosen, chosen.name);
      setFile(await api<Uploaded>('POST', '/worker/upload', form));
    } catch (e) {
      setError(e);
    } finally {
      setBusy(null);
      if (fileInput.current) fileInput.current.value = '';
    }
  };

  const send = async () => {
    if (!text.trim() && !file) return;
    setBusy('send');
    setError(null);
    try {
      const { message } = await api<{ message: Message }>('POST', `/worker/chat/${taskId}/messages`, {
        content: text,
        ...(file ? { fileUrl: file.fileUrl } : {}),
      });
      setMessages((list) => (list?.some((x) => x.id === message.id) ? list : [...(list ?? []), message]));
      setText('');
      setFile(null);
      haptic.tap();
    } catch (e) {
      setError(e);
      haptic.error();
    } finally {
      setBusy(null);
    }
  };

  return (
    <section className="section chat" aria-label="Chat with the agent">
      <h2>
        Chat with the agent{' '}
        {live ? (
          <span className="badge" title="New messages appear as they are sent">
            live
          </span>
        ) : null}
      </h2>
      {messages === null && !error ? <Loading label="Loading messages…" /> : null}
      {messages && messages.length === 0 ? <Empty>No messages yet. Say hello to the agent.</Empty> : null}
      <ol className="messages" aria-label="Messages" aria-live="polite">
        {messages?.map((m) => (
          <li key={m.id} className={m.senderType === 'USER' ? 'mine' : 'theirs'}>
            <span className="sr-only">{m.senderType === 'USER' ? 'You' : 'Agent'}: </span>
            {m.content ? <p>{m.content}</p> : null}
            {m.fileUrl ? <Attachment message={m} /> : null}
            <time className="muted small" dateTime={m.createdAt}>
              {shortDate(m.createdAt)}
            </time>
          </li>
        ))}
      </ol>
      <div ref={end} />
      <ErrorNote error={error} />
      {closed ? (
        <p className="muted small">This chat is closed: it can be read but takes no new messages.</p>
      ) : (
        <form
          className="composer"
          onSubmit={(e) => {
            e.preventDefault();
            void send();
          }}
        >
          {file ? (
            <p className="small attached">
              📎 {file.fileName}{' '}
              <button type="button" className="link" onClick={() => setFile(null)}>
                Remove attachment
              </button>
            </p>
          ) : null}
          <label className="sr-only" htmlFor="chat-text">
            Message
          </label>
          <textarea
            id="chat-text"
            rows={2}
            maxLength={4000}
            value={text}
            onChange={(e) => setText(e.target.value)}
            placeholder="Write a message"
          />
          <div className="composer-actions">
            <label className="button secondary">
              {busy === 'upload' ? 'Uploading…' : 'Attach file'}
              <input
                ref={fileInput}
                type="file"
                className="sr-only"
                aria-label="Attach a file"
                onChange={(e) => void upload(e.target.files?.[0])}
              />
            </label>
            <button type="submit" disabled={busy !== null || (!text.trim() && !file)}>
              {busy === 'send' ? 'Sending…' : 'Send'}
            </button>
          </div>
        </form>
      )}
    </section>
  );
}

function Attachment({ message }: { message: Message }) {
  const url = message.fileUrl ?? '';
  const name = message.fileName ?? 'file';
  return (
    <span className="attachment">
      {message.mimeType?.startsWith('image/') ? <img src={url} alt={name} loading="lazy" /> : null}
      <a href={url} download={name}>
        Download {name}
      </a>
      {message.fileSize !== null ? <span className="muted small"> ({kib(message.fileSize)})</span> : null}
    </span>
  );
}

/** History first, then anything the stream delivered meanwhile. */
function mergeHistory(history: Message[], current: Message[] | null): Message[] {
  const seen = new Set(history.map((m) => m.id));
  return [...history, ...(current ?? []).filter((m) => !seen.has(m.id))];
}

/** Reads the chat's event stream until aborted, reconnecting from the last message seen. */
async function follow(
  taskId: string,
  signal: AbortSignal,
  onMessage: (m: Message) => void,
  setLive: (live: boolean) => void,
  lastId: string | null,
) {
  let last = lastId;
  let delayMs = 1000;
  while (!signal.aborted) {
    try {
      const response = await fetch(`/worker/chat/${taskId}/stream`, {
        headers: { authorization: authHeader(), ...(last ? { 'last-event-id': last } : {}) },
        signal,
      });
      if (!response.ok || !response.body) throw new Error(`stream ${response.status}`);
      setLive(true);
      delayMs = 1000;
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let split = buffer.indexOf('\n\n');
        while (split >= 0) {
          const frame = parseFrame(buffer.slice(0, split));
          buffer = buffer.slice(split + 2);
          if (frame) {
            last = frame.id ?? last;
            onMessage(frame.message);
          }
          split = buffer.indexOf('\n\n');
        }
      }
    } catch {
      // A dropped connection or a refusal: wait, then reconnect from the last message.
    }
    setLive(false);
    if (signal.aborted) return;
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    delayMs = Math.min(delayMs * 2, 30_000);
  }
}

function parseFrame(frame: string): { id: string | null; message: Message } | null {
  let event = 'message';
  let id: string | null = null;
  const data: string[] = [];
  for (const line of frame.split('\n')) {
    if (line.startsWith('event:')) event = line.slice(6).trim();
    else if (line.startsWith('id:')) id = line.slice(3).trim();
    else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
  }
  if (event !== 'message' || data.length === 0) return null;
  try {
    return { id, message: JSON.parse(data.join('\n')) as Message };
  } catch {
    return null;
  }
}
