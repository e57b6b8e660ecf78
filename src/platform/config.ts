import path from 'node:path';

/**
 * Configuration, read once from the environment at start and frozen. Nothing
 * else in Ivory reads `process.env`. A bad value stops start-up with one line
 * naming the variable (`ConfigError`).
 */
export interface Config {
  readonly port: number;
  readonly host: string;
  /** Public origin, no trailing slash; `{base_url}` is this + `/api/v1`. */
  readonly publicUrl: string;
  /** Hosted payment pages; `payment_url` is this + `/` + public_id. */
  readonly payUrl: string;
  readonly databaseUrl: string | undefined;
  readonly dataDir: string;
  readonly brand: string;
  readonly networksFile: string | undefined;
  readonly smtpUrl: string | undefined;
  readonly webhookAllowPrivate: boolean;
  readonly adminToken: string | undefined;
  /** GET /metrics is served, behind `Authorization: Bearer <METRICS_TOKEN>`, only when this is set. */
  readonly metricsToken: string | undefined;
  /** OpenID Connect sign-in (GET /auth/google); absent when OIDC_CLIENT_ID is unset. */
  readonly oidc: OidcConfig | undefined;
  /** 32 bytes; absent with embedded storage until generated into DATA_DIR. */
  readonly secretKey: Buffer | undefined;
  readonly redisUrl: string | undefined;
  /** Proxies whose X-Forwarded-For is believed: addresses or CIDRs. */
  readonly trustProxy: readonly string[];
  /** 0 turns the limit off. */
  readonly rateLimitPerMinute: number;
  readonly rateLimitWritesPerMinute: number;
  /** How long after a session's last second-factor check a sensitive change is allowed (SPEC "Authentication" 6). */
  readonly mfaFreshMinutes: number;
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
}

export interface OidcConfig {
  /** Issuer identifier whose discovery document is read; https, or http on loopback only. */
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
}

export class ConfigError extends Error {
  constructor(variable: string, problem: string) {
    super(`invalid configuration: ${variable} ${problem}`);
    this.name = 'ConfigError';
  }
}

type Env = Readonly<Record<string, string | undefined>>;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export function loadConfig(env: Env = process.env): Config {
  const port = integer(env, 'PORT', 8080, 0, 65535);
  const host = text(env, 'HOST') ?? '127.0.0.1';
  const publicUrl = url(env, 'PUBLIC_URL') ?? `http://localhost:${port}`;
  const payUrl = url(env, 'PAY_URL') ?? `${publicUrl}/pay`;
  const databaseUrl = text(env, 'DATABASE_URL');
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL', 'must be a postgres:// or postgresql:// URL');
  }
  const brand = text(env, 'BRAND') ?? 'Ivory';
  if (!/^[A-Za-z][A-Za-z0-9]{0,31}$/.test(brand)) {
    throw new ConfigError('BRAND', 'must be a word of letters and digits (it prefixes header names)');
  }
  const secretKey = secret(env);
  if (databaseUrl !== undefined && secretKey === undefined) {
    throw new ConfigError('SECRET_KEY', 'is required with DATABASE_URL (64 hex characters)');
  }
  const smtpUrl = text(env, 'SMTP_URL');
  if (smtpUrl !== undefined && !/^smtps?:\/\//.test(smtpUrl)) {
    throw new ConfigError('SMTP_URL', 'must be an smtp:// or smtps:// URL');
  }
  const redisUrl = text(env, 'REDIS_URL');
  if (redisUrl !== undefined && !/^rediss?:\/\//.test(redisUrl)) {
    throw new ConfigError('REDIS_URL', 'must be a redis:// or rediss:// URL');
  }
  const logLevel = text(env, 'LOG_LEVEL') ?? 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}`);
  }
  const adminToken = text(env, 'ADMIN_TOKEN');
  if (adminToken !== undefined && adminToken.length < 16) {
    throw new ConfigError('ADMIN_TOKEN', 'must be at least 16 characters');
  }
  const metricsToken = text(env, 'METRICS_TOKEN');
  if (metricsToken !== undefined && metricsToken.length < 16) {
    throw new ConfigError('METRICS_TOKEN', 'must be at least 16 characters');
  }
  const oidc = oidcConfig(env);

  return Object.freeze({
    port,
    host,
    publicUrl,
    payUrl,
    databaseUrl,
    dataDir: path.resolve(text(env, 'DATA_DIR') ?? './data'),
    brand,
    networksFile: text(env, 'NETWORKS_FILE'),
    smtpUrl,
    webhookAllowPrivate: boolean(env, 'WEBHOOK_ALLOW_PRIVATE', false),
    adminToken,
    metricsToken,
    oidc,
    secretKey,
    redisUrl,
    trustProxy: Object.freeze(trustProxy(env)),
    rateLimitPerMinute: integer(env, 'RATE_LIMIT_PER_MINUTE', 1200, 0, 10_000_000),
    rateLimitWritesPerMinute: integer(env, 'RATE_LIMIT_WRITES_PER_MINUTE', 120, 0, 10_000_000),
    mfaFreshMinutes: integer(env, 'MFA_FRESH_MINUTES', 10, 1, 24 * 60),
    logLevel: logLevel as Config['logLevel'],
  });
}

function text(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}`);
  return value;
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = text(env, name)?.toLowerCase();
  if (raw === undefined) return fallback;
  if (['true', '1', 'yes'].includes(raw)) return true;
  if (['false', '0', 'no'].includes(raw)) return false;
  throw new ConfigError(name, `must be true or false, got "${raw}"`);
}

function url(env: Env, name: string): string | undefined {
  const raw = text(env, name);
  if (raw === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, `must be an absolute http(s) URL, got "${raw}"`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ConfigError(name, 'must use http or https');
  }
  return raw.replace(/\/+$/, '');
}

function secret(env: Env): Buffer | undefined {
  const raw = text(env, 'SECRET_KEY');
  if (raw === undefined) return undefined;
  if (!/^[0-9a-fA-F]{64}$/.test(raw)) throw new ConfigError('SECRET_KEY', 'must be 64 hex characters (32 bytes)');
  return Buffer.from(raw, 'hex');
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

function oidcConfig(env: Env): OidcConfig | undefined {
  const clientId = text(env, 'OIDC_CLIENT_ID');
  const clientSecret = text(env, 'OIDC_CLIENT_SECRET');
  const rawIssuer = text(env, 'OIDC_ISSUER');
  if (clientId === undefined) {
    if (clientSecret !== undefined) throw new ConfigError('OIDC_CLIENT_ID', 'is required with OIDC_CLIENT_SECRET');
    if (rawIssuer !== undefined) throw new ConfigError('OIDC_CLIENT_ID', 'is required with OIDC_ISSUER');
    return undefined;
  }
  if (clientSecret === undefined) throw new ConfigError('OIDC_CLIENT_SECRET', 'is required with OIDC_CLIENT_ID');
  // Kept exactly as given: the discovery document's `issuer` must match it character for character.
  const issuer = rawIssuer ?? 'https://accounts.google.com';
  const parsed = URL.canParse(issuer) ? new URL(issuer) : undefined;
  if (parsed === undefined || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')) {
    throw new ConfigError('OIDC_ISSUER', `must be an absolute https URL, got "${issuer}"`);
  }
  // Tokens and the client secret travel to the issuer: plain http only to a provider on this machine (tests, development).
  if (parsed.protocol !== 'https:' && !LOOPBACK_HOSTS.has(parsed.hostname)) {
    throw new ConfigError('OIDC_ISSUER', 'must use https (http only for localhost)');
  }
  return Object.freeze({ issuer, clientId, clientSecret });
}

function trustProxy(env: Env): string[] {
  const raw = text(env, 'TRUST_PROXY');
  if (raw === undefined) return [];
  const entries = raw.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  for (const entry of entries) {
    if (!/^[0-9a-fA-F:.]+(\/\d{1,3})?$/.test(entry)) {
      throw new ConfigError('TRUST_PROXY', `must list IP addresses or CIDR ranges, got "${entry}"`);
    }
  }
  return entries;
}
