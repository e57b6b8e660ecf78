import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { createLogger, loggerOptions, readableLine, readableStream } from '../../src/platform/logging.js';

// Issue 13 item 3: logs are JSON for a collector, one readable line a record on a terminal.
describe('log format', () => {
  it('is JSON lines when standard output is not a terminal', () => {
    expect(loggerOptions('info', false).stream).toBeUndefined();
  });

  it('is one readable line a record on a terminal: time, level, request id, message, then the fields', () => {
    const lines: string[] = [];
    const log = pino({ level: 'info' }, readableStream({ write: (text: string) => lines.push(text) }, false));
    log.child({ reqId: 'abc-1' }).info({ url: 'http://127.0.0.1:8080', applied: ['a.sql'] }, 'ivory started');
    log.debug('hidden below the level');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\d{2}:\d{2}:\d{2}\.\d{3} INFO {2}\[abc-1\] ivory started url=http:\/\/127\.0\.0\.1:8080 applied=\["a\.sql"\]\n$/);
  });

  it('prints an error with its stack under the line, and leaves a line that is not JSON as it is', () => {
    const line = readableLine(JSON.stringify({ level: 50, time: 0, msg: 'boom', err: { message: 'bad', stack: 'Error: bad\n    at here' } }));
    expect(line).toBe('00:00:00.000 ERROR boom\n    Error: bad\n        at here');
    expect(readableLine('not json')).toBe('not json');
  });

  it('colours the level only when asked', () => {
    expect(readableLine(JSON.stringify({ level: 40, time: 0, msg: 'careful' }), true)).toContain('\u001b[33mWARN \u001b[0m');
  });

  it('shows a long list by its length on a terminal (the migrations of a first start), a short one in full', () => {
    expect(readableLine(JSON.stringify({ level: 30, time: 0, msg: 'migrations: applied 6', applied: ['a', 'b', 'c', 'd', 'e', 'f'] }))).toBe(
      '00:00:00.000 INFO  migrations: applied 6 applied=[6 items]',
    );
    expect(readableLine(JSON.stringify({ level: 30, time: 0, msg: 'm', applied: ['a'] }))).toBe('00:00:00.000 INFO  m applied=["a"]');
  });

  it('the process logger writes readable lines on a terminal (pino takes the stream apart from its options)', () => {
    const written: string[] = [];
    const original = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((chunk: string) => written.push(chunk) > 0) as typeof process.stdout.write;
    try {
      createLogger('info', true).info({ role: 'all' }, 'ivory started');
    } finally {
      process.stdout.write = original;
    }
    expect(written.join('')).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO {2}ivory started role=all\n$/);
  });
});
