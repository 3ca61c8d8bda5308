/**
 * Whether text read from a raw socket holds one complete HTTP/1.1 answer: its head and as many
 * body bytes as its Content-Length says. A kept-alive socket never closes after an answer, so
 * tests that talk HTTP over `net` sockets stop reading here.
 */
export function holdsCompleteAnswer(text: string): boolean {
  const split = text.indexOf('\r\n\r\n');
  if (split < 0) return false;
  const length = /content-length: (\d+)/i.exec(text.slice(0, split));
  return length !== null && Buffer.byteLength(text.slice(split + 4)) >= Number(length[1]);
}
