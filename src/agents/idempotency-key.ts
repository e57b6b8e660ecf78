import { createHash, randomUUID } from 'node:crypto';

/**
 * The Idempotency-Key a creating tool sends: the caller's, or one derived
 * from the tool and its arguments, so that a model repeating the same call
 * (a retry after a timeout) gets the same record back instead of a second
 * one. Another record with the same arguments needs a new key from the caller.
 */
export function derivedKey(toolName: string, args: Record<string, unknown>): { readonly key: string; readonly derived: boolean } {
  const given = args.idempotency_key;
  if (typeof given === 'string' && given !== '') return { key: given, derived: false };
  const { idempotency_key: _ignored, ...rest } = args;
  const canonical = JSON.stringify(Object.keys(rest).sort().map((name) => [name, rest[name]]));
  return { key: `mcp-${toolName}-${createHash('sha256').update(canonical).digest('hex').slice(0, 32)}`, derived: true };
}

/**
 * The key of a tool that sets a state (cancel, pause, replay): the caller's,
 * or a new one, because the same arguments later (pause again after enabling)
 * mean a new operation, not a retry.
 */
export function freshKey(args: Record<string, unknown>): string {
  const given = args.idempotency_key;
  return typeof given === 'string' && given !== '' ? given : `mcp-${randomUUID()}`;
}

export function keySentence(key: { readonly key: string; readonly derived: boolean }): string {
  return key.derived
    ? `Idempotency-Key ${key.key} (derived from the arguments: the same call again returns this same record; pass a new idempotency_key to create another with the same arguments).`
    : `Idempotency-Key ${key.key} (yours).`;
}
