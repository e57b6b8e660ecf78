import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync, randomBytes, randomFillSync, randomUUID, timingSafeEqual } from 'node:crypto';

/** A random v4 UUID: the identifier of every record (SPEC conventions). */
/** A fresh record id; name its kind (`newId<IssuanceId>()`) where the record is typed. */
export function newId<T extends string = string>(): T {
  return randomUUID() as T;
}

/**
 * `size` random bytes as base64url, from a pool refilled 4 KiB at a time (as
 * Node does for randomUUID): one call into the random source per ~340 public
 * ids instead of one each, on the invoice-creation hot path. Bytes are handed
 * out once and never reused.
 */
export function randomBase64url(size: number): string {
  if (size > RANDOM_POOL_BYTES) return randomBytes(size).toString('base64url');
  if (randomPoolOffset + size > RANDOM_POOL_BYTES) {
    randomFillSync(randomPool);
    randomPoolOffset = 0;
  }
  const value = randomPool.toString('base64url', randomPoolOffset, randomPoolOffset + size);
  randomPoolOffset += size;
  return value;
}

const RANDOM_POOL_BYTES = 4096;
const randomPool = Buffer.alloc(RANDOM_POOL_BYTES);
let randomPoolOffset = RANDOM_POOL_BYTES;

/** A bearer secret: 32 random bytes, base64url, with an optional visible prefix. */
export function newToken(prefix = ''): string {
  return prefix + randomBytes(32).toString('base64url');
}

/** Tokens and keys are stored only as this hash. */
export function sha256Hex(value: string | Buffer): string {
  return createHash('sha256').update(value).digest('hex');
}

export function constantTimeEqual(left: string, right: string): boolean {
  const a = Buffer.from(left);
  const b = Buffer.from(right);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * AES-256-GCM with the SECRET_KEY, for secrets Ivory must read back (webhook
 * secrets, wallet keys). Output: `v1.<iv>.<tag>.<ciphertext>`, base64url parts.
 */
export class SecretBox {
  readonly #key: Buffer;
  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error('SecretBox needs a 32-byte key');
    this.#key = key;
  }

  seal(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ['v1', iv, cipher.getAuthTag(), body].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
  }

  /**
   * HMAC-SHA256 of `value` under a subkey of SECRET_KEY for `purpose`, hex.
   * For short secrets (one-time codes) that a plain hash would not protect:
   * without the key, a leaked digest cannot be brute-forced.
   */
  digest(purpose: string, value: string): string {
    const subkey = Buffer.from(hkdfSync('sha256', this.#key, Buffer.alloc(0), `ivory:${purpose}`, 32));
    return createHmac('sha256', subkey).update(value).digest('hex');
  }

  open(sealed: string): string {
    const [version, iv, tag, body] = sealed.split('.');
    if (version !== 'v1' || iv === undefined || tag === undefined || body === undefined) {
      throw new Error('SecretBox: unknown sealed format');
    }
    const decipher = createDecipheriv('aes-256-gcm', this.#key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  }
}
