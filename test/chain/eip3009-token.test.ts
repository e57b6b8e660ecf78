import { hashDomain, parseSignature, toHex, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deployTestStablecoin3009, testStablecoin3009Abi } from '../../src/chains/evm/contracts/index.js';
import { ANVIL_KEYS, startAnvil, type Anvil } from '../support/anvil.js';

// contracts/test/TestStablecoin3009.sol against the EIP-3009 text: the token x402 settles with
// on the devnet and in test/chain/x402-invoices.test.ts (docs/decisions/0035).

const DOMAIN = { name: 'Test USD 3009', version: '2' } as const;
const TYPES = {
  TransferWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const;
const SECP256K1_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

describe('TestStablecoin3009 (EIP-3009)', () => {
  let anvil: Anvil;
  let token: Address;
  const relayer = privateKeyToAccount(ANVIL_KEYS[2]);

  beforeAll(async () => {
    anvil = await startAnvil();
    token = await deployTestStablecoin3009({ rpcUrl: anvil.rpcUrl, privateKey: ANVIL_KEYS[0], ...DOMAIN });
  }, 60_000);
  afterAll(async () => {
    await anvil.stop();
  });

  async function holder(amount: bigint): Promise<PrivateKeyAccount> {
    const account = privateKeyToAccount(generatePrivateKey());
    const hash = await anvil.client.writeContract({ account: relayer, chain: anvil.chain, address: token, abi: testStablecoin3009Abi, functionName: 'mint', args: [account.address, amount] });
    await anvil.client.waitForTransactionReceipt({ hash });
    return account;
  }

  async function authorise(from: PrivateKeyAccount, to: Address, value: bigint, window: { validAfter?: bigint; validBefore?: bigint } = {}) {
    const now = BigInt(Math.floor(Date.now() / 1000));
    const message = { from: from.address, to, value, validAfter: window.validAfter ?? 0n, validBefore: window.validBefore ?? now + 3600n, nonce: toHex(crypto.getRandomValues(new Uint8Array(32))) };
    const signature = await from.signTypedData({ domain: { ...DOMAIN, chainId: anvil.chainId, verifyingContract: token }, types: TYPES, primaryType: 'TransferWithAuthorization', message });
    return { message, signature };
  }

  function submit(authorisation: { message: { from: Address; to: Address; value: bigint; validAfter: bigint; validBefore: bigint; nonce: Hex }; signature: Hex }, override: { value?: bigint; s?: Hex; v?: number } = {}) {
    const { message } = authorisation;
    const { r, s, v } = parseSignature(authorisation.signature);
    return anvil.client.writeContract({
      account: relayer,
      chain: anvil.chain,
      address: token,
      abi: testStablecoin3009Abi,
      functionName: 'transferWithAuthorization',
      args: [message.from, message.to, override.value ?? message.value, message.validAfter, message.validBefore, message.nonce, override.v ?? Number(v), r, override.s ?? s],
    });
  }

  const balance = (address: Address) => anvil.client.readContract({ address: token, abi: testStablecoin3009Abi, functionName: 'balanceOf', args: [address] });
  const used = (authorizer: Address, nonce: Hex) => anvil.client.readContract({ address: token, abi: testStablecoin3009Abi, functionName: 'authorizationState', args: [authorizer, nonce] });

  it('DOMAIN_SEPARATOR is the EIP-712 domain (name, version, chain id, the token)', async () => {
    const separator = await anvil.client.readContract({ address: token, abi: testStablecoin3009Abi, functionName: 'DOMAIN_SEPARATOR' });
    expect(separator).toBe(hashDomain({ domain: { ...DOMAIN, chainId: BigInt(anvil.chainId), verifyingContract: token }, types: { EIP712Domain: [{ name: 'name', type: 'string' }, { name: 'version', type: 'string' }, { name: 'chainId', type: 'uint256' }, { name: 'verifyingContract', type: 'address' }] } }));
    expect(await anvil.client.readContract({ address: token, abi: testStablecoin3009Abi, functionName: 'decimals' })).toBe(6);
  });

  it('a relayer submits a signed authorisation: the tokens move, the nonce is used, and a replay reverts', async () => {
    const payer = await holder(5_000_000n);
    const payee = privateKeyToAccount(generatePrivateKey()).address;
    const authorisation = await authorise(payer, payee, 2_000_000n);
    expect(await used(payer.address, authorisation.message.nonce)).toBe(false);
    await anvil.client.waitForTransactionReceipt({ hash: await submit(authorisation) });
    expect(await balance(payee)).toBe(2_000_000n);
    expect(await used(payer.address, authorisation.message.nonce)).toBe(true);
    await expect(submit(authorisation)).rejects.toThrow(/AuthorizationAlreadyUsed/);
    expect(await balance(payee)).toBe(2_000_000n);
  });

  it('an altered value, a malleable signature, an expired or not yet valid authorisation revert', async () => {
    const payer = await holder(5_000_000n);
    const payee = privateKeyToAccount(generatePrivateKey()).address;
    const authorisation = await authorise(payer, payee, 1_000_000n);
    await expect(submit(authorisation, { value: 1_000_001n })).rejects.toThrow(/InvalidSignature/);
    const { s, v } = parseSignature(authorisation.signature);
    const twinS = toHex(SECP256K1_ORDER - BigInt(s), { size: 32 });
    await expect(submit(authorisation, { s: twinS, v: Number(v) === 27 ? 28 : 27 })).rejects.toThrow(/InvalidSignature/);
    const now = BigInt(Math.floor(Date.now() / 1000));
    await expect(submit(await authorise(payer, payee, 1n, { validAfter: 0n, validBefore: now - 60n }))).rejects.toThrow(/AuthorizationExpired/);
    await expect(submit(await authorise(payer, payee, 1n, { validAfter: now + 3600n, validBefore: now + 7200n }))).rejects.toThrow(/AuthorizationNotYetValid/);
    expect(await balance(payee)).toBe(0n);
  });

  it('the bytes-signature form settles the same authorisation; a cancelled nonce can never run', async () => {
    const payer = await holder(5_000_000n);
    const payee = privateKeyToAccount(generatePrivateKey()).address;
    const { message, signature } = await authorise(payer, payee, 1_500_000n);
    const hash = await anvil.client.writeContract({
      account: relayer,
      chain: anvil.chain,
      address: token,
      abi: testStablecoin3009Abi,
      functionName: 'transferWithAuthorization',
      args: [message.from, message.to, message.value, message.validAfter, message.validBefore, message.nonce, signature],
    });
    await anvil.client.waitForTransactionReceipt({ hash });
    expect(await balance(payee)).toBe(1_500_000n);

    const cancelled = await authorise(payer, payee, 1_000_000n);
    const cancel = await payer.signTypedData({
      domain: { ...DOMAIN, chainId: anvil.chainId, verifyingContract: token },
      types: { CancelAuthorization: [{ name: 'authorizer', type: 'address' }, { name: 'nonce', type: 'bytes32' }] },
      primaryType: 'CancelAuthorization',
      message: { authorizer: payer.address, nonce: cancelled.message.nonce },
    });
    const parts = parseSignature(cancel);
    await anvil.client.waitForTransactionReceipt({
      hash: await anvil.client.writeContract({ account: relayer, chain: anvil.chain, address: token, abi: testStablecoin3009Abi, functionName: 'cancelAuthorization', args: [payer.address, cancelled.message.nonce, Number(parts.v), parts.r, parts.s] }),
    });
    await expect(submit(cancelled)).rejects.toThrow(/AuthorizationAlreadyUsed/);
    expect(await balance(payee)).toBe(1_500_000n);
  });
});
