import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';

/**
 * A software WebAuthn authenticator (issue 10, item 5: "tested with a software
 * authenticator that makes real attestations and assertions"). It holds P-256
 * key pairs made with node:crypto and answers as a browser's
 * `PublicKeyCredential.toJSON()` would:
 * - registration: a CBOR attestation object of format "none" whose authData
 *   carries the RP id hash, flags UP|UV|AT, the signature counter and the
 *   attested credential data (AAGUID, credential id, COSE EC2 public key);
 * - assertion: authData (RP id hash, UP|UV, counter) and an ES256 signature
 *   (DER) over authData ‖ SHA-256(clientDataJSON).
 * The client data carries the challenge and origin given; tests pass wrong
 * ones on purpose.
 */

// ---- a minimal CBOR encoder (RFC 8949): what WebAuthn structures need ----------

export type CborValue = number | string | Uint8Array | CborMap | readonly CborValue[];
/** A map in insertion order; keys are integers or text (COSE keys use both). */
export type CborMap = Map<number | string, CborValue>;

function head(majorType: number, length: number): Buffer {
  const major = majorType << 5;
  if (length < 24) return Buffer.from([major | length]);
  if (length < 0x100) return Buffer.from([major | 24, length]);
  if (length < 0x10000) {
    const bytes = Buffer.alloc(3);
    bytes[0] = major | 25;
    bytes.writeUInt16BE(length, 1);
    return bytes;
  }
  if (length < 0x1_0000_0000) {
    const bytes = Buffer.alloc(5);
    bytes[0] = major | 26;
    bytes.writeUInt32BE(length, 1);
    return bytes;
  }
  throw new Error(`CBOR length ${length} too large for this encoder`);
}

export function cborEncode(value: CborValue): Buffer {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new Error(`CBOR: only integers are supported, got ${value}`);
    // Major type 0 (unsigned) or 1 (negative, encoded as -1 - n).
    return value >= 0 ? head(0, value) : head(1, -1 - value);
  }
  if (typeof value === 'string') {
    const text = Buffer.from(value, 'utf8');
    return Buffer.concat([head(3, text.length), text]);
  }
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), value]);
  if (value instanceof Map) {
    const parts: Buffer[] = [head(5, value.size)];
    for (const [key, item] of value) parts.push(cborEncode(key), cborEncode(item));
    return Buffer.concat(parts);
  }
  return Buffer.concat([head(4, value.length), ...value.map(cborEncode)]);
}

// ---- the authenticator -----------------------------------------------------------

const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_AT = 0x40;

export interface RegistrationResponseJson {
  id: string;
  rawId: string;
  type: 'public-key';
  response: { clientDataJSON: string; attestationObject: string; transports: string[] };
  clientExtensionResults: Record<string, never>;
  authenticatorAttachment: 'platform';
}

export interface AuthenticationResponseJson {
  id: string;
  rawId: string;
  type: 'public-key';
  response: { clientDataJSON: string; authenticatorData: string; signature: string; userHandle?: string };
  clientExtensionResults: Record<string, never>;
  authenticatorAttachment: 'platform';
}

/** What a browser would add around the authenticator: the page's origin, and what the RP asked for. */
export interface Ceremony {
  /** options.challenge as answered by the server (base64url). */
  readonly challenge: string;
  readonly origin: string;
  /** options.rp.id / options.rpId. */
  readonly rpId: string;
}

interface Credential {
  readonly id: Buffer;
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
  counter: number;
}

export class SoftwareAuthenticator {
  /** A fixed AAGUID: "none" attestation says nothing of the model anyway. */
  readonly aaguid = Buffer.from('5f0e1b7a3c2d4e8f9a0b1c2d3e4f5a6b', 'hex');
  private readonly credentials = new Map<string, Credential>();

  /**
   * navigator.credentials.create(): a new P-256 credential, attested with fmt
   * "none". `reuse` attests an existing credential again instead, as an
   * authenticator that ignored excludeCredentials would.
   */
  register(ceremony: Ceremony, options: { reuse?: string } = {}): { credentialId: string; response: RegistrationResponseJson } {
    let credential = options.reuse === undefined ? undefined : this.credentials.get(options.reuse);
    if (credential === undefined) {
      if (options.reuse !== undefined) throw new Error(`no credential ${options.reuse}`);
      const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      credential = { id: randomBytes(32), privateKey, publicKey, counter: 0 };
    }
    const credentialId = credential.id.toString('base64url');
    this.credentials.set(credentialId, credential);

    const clientDataJSON = clientData('webauthn.create', ceremony);
    const credentialIdLength = Buffer.alloc(2);
    credentialIdLength.writeUInt16BE(credential.id.length);
    const authData = Buffer.concat([
      sha256(ceremony.rpId),
      Buffer.from([FLAG_UP | FLAG_UV | FLAG_AT]),
      uint32(credential.counter),
      this.aaguid,
      credentialIdLength,
      credential.id,
      coseKey(credential.publicKey),
    ]);
    const attestationObject = cborEncode(
      new Map<string, CborValue>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', authData],
      ]),
    );
    return {
      credentialId,
      response: {
        id: credentialId,
        rawId: credentialId,
        type: 'public-key',
        response: {
          clientDataJSON: clientDataJSON.toString('base64url'),
          attestationObject: attestationObject.toString('base64url'),
          transports: ['internal'],
        },
        clientExtensionResults: {},
        authenticatorAttachment: 'platform',
      },
    };
  }

  /**
   * navigator.credentials.get() with this credential: the counter is raised
   * by one first (as a real authenticator does) unless `counter` sets it.
   */
  assert(credentialId: string, ceremony: Ceremony, options: { counter?: number } = {}): AuthenticationResponseJson {
    const credential = this.credentials.get(credentialId);
    if (credential === undefined) throw new Error(`no credential ${credentialId}`);
    credential.counter = options.counter ?? credential.counter + 1;
    const clientDataJSON = clientData('webauthn.get', ceremony);
    const authenticatorData = Buffer.concat([sha256(ceremony.rpId), Buffer.from([FLAG_UP | FLAG_UV]), uint32(credential.counter)]);
    // ES256: ECDSA P-256 with SHA-256; node's default encoding is DER, as WebAuthn wants.
    const signature = sign('sha256', Buffer.concat([authenticatorData, sha256(clientDataJSON)]), credential.privateKey);
    return {
      id: credentialId,
      rawId: credentialId,
      type: 'public-key',
      response: {
        clientDataJSON: clientDataJSON.toString('base64url'),
        authenticatorData: authenticatorData.toString('base64url'),
        signature: signature.toString('base64url'),
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }
}

function clientData(type: 'webauthn.create' | 'webauthn.get', ceremony: Ceremony): Buffer {
  return Buffer.from(JSON.stringify({ type, challenge: ceremony.challenge, origin: ceremony.origin, crossOrigin: false }), 'utf8');
}

/** The COSE_Key of an EC2 P-256 public key for ES256 (RFC 9053): kty 2, alg -7, crv 1, x, y. */
function coseKey(publicKey: KeyObject): Buffer {
  const jwk = publicKey.export({ format: 'jwk' });
  if (jwk.x === undefined || jwk.y === undefined) throw new Error('not an EC public key');
  return cborEncode(
    new Map<number, CborValue>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, Buffer.from(jwk.x, 'base64url')],
      [-3, Buffer.from(jwk.y, 'base64url')],
    ]),
  );
}

function sha256(data: string | Buffer): Buffer {
  return createHash('sha256').update(data).digest();
}

function uint32(value: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(value);
  return bytes;
}
