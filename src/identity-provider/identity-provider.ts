import * as openid from 'openid-client';

export interface IdentityProviderSettings {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Where the provider sends the browser back: `{base_url}/auth/google/callback`. */
  readonly redirectUri: string;
  /** Why a callback was refused, for the operator: a wrong client secret refuses everyone alike. */
  readonly log: { warn(details: Record<string, unknown>, message: string): void };
}

/** What one authorization request is bound to; all three are checked when its callback is redeemed. */
export interface AuthorizationBinding {
  readonly state: string;
  readonly nonce: string;
  readonly codeVerifier: string;
}

/** The claims Ivory uses from a validated ID token. */
export interface ProviderIdentity {
  readonly subject: string;
  readonly email: string | undefined;
  readonly emailVerified: boolean;
}

/**
 * An OpenID Connect provider, through openid-client: authorization code flow
 * with PKCE (S256), state and nonce.
 */
export interface IdentityProvider {
  /** The provider's authorization endpoint with this request's parameters. Throws when discovery fails. */
  authorizationUrl(binding: AuthorizationBinding): Promise<URL>;
  /**
   * Exchanges the code of the callback URL and validates the ID token (issuer,
   * audience, signature, expiry, nonce) and the response (state, `iss`).
   * `undefined` when the provider answered an error or its answer failed a
   * check; throws only when the provider cannot be reached.
   */
  redeem(callbackUrl: URL, binding: AuthorizationBinding): Promise<ProviderIdentity | undefined>;
}

const SCOPE = 'openid email';

/** Fresh random state, nonce and PKCE code verifier for one authorization request. */
export function newAuthorizationBinding(): AuthorizationBinding {
  return { state: openid.randomState(), nonce: openid.randomNonce(), codeVerifier: openid.randomPKCECodeVerifier() };
}

export function openIdConnectProvider(settings: IdentityProviderSettings): IdentityProvider {
  // Discovered once per process, on first use (not at start, so that a
  // provider outage does not stop Ivory); a failed discovery is retried on the next call.
  let discovered: Promise<openid.Configuration> | undefined;
  const configuration = (): Promise<openid.Configuration> => {
    discovered ??= openid
      .discovery(new URL(settings.issuer), settings.clientId, { redirect_uris: [settings.redirectUri] }, openid.ClientSecretBasic(settings.clientSecret), {
        // Config allows http only for a provider on loopback (tests, development).
        execute: new URL(settings.issuer).protocol === 'http:' ? [openid.allowInsecureRequests] : [],
        timeout: 10,
      })
      .catch((error: unknown) => {
        discovered = undefined;
        throw error;
      });
    return discovered;
  };

  return {
    async authorizationUrl(binding) {
      return openid.buildAuthorizationUrl(await configuration(), {
        redirect_uri: settings.redirectUri,
        response_type: 'code',
        scope: SCOPE,
        state: binding.state,
        nonce: binding.nonce,
        code_challenge: await openid.calculatePKCECodeChallenge(binding.codeVerifier),
        code_challenge_method: 'S256',
      });
    },

    async redeem(callbackUrl, binding) {
      const config = await configuration();
      let claims: openid.IDToken | undefined;
      try {
        const tokens = await openid.authorizationCodeGrant(config, callbackUrl, {
          expectedState: binding.state,
          expectedNonce: binding.nonce,
          pkceCodeVerifier: binding.codeVerifier,
          idTokenExpected: true,
        });
        claims = tokens.claims();
      } catch (error) {
        if (!isRefusal(error)) throw error;
        settings.log.warn({ issuer: settings.issuer, reason: refusalReason(error) }, 'identity provider callback refused');
        return undefined;
      }
      if (claims === undefined) return undefined;
      return {
        subject: claims.sub,
        email: typeof claims.email === 'string' ? claims.email : undefined,
        // Some providers send the boolean as a string.
        emailVerified: claims.email_verified === true || claims.email_verified === 'true',
      };
    },
  };
}

/** The provider's error code or openid-client's check that failed; never a token or a code. */
function refusalReason(error: unknown): string {
  if (error instanceof openid.AuthorizationResponseError || error instanceof openid.ResponseBodyError) return error.error;
  return error instanceof Error ? `${(error as { code?: unknown }).code ?? ''} ${error.message}`.trim() : 'unknown';
}

/** The provider said no, or its answer failed validation; a TypeError (network failure) is not a refusal. */
function isRefusal(error: unknown): boolean {
  return (
    error instanceof openid.ClientError ||
    error instanceof openid.AuthorizationResponseError ||
    error instanceof openid.ResponseBodyError ||
    error instanceof openid.WWWAuthenticateChallengeError
  );
}
