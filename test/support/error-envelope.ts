import { expect } from 'vitest';

/**
 * SPEC "Error envelope": `{error: {code, message, details?}}` with `message`
 * repeating the code. `details`, when an input error carries them, are
 * exactly `{field, reason}` (issue 20 item 4); errors with SPEC's own details
 * (a blocked account's reason, a group's option) are asserted where they are
 * tested, not through this.
 */
export function expectErrorEnvelope(body: unknown, code: string): void {
  const error = (body as { error?: Record<string, unknown> } | null)?.error;
  const { details, ...rest } = error ?? {};
  expect(rest).toEqual({ code, message: code });
  if (details !== undefined) expect(details).toEqual({ field: expect.any(String), reason: expect.stringMatching(/\S/) });
}
