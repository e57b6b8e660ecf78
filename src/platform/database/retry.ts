/** The SQLSTATE a database error carries (both drivers put it in `code`), or undefined. */
export function sqlStateOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** SQLSTATEs after which the whole transaction can simply run again. */
const RETRYABLE = new Set(['40001', '40P01']); // serialization_failure, deadlock_detected

export function isRetryableTransactionError(error: unknown): boolean {
  const code = sqlStateOf(error);
  return (code !== undefined && RETRYABLE.has(code)) || isStalePreparedStatement(error);
}

/**
 * A prepared statement whose result columns changed under it (a migration
 * added a column to a table it selects `*` from, while this process ran: a
 * rolling deploy). `PreparedStatementPool` gives the text a new name on this
 * error, so running the transaction again prepares it afresh.
 */
export function isStalePreparedStatement(error: unknown): boolean {
  const candidate = error as { code?: unknown; message?: unknown } | null;
  return candidate?.code === '0A000' && typeof candidate.message === 'string' && candidate.message.includes('cached plan must not change result type');
}

export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const candidate = error as { code?: unknown; constraint?: unknown } | null;
  if (candidate?.code !== '23505') return false;
  return constraint === undefined || candidate.constraint === constraint;
}

/**
 * SQLSTATEs of a server that is going away or not yet accepting work:
 * connection exceptions (class 08), admin/crash shutdown and "starting up"
 * (57P01–57P03), too many connections (53300).
 */
const SERVER_GONE = /^(08...|57P0[123]|53300)$/;
/** What the `pg` driver and Node's sockets say when the server is unreachable or dropped the connection. */
const CONNECTION_LOST = /ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EHOSTUNREACH|Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended unexpectedly/i;

/**
 * The database could not be reached or dropped the connection (a restart, a
 * failover, a network cut): nothing the request did was committed, and the
 * same request may simply be sent again later. Not a bug of ours: the HTTP
 * core answers 503 `unavailable` instead of 500.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const code = sqlStateOf(error);
  if (code !== undefined && SERVER_GONE.test(code)) return true;
  if (code !== undefined && /^E[A-Z]+$/.test(code) && CONNECTION_LOST.test(code)) return true;
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' && CONNECTION_LOST.test(message);
}
