import { Fragment } from 'react';
import { openOutside } from '../telegram';

const URL_PATTERN = /https?:\/\/[^\s<>"']+/gi;
/** Punctuation that ends a sentence rather than the address ("see https://x.org."). */
const TRAILING = /[.,;:!?)\]}'"»]+$/;

/** An http(s) address as a URL, or null (anything else stays text). */
function webUrl(text: string): URL | null {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : null;
  } catch {
    return null;
  }
}

/**
 * A message's text with its http and https addresses as links, opened through Telegram in the
 * phone's browser. Only text is rendered (React escapes it): nothing in a message becomes HTML.
 */
export function MessageText({ text }: { text: string }) {
  const parts: { text: string; url?: string }[] = [];
  let at = 0;
  for (const match of text.matchAll(URL_PATTERN)) {
    const start = match.index ?? 0;
    const raw = match[0].replace(TRAILING, '');
    const url = webUrl(raw);
    if (!url) continue;
    if (start > at) parts.push({ text: text.slice(at, start) });
    parts.push({ text: raw, url: url.href });
    at = start + raw.length;
  }
  if (at < text.length) parts.push({ text: text.slice(at) });
  return (
    <p className="message-text">
      {parts.map((part, i) =>
        part.url ? (
          <a
            // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one text never reorder
            key={i}
            href={part.url}
            target="_blank"
            rel="noopener noreferrer"
            onClick={(e) => {
              if (part.url && openOutside(part.url)) e.preventDefault();
            }}
          >
            {part.text}
          </a>
        ) : (
          // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one text never reorder
          <Fragment key={i}>{part.text}</Fragment>
        ),
      )}
    </p>
  );
}
