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
