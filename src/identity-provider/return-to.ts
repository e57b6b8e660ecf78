const MAX_LENGTH = 2048;

/**
 * A path on Ivory's own origin to send the browser to after sign-in, or
 * undefined when `raw` is not one. Only `/…` paths qualify: a scheme, a
 * protocol-relative `//host` or `/\host` (which browsers read as `//host`),
 * and control characters or spaces are refused, so a sign-in link cannot
 * forward its user to another site.
 */
export function parseReturnTo(raw: string): string | undefined {
  if (raw.length === 0 || raw.length > MAX_LENGTH) return undefined;
  if (!raw.startsWith('/') || raw.startsWith('//') || raw.startsWith('/\\')) return undefined;
  if ([...raw].some((character) => character <= ' ' || character === '\u007f' || character === '\\')) return undefined;
  // The URL parser is the judge of what a browser would do with it.
  const base = new URL('http://ivory.invalid');
  const resolved = URL.canParse(raw, base.href) ? new URL(raw, base) : undefined;
  if (resolved?.origin !== base.origin) return undefined;
  return raw;
}
