/**
 * Log lines for a person at a terminal: `npm start` / `npm run dev` in development with standard
 * output a TTY write one short line per request (`12:03:04 POST /tasks 201 3.1ms req_...`, the
 * status coloured) and other lines as time, level, message and their fields. Anywhere else
 * (production, a pipe, a file, a log collector) the lines stay pino's JSON, one object a line.
 */
export interface LineSink {
  write(text: string): unknown;
}

/** Pino's own fields and the ones every line has: shown by the layout, not as key=value. */
const LAID_OUT = new Set(['level', 'time', 'pid', 'hostname', 'instance', 'msg', 'reqId', 'err']);
const REQUEST_FIELDS = new Set(['method', 'url', 'statusCode', 'ip', 'ms']);
const LEVELS: Record<number, [string, string]> = {
  10: ['TRACE', '90'],
  20: ['DEBUG', '90'],
  30: ['INFO ', '36'],
  40: ['WARN ', '33'],
  50: ['ERROR', '31'],
  60: ['FATAL', '31'],
};

/** Whether this process should write readable lines: development, on a terminal. */
export function wantsReadableLog(production: boolean, stdout: { isTTY?: boolean }): boolean {
  return !production && stdout.isTTY === true;
}

/** A pino destination that turns each JSON line into a readable one and writes it to `out`. */
export function readableLog(out: LineSink, colors: boolean): LineSink {
  const paint = (code: string, text: string) => (colors ? `\x1b[${code}m${text}\x1b[0m` : text);
  return {
    write(json: string) {
      let line: Record<string, unknown>;
      try {
        line = JSON.parse(json) as Record<string, unknown>;
      } catch {
        return out.write(json);
      }
      return out.write(`${format(line, paint)}\n`);
    },
  };
}

function format(line: Record<string, unknown>, paint: (code: string, text: string) => string): string {
  const time = paint('90', new Date(Number(line.time)).toTimeString().slice(0, 8));
  const reqId = typeof line.reqId === 'string' ? ` ${paint('90', line.reqId)}` : '';
  if ((line.msg === 'request' || line.msg === 'request errored') && line.method && line.url) {
    const status = Number(line.statusCode);
    const colour = status >= 500 ? '31' : status >= 400 ? '33' : '32';
    const rest = fields(line, REQUEST_FIELDS);
    return `${time} ${line.method} ${line.url} ${paint(colour, String(status))} ${line.ms}ms${reqId}${rest}${errorOf(line, paint)}`;
  }
  const [name, colour] = LEVELS[Number(line.level)] ?? ['LOG  ', '0'];
  return `${time} ${paint(colour, name)} ${line.msg ?? ''}${reqId}${fields(line, new Set())}${errorOf(line, paint)}`;
}

function fields(line: Record<string, unknown>, skip: Set<string>): string {
  const pairs = Object.entries(line)
    .filter(([key, value]) => !LAID_OUT.has(key) && !skip.has(key) && value !== undefined)
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
  return pairs.length ? `  ${pairs.join(' ')}` : '';
}

function errorOf(line: Record<string, unknown>, paint: (code: string, text: string) => string): string {
  const err = line.err as { stack?: string; message?: string } | undefined;
  if (!err) return '';
  return `\n${paint('90', err.stack ?? err.message ?? JSON.stringify(err))}`;
}
