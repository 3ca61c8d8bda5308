import { describe, expect, it } from 'vitest';
import { readableLog, wantsReadableLog } from '../../src/readableLog.js';

/** What the readable log writes for pino's JSON lines (colours off, then on). */
function written(lines: object[], colors = false): string[] {
  const out: string[] = [];
  const sink = readableLog({ write: (text: string) => out.push(text) }, colors);
  for (const line of lines) sink.write(`${JSON.stringify(line)}\n`);
  return out.join('').trimEnd().split('\n');
}
const AT = new Date(2026, 10, 28, 12, 3, 4).getTime();
const BASE = { time: AT, pid: 1, hostname: 'h', instance: 'h:1' };

describe('readable logs in development', () => {
  it('writes one short line per request: time, method, URL, status, milliseconds, request id', () => {
    expect(
      written([
        {
          ...BASE,
          level: 30,
          reqId: 'req_1',
          method: 'POST',
          url: '/tasks',
          statusCode: 201,
          ip: '127.0.0.1',
          ms: 3.1,
          msg: 'request',
        },
      ]),
    ).toEqual(['12:03:04 POST /tasks 201 3.1ms req_1']);
  });

  it('writes other lines as time, level, message and their own fields, an error with its stack', () => {
    expect(
      written([
        { ...BASE, level: 40, msg: 'SECRET_KEY was not set', component: 'config' },
        {
          ...BASE,
          level: 50,
          msg: 'delivery failed',
          attempt: 2,
          err: { message: 'boom', stack: 'Error: boom\n    at x' },
        },
      ]),
    ).toEqual([
      '12:03:04 WARN  SECRET_KEY was not set  component=config',
      '12:03:04 ERROR delivery failed  attempt=2',
      'Error: boom',
      '    at x',
    ]);
  });

  it('colours the status by class when on a terminal, and passes anything but JSON through', () => {
    const [line] = written(
      [{ ...BASE, level: 30, method: 'GET', url: '/x', statusCode: 404, ms: 1, msg: 'request' }],
      true,
    );
    expect(line).toContain('\x1b[33m404\x1b[0m');
    const out: string[] = [];
    readableLog({ write: (text: string) => out.push(text) }, false).write('not json\n');
    expect(out).toEqual(['not json\n']);
  });

  it('is chosen only in development with standard output a terminal; JSON lines otherwise', () => {
    expect(wantsReadableLog(false, { isTTY: true })).toBe(true);
    expect(wantsReadableLog(false, { isTTY: undefined })).toBe(false);
    expect(wantsReadableLog(true, { isTTY: true })).toBe(false);
  });
});
