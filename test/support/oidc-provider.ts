import { generateKeyPairSync } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

/** A person at the provider: what its ID tokens say about them. */
export interface ProviderUser {
  readonly sub: string;
  readonly email: string;
  readonly email_verified: boolean;
}

export interface LocalProvider {
  /** http://127.0.0.1:<port>: an issuer Ivory accepts over http because it is loopback. */
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Who the next login at the provider is (the interaction logs them in without a form). */
  signInAs(user: ProviderUser): void;
  close(): Promise<void>;
}

/**
 * A real OpenID Connect provider (`oidc-provider`) on loopback with one
 * confidential client whose redirect URI is `redirectUri`. Its login
 * interaction signs in whoever `signInAs` named, and its grants cover
 * `openid email` without a consent screen, so a browser that follows
 * redirects goes from the authorization endpoint straight back to the client.
 * Claims (email, email_verified) are in the ID token, as Google puts them.
 */
export async function startLocalProvider(redirectUri: string): Promise<LocalProvider> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = 'ivory-test';
  const clientSecret = 'ivory-test-secret-0123456789abcdef';
  const users = new Map<string, ProviderUser>();
  let current: ProviderUser | undefined;

  const signingKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    jwks: { keys: [{ ...signingKey, use: 'sig', alg: 'RS256', kid: 'test' }] },
    cookies: { keys: ['local-provider-cookie-key'] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    conformIdTokenClaims: false,
    ttl: { AccessToken: 600, AuthorizationCode: 60, Grant: 3600, IdToken: 600, Interaction: 600, Session: 3600 },
    features: { devInteractions: { enabled: false } },
    findAccount: async (_context: unknown, sub: string) => {
      const user = users.get(sub);
      if (user === undefined) return undefined;
      return { accountId: sub, claims: async () => ({ sub, email: user.email, email_verified: user.email_verified }) };
    },
    // Consent is implied: every client of this provider gets `openid email`.
    loadExistingGrant: async (context: { oidc: { client: { clientId: string }; session: { accountId: string } } }) => {
      const grant = new provider.Grant({ clientId: context.oidc.client.clientId, accountId: context.oidc.session.accountId });
      grant.addOIDCScope('openid email');
      await grant.save();
      return grant;
    },
  });

  const handle = provider.callback();
  server.on('request', (request: http.IncomingMessage, response: http.ServerResponse) => {
    if (request.url?.startsWith('/interaction/') === true) {
      void logIn(request, response);
      return;
    }
    handle(request, response);
  });

  async function logIn(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    try {
      const interaction = await provider.interactionDetails(request, response);
      if (interaction.prompt.name !== 'login' || current === undefined) throw new Error(`unexpected prompt ${interaction.prompt.name}`);
      await provider.interactionFinished(request, response, { login: { accountId: current.sub } }, { mergeWithLastSubmission: false });
    } catch (error) {
      response.statusCode = 500;
      response.end(String(error));
    }
  }

  return {
    issuer,
    clientId,
    clientSecret,
    signInAs(user) {
      users.set(user.sub, user);
      current = user;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/**
 * A browser without a screen: plain `fetch` that keeps cookies per host (paths
 * and expiry other than Max-Age=0 ignored) and follows redirects by hand, so
 * a test can stop at a chosen URL.
 */
export class Browser {
  readonly #cookies = new Map<string, Map<string, string>>();

  async get(url: string): Promise<Response> {
    const target = new URL(url);
    const jar = this.#cookies.get(target.host);
    const cookie = jar === undefined ? undefined : [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(target, { redirect: 'manual', headers: cookie ? { cookie } : {} });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const separator = pair?.indexOf('=') ?? -1;
      if (pair === undefined || separator === -1) continue;
      const hostJar = this.#cookies.get(target.host) ?? new Map<string, string>();
      const name = pair.slice(0, separator).trim();
      if (/;\s*Max-Age=0\b/i.test(line)) hostJar.delete(name);
      else hostJar.set(name, pair.slice(separator + 1).trim());
      this.#cookies.set(target.host, hostJar);
    }
    return response;
  }

  /** Follows redirects from `url` until one points at a URL starting with `stopAt`, and returns that URL. */
  async followUntil(url: string, stopAt: string): Promise<string> {
    let next = url;
    for (let hop = 0; hop < 20; hop += 1) {
      const response = await this.get(next);
      const location = response.headers.get('location');
      if (response.status < 300 || response.status >= 400 || location === null) {
        throw new Error(`${next} answered ${response.status} without a redirect: ${await response.text()}`);
      }
      next = new URL(location, next).href;
      if (next.startsWith(stopAt)) return next;
    }
    throw new Error(`too many redirects from ${url}`);
  }
}
