import { createSiweMessage } from 'viem/siwe';

/** SPEC "Authentication" 5: a challenge is short-lived. */
export const CHALLENGE_LIFETIME_MS = 5 * 60 * 1000;

/**
 * The EIP-4361 (Sign-In with Ethereum) text an agent signs. `domain` is the
 * authority of the public URL, so a signature made for one Ivory cannot be
 * replayed at another; the nonce and the one-row challenge make it single-use.
 */
export function signInMessage(input: {
  readonly publicUrl: string;
  readonly brand: string;
  readonly address: `0x${string}`;
  readonly chainId: number;
  readonly nonce: string;
  readonly issuedAt: Date;
  readonly expiresAt: Date;
}): string {
  const url = new URL(input.publicUrl);
  return createSiweMessage({
    domain: url.host,
    address: input.address,
    statement: `Sign in to ${input.brand} as an automated agent.`,
    uri: url.origin,
    version: '1',
    chainId: input.chainId,
    nonce: input.nonce,
    issuedAt: input.issuedAt,
    expirationTime: input.expiresAt,
  });
}
