import fs from 'node:fs';
import { countRows } from '../support/database.js';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getAddress } from 'viem';
import { parseSiweMessage } from 'viem/siwe';
import { DEFAULT_CATALOGUE_FILE } from '../../src/catalogue/index.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { evmChainId, newWalletAccount, signInWithWallet } from '../support/wallet.js';

const CHALLENGE = '/api/v1/auth/wallet/challenge';
const VERIFY = '/api/v1/auth/wallet/verify';
const FIVE_MINUTES = 5 * 60 * 1000;
const THIRTY_DAYS = 30 * 24 * 60 * 60 * 1000;

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app.close();
});

async function challengeFor(address: string, chainId = evmChainId(app)) {
  const response = await app.request({ method: 'POST', url: CHALLENGE, payload: { address, chain_id: chainId } });
  expect(response.statusCode).toBe(200);
  return response.json<{ challenge_id: string; message: string }>();
}

function verify(payload: unknown) {
  return app.request({ method: 'POST', url: VERIFY, payload: payload as Record<string, unknown> });
}

describe('SPEC "Sign-in" POST /auth/wallet/challenge', () => {
  it('answers 200 {challenge_id, message} with an EIP-4361 message for the checksummed address', async () => {
    const account = newWalletAccount();
    const chainId = evmChainId(app);
    const before = app.clock.now();
    const response = await app.request({
      method: 'POST',
      url: CHALLENGE,
      payload: { address: account.address.toLowerCase(), chain_id: chainId },
    });
    expect(response.statusCode).toBe(200);
    const body = response.json<{ challenge_id: string; message: string }>();
    expect(Object.keys(body).sort()).toEqual(['challenge_id', 'message']);
    expect(body.challenge_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

    expect(body.message.startsWith('ivory.test wants you to sign in with your Ethereum account:\n')).toBe(true);
    const fields = parseSiweMessage(body.message);
    expect(fields.domain).toBe('ivory.test');
    expect(fields.address).toBe(getAddress(account.address));
    expect(fields.statement).toBeTruthy();
    expect(fields.uri).toBe('http://ivory.test');
    expect(fields.version).toBe('1');
    expect(fields.chainId).toBe(chainId);
    expect(fields.nonce).toMatch(/^[A-Za-z0-9]{8,}$/);
    expect(fields.issuedAt?.getTime()).toBe(before.getTime());
    expect(fields.expirationTime?.getTime()).toBe(before.getTime() + FIVE_MINUTES);
  });

  it('gives every challenge its own nonce and id', async () => {
    const account = newWalletAccount();
    const first = await challengeFor(account.address);
    const second = await challengeFor(account.address);
    expect(first.challenge_id).not.toBe(second.challenge_id);
    expect(parseSiweMessage(first.message).nonce).not.toBe(parseSiweMessage(second.message).nonce);
  });

  it.each([
    ['not hex', 'hello'],
    ['39 hex digits', `0x${'a'.repeat(39)}`],
    ['41 hex digits', `0x${'a'.repeat(41)}`],
    ['no 0x prefix', 'a'.repeat(40)],
    ['empty', ''],
    ['a number', 12345],
    ['null', null],
  ])('refuses an address that is %s: 400 invalid_address, nothing stored', async (_label, address) => {
    const before = await countRows(app.context.db, 'wallet_challenges');
    const response = await app.request({ method: 'POST', url: CHALLENGE, payload: { address, chain_id: evmChainId(app) } });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ error: { code: 'invalid_address', message: 'invalid_address', details: { field: 'address', reason: expect.any(String) } } });
    expect(await countRows(app.context.db, 'wallet_challenges')).toBe(before);
  });

  it('refuses a missing address with invalid_address', async () => {
    const response = await app.request({ method: 'POST', url: CHALLENGE, payload: { chain_id: evmChainId(app) } });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe('invalid_address');
  });

  it.each([
    ['unknown to the catalogue', 999_999],
    ['Tron (not EVM)', 728126428],
    ['Solana (not EVM)', 900],
    ['a string', '1'],
    ['a fraction', 1.5],
    ['null', null],
  ])('refuses a chain_id that is %s: 400 unsupported_network, nothing stored', async (_label, chainId) => {
    const before = await countRows(app.context.db, 'wallet_challenges');
    const response = await app.request({
      method: 'POST',
      url: CHALLENGE,
      payload: { address: newWalletAccount().address, chain_id: chainId },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ error: { code: 'unsupported_network', message: 'unsupported_network', details: { field: 'chain_id', reason: expect.any(String) } } });
    expect(await countRows(app.context.db, 'wallet_challenges')).toBe(before);
  });

  it('refuses a missing chain_id with unsupported_network', async () => {
    const response = await app.request({ method: 'POST', url: CHALLENGE, payload: { address: newWalletAccount().address } });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe('unsupported_network');
  });

  it('refuses unknown fields with invalid_json and a non-JSON body with json_content_type_required', async () => {
    const unknown = await app.request({
      method: 'POST',
      url: CHALLENGE,
      payload: { address: newWalletAccount().address, chain_id: evmChainId(app), extra: true },
    });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().error.code).toBe('invalid_json');

    const text = await app.request({
      method: 'POST',
      url: CHALLENGE,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'address=0x',
    });
    expect(text.statusCode).toBe(400);
    expect(text.json().error.code).toBe('json_content_type_required');
  });
});

describe('SPEC "Sign-in" challenge on a disabled EVM network', () => {
  let disabledApp: TestApp;
  let directory: string;
  beforeAll(async () => {
    const catalogue = JSON.parse(fs.readFileSync(DEFAULT_CATALOGUE_FILE, 'utf8')) as {
      networks: { chain_id: number; family: string; enabled: boolean; tokens: { icon?: string }[] }[];
    };
    for (const network of catalogue.networks) {
      for (const token of network.tokens) delete token.icon;
      if (network.chain_id === 8453) network.enabled = false;
    }
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'ivory-networks-'));
    const file = path.join(directory, 'networks.json');
    fs.writeFileSync(file, JSON.stringify(catalogue));
    disabledApp = await createTestApp({ NETWORKS_FILE: file });
  });
  afterAll(async () => {
    await disabledApp.close();
    fs.rmSync(directory, { recursive: true, force: true });
  });

  it('answers 400 unsupported_network for a network that is not available', async () => {
    const response = await disabledApp.request({
      method: 'POST',
      url: CHALLENGE,
      payload: { address: newWalletAccount().address, chain_id: 8453 },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe('unsupported_network');
  });
});

describe('SPEC "Sign-in" POST /auth/wallet/verify', () => {
  it('opens a session for a correct EIP-191 signature: 200 {token, expires_at, user}, no cookie', async () => {
    const account = newWalletAccount();
    const usersBefore = await countRows(app.context.db, 'users');
    const { challenge_id, message } = await challengeFor(account.address);
    const signature = await account.signMessage({ message });
    const response = await verify({ challenge_id, signature });

    expect(response.statusCode).toBe(200);
    expect(response.headers['set-cookie']).toBeUndefined();
    const body = response.json<{ token: string; expires_at: string; user: Record<string, unknown> }>();
    expect(Object.keys(body).sort()).toEqual(['expires_at', 'token', 'user']);
    expect(body.token.length).toBeGreaterThanOrEqual(43);
    expect(body.token.startsWith('ivk_')).toBe(false);
    expect(new Date(body.expires_at).getTime()).toBe(app.clock.now().getTime() + THIRTY_DAYS);
    expect(body.user).toEqual({
      user_id: expect.any(String),
      onboarding_required: true,
      mfa_required: false,
      mfa_at: null,
    });

    expect(await countRows(app.context.db, 'users')).toBe(usersBefore + 1);
    const identity = await app.context.db
      .selectFrom('identities')
      .selectAll()
      .where('user_id', '=', body.user.user_id as string)
      .executeTakeFirstOrThrow();
    expect(identity).toMatchObject({ provider: 'wallet', subject: account.address.toLowerCase(), label: getAddress(account.address) });
    const session = await app.context.db
      .selectFrom('sessions')
      .selectAll()
      .where('user_id', '=', body.user.user_id as string)
      .executeTakeFirstOrThrow();
    expect(session.token_hash).not.toBe(body.token); // stored only as a hash
    expect(session.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(session.method).toBe('wallet');

    const me = await app.request({ method: 'GET', url: '/api/v1/me', headers: { authorization: `Bearer ${body.token}` } });
    expect(me.statusCode).toBe(200);
  });

  it('lands a second sign-in of the same wallet in the same account', async () => {
    const account = newWalletAccount();
    const first = await signInWithWallet(app, account);
    const users = await countRows(app.context.db, 'users');
    const second = await signInWithWallet(app, account);
    expect(second.userId).toBe(first.userId);
    expect(second.token).not.toBe(first.token);
    expect(await countRows(app.context.db, 'users')).toBe(users);
  });

  it('needs no Idempotency-Key (SPEC "Authentication" 7: sign-in challenges do not use it)', async () => {
    const { token } = await signInWithWallet(app);
    expect(token).toBeTruthy();
  });

  it('refuses a reused challenge: 401 unauthorized, no second session', async () => {
    const account = newWalletAccount();
    const { challenge_id, message } = await challengeFor(account.address);
    const signature = await account.signMessage({ message });
    expect((await verify({ challenge_id, signature })).statusCode).toBe(200);
    const sessions = await countRows(app.context.db, 'sessions');
    const again = await verify({ challenge_id, signature });
    expect(again.statusCode).toBe(401);
    expect(again.json()).toEqual({ error: { code: 'unauthorized', message: 'unauthorized' } });
    expect(await countRows(app.context.db, 'sessions')).toBe(sessions);
  });

  it('refuses an expired challenge (after 5 minutes) with 401, and accepts it just before', async () => {
    const account = newWalletAccount();
    const late = await challengeFor(account.address);
    const inTime = await challengeFor(account.address);
    app.clock.advance(FIVE_MINUTES - 1);
    const ok = await verify({ challenge_id: inTime.challenge_id, signature: await account.signMessage({ message: inTime.message }) });
    expect(ok.statusCode).toBe(200);
    app.clock.advance(1);
    const users = await countRows(app.context.db, 'users');
    const sessions = await countRows(app.context.db, 'sessions');
    const expired = await verify({ challenge_id: late.challenge_id, signature: await account.signMessage({ message: late.message }) });
    expect(expired.statusCode).toBe(401);
    expect(expired.json().error.code).toBe('unauthorized');
    expect(await countRows(app.context.db, 'users')).toBe(users);
    expect(await countRows(app.context.db, 'sessions')).toBe(sessions);
  });

  it('refuses a signature by another wallet with 401 and leaves the challenge usable by its owner', async () => {
    const account = newWalletAccount();
    const intruder = newWalletAccount();
    const { challenge_id, message } = await challengeFor(account.address);
    const users = await countRows(app.context.db, 'users');
    const sessions = await countRows(app.context.db, 'sessions');

    const forged = await verify({ challenge_id, signature: await intruder.signMessage({ message }) });
    expect(forged.statusCode).toBe(401);
    expect(forged.json().error.code).toBe('unauthorized');
    expect(await countRows(app.context.db, 'users')).toBe(users);
    expect(await countRows(app.context.db, 'sessions')).toBe(sessions);

    const genuine = await verify({ challenge_id, signature: await account.signMessage({ message }) });
    expect(genuine.statusCode).toBe(200);
  });

  it('refuses a signature of anything but the message exactly as received', async () => {
    const account = newWalletAccount();
    const { challenge_id, message } = await challengeFor(account.address);
    const altered = await verify({ challenge_id, signature: await account.signMessage({ message: `${message} ` }) });
    expect(altered.statusCode).toBe(401);
    const rawHash = await verify({ challenge_id, signature: await account.signMessage({ message: { raw: '0x1234' } }) });
    expect(rawHash.statusCode).toBe(401);
  });

  it.each([
    ['an unknown challenge id', () => ({ challenge_id: '6f1c2a4e-3b1d-4c8e-9a7f-0e5d2b3c4a1f', signature: `0x${'11'.repeat(65)}` })],
    ['a challenge id that is not a UUID', () => ({ challenge_id: 'nope', signature: `0x${'11'.repeat(65)}` })],
    ['a challenge id of the wrong type', () => ({ challenge_id: 42, signature: `0x${'11'.repeat(65)}` })],
    ['no challenge id', () => ({ signature: `0x${'11'.repeat(65)}` })],
  ])('refuses %s with 401 unauthorized', async (_label, payload) => {
    const sessions = await countRows(app.context.db, 'sessions');
    const response = await verify(payload());
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({ error: { code: 'unauthorized', message: 'unauthorized' } });
    expect(await countRows(app.context.db, 'sessions')).toBe(sessions);
  });

  it.each([
    ['too short', '0x1234'],
    ['not hex', `0x${'zz'.repeat(65)}`],
    ['without 0x', '11'.repeat(65)],
    ['65 bytes of garbage', `0x${'ff'.repeat(65)}`],
    ['empty', ''],
    ['a number', 1],
    ['missing', undefined],
  ])('refuses a signature that is %s with 401 and does not consume the challenge', async (_label, signature) => {
    const account = newWalletAccount();
    const { challenge_id, message } = await challengeFor(account.address);
    const response = await verify(signature === undefined ? { challenge_id } : { challenge_id, signature });
    expect(response.statusCode).toBe(401);
    expect(response.json().error.code).toBe('unauthorized');
    const row = await app.context.db.selectFrom('wallet_challenges').select('consumed_at').where('id', '=', challenge_id).executeTakeFirstOrThrow();
    expect(row.consumed_at).toBeNull();
    expect((await verify({ challenge_id, signature: await account.signMessage({ message }) })).statusCode).toBe(200);
  });

  it('lets exactly one of two concurrent verifications of one challenge succeed', async () => {
    const account = newWalletAccount();
    const { challenge_id, message } = await challengeFor(account.address);
    const signature = await account.signMessage({ message });
    const sessions = await countRows(app.context.db, 'sessions');
    const answers = await Promise.all([verify({ challenge_id, signature }), verify({ challenge_id, signature })]);
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([200, 401]);
    expect(await countRows(app.context.db, 'sessions')).toBe(sessions + 1);
  });

  it('makes one account of concurrent first sign-ins of one wallet', async () => {
    const account = newWalletAccount();
    const first = await challengeFor(account.address);
    const second = await challengeFor(account.address);
    const answers = await Promise.all([
      verify({ challenge_id: first.challenge_id, signature: await account.signMessage({ message: first.message }) }),
      verify({ challenge_id: second.challenge_id, signature: await account.signMessage({ message: second.message }) }),
    ]);
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200]);
    const ids = answers.map((answer) => answer.json<{ user: { user_id: string } }>().user.user_id);
    expect(ids[0]).toBe(ids[1]);
    const identities = await app.context.db
      .selectFrom('identities')
      .select('user_id')
      .where('provider', '=', 'wallet')
      .where('subject', '=', account.address.toLowerCase())
      .execute();
    expect(identities).toHaveLength(1);
  });
});
