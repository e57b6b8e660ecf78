import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';

/** Secrets a request log line must never carry. */
export const LOG_REDACT = ['req.headers.authorization', 'req.headers.cookie', 'req.headers["idempotency-key"]'];

/**
 * Pino options for the server and the CLI: JSON lines for a log collector,
 * or, when standard output is a terminal, one readable line a record (pino-pretty
 * is not a dependency, and a person at a terminal needs no JSON).
 */
export function loggerOptions(level: string, tty = process.stdout.isTTY === true): LoggerOptions & { stream?: DestinationStream } {
  return { level, redact: LOG_REDACT, ...(tty ? { stream: readableStream(process.stdout, process.stdout.hasColors?.() === true) } : {}) };
}

/** The process's logger: JSON lines, or readable ones on a terminal (pino takes the stream apart from its options). */
export function createLogger(level: string, tty = process.stdout.isTTY === true): Logger {
  const { stream, ...options } = loggerOptions(level, tty);
  return stream === undefined ? pino(options) : pino(options, stream);
}

const LEVELS: Readonly<Record<number, { readonly name: string; readonly color: string }>> = {
  10: { name: 'TRACE', color: '90' },
  20: { name: 'DEBUG', color: '36' },
  30: { name: 'INFO ', color: '32' },
  40: { name: 'WARN ', color: '33' },
  50: { name: 'ERROR', color: '31' },
  60: { name: 'FATAL', color: '35' },
};

/** Fields every line has, shown in the prefix or not at all. */
const PREFIX_FIELDS = new Set(['level', 'time', 'pid', 'hostname', 'msg', 'reqId', 'err']);

/** A pino destination that writes each JSON record as `HH:MM:SS.mmm LEVEL [reqId] message key=value …`. */
export function readableStream(out: { write(text: string): unknown }, colors: boolean): DestinationStream {
  return {
    write(chunk: string) {
      for (const line of chunk.split('\n')) {
        if (line !== '') out.write(`${readableLine(line, colors)}\n`);
      }
    },
  };
}

export function readableLine(json: string, colors = false): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  const paint = (code: string, text: string) => (colors ? `\u001b[${code}m${text}\u001b[0m` : text);
  const level = LEVELS[Number(record.level)] ?? { name: String(record.level), color: '0' };
  const time = typeof record.time === 'number' ? new Date(record.time).toISOString().slice(11, 23) : '';
  const parts = [paint('90', time), paint(level.color, level.name)];
  if (record.reqId !== undefined) parts.push(paint('90', `[${String(record.reqId)}]`));
  parts.push(String(record.msg ?? ''));
  for (const [key, value] of Object.entries(record)) {
    if (PREFIX_FIELDS.has(key)) continue;
    parts.push(`${paint('90', `${key}=`)}${readableValue(value)}`);
  }
  let text = parts.join(' ');
  const err = record.err as { stack?: unknown; message?: unknown } | undefined;
  if (err !== undefined) text += `\n    ${String(err.stack ?? err.message ?? JSON.stringify(err)).replace(/\n/g, '\n    ')}`;
  return text;
}

/** A long list (the migrations applied on a first start) would fill the screen: its length says enough there. */
const LIST_SHOWN_UP_TO = 5;

function readableValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.length > LIST_SHOWN_UP_TO) return `[${value.length} items]`;
  return JSON.stringify(value);
}
