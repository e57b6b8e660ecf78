import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.js';
import { IvoryError } from '../platform/errors.js';
import { PUBLIC } from '../platform/http/principal.js';
import type { IvoryServer } from '../platform/http/server.js';
import { requestWalletChallenge } from './request-wallet-challenge.js';
import { verifyWalletSignIn } from './verify-wallet-sign-in.js';

const ChallengeBody = Type.Object(
  { address: Type.String(), chain_id: Type.Integer() },
  { additionalProperties: false },
);

// Typed loosely on purpose: every bad proof, a missing or non-string field
// included, is SPEC's 401 unauthorized, while a schema failure would be a 400.
// The use case refuses anything but a UUID and a hex string.
const VerifyBody = Type.Object(
  {
    challenge_id: Type.Optional(Type.Unknown({ description: 'challenge_id from the challenge answer (string)' })),
    signature: Type.Optional(Type.Unknown({ description: 'EIP-191 signature of the message, 0x-prefixed hex (string)' })),
  },
  { additionalProperties: false },
);

/**
 * SPEC "Authentication" 5: wallet sign-in is for agents only. A browser always
 * sends Origin on a cross-site or POST fetch, so its presence refuses the call
 * before the body is even read; with no cookie ever set, a web page can
 * neither start nor finish a wallet session on a visitor's behalf.
 */
async function refuseBrowsers(request: FastifyRequest): Promise<void> {
  if (request.headers.origin !== undefined) throw new IvoryError('wallet_sign_in_agents_only');
}

/** SPEC "Sign-in": the wallet challenge and its verification. No Idempotency-Key (SPEC 7). */
export async function walletSignInRoutes(api: IvoryServer, context: AppContext): Promise<void> {
  api.post(
    '/auth/wallet/challenge',
    {
      onRequest: refuseBrowsers,
      schema: { body: ChallengeBody },
      config: { auth: PUBLIC, fieldErrors: { address: 'invalid_address', chain_id: 'unsupported_network' } },
    },
    async (request) => {
      const challenge = await requestWalletChallenge(
        {
          db: context.db,
          clock: context.clock,
          catalogue: context.catalogue,
          publicUrl: context.config.publicUrl,
          brand: context.config.brand,
        },
        { address: request.body.address, chainId: request.body.chain_id },
      );
      return { challenge_id: challenge.challengeId, message: challenge.message };
    },
  );

  api.post(
    '/auth/wallet/verify',
    {
      onRequest: refuseBrowsers,
      schema: { body: VerifyBody },
      config: { auth: PUBLIC },
    },
    async (request) => {
      const { challenge_id: challengeId, signature } = request.body;
      const session = await verifyWalletSignIn(
        { db: context.db, clock: context.clock },
        {
          challengeId: typeof challengeId === 'string' ? challengeId : '',
          signature: typeof signature === 'string' ? signature : '',
        },
      );
      return { token: session.token, expires_at: session.expiresAt.toISOString(), user: session.user };
    },
  );
}
