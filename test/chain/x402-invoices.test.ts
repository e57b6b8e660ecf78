import { encodePaymentSignatureHeader, decodePaymentRequiredHeader } from '@x402/core/http';
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from '@x402/core/types';
import { authorizationTypes } from '@x402/evm';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { decodePaymentResponseHeader, wrapFetchWithPaymentFromConfig } from '@x402/fetch';
import type { LightMyRequestResponse } from 'fastify';
import { getAddress, parseAbi, toHex, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deployTestStablecoin, deployTestStablecoin3009, testStablecoin3009Abi } from '../../src/chains/evm/contracts/index.js';
import { ANVIL_KEYS } from '../support/anvil.js';
import { authed, newIdempotencyKey } from '../support/app.js';
import {
  balanceOf,
  createLiveInvoice,
  eventTypes,
  fundRelayer,
  liveShop,
  mineAndSettle,
  readIssuance,
  startChainHarness,
  type ChainHarness,
} from '../support/evm-chain.js';
import { createApiKey, createMerchant, createShop, createUser } from '../support/factories.js';

// Issue 26 item 2 and 3: x402 on invoices (docs/decisions/0035). A live invoice in an EIP-3009
// token on a real anvil node, paid by the official x402 client (`@x402/fetch` with `@x402/evm`'s
// exact scheme and a viem account that holds no ETH); the relayer settles, the watcher credits.

const usd = (whole: number) => BigInt(Math.round(whole * 1_000_000));
/** LEDGER "Fees" with the harness's terms (50 bps, min 0.1, max 5 tokens). */
const fee = (amount: bigint) => {
  const raw = (amount * 50n) / 10_000n;
  return raw < 100_000n ? 100_000n : raw > 5_000_000n ? 5_000_000n : raw;
};
const mintAbi = parseAbi(['function mint(address to, uint256 amount)']);
const DOMAIN = { name: 'Test USD 3009', version: '2' } as const;

describe('x402 on live EVM invoices', () => {
  let chain: ChainHarness;
  let token: Address;
  /** A plain ERC-20 listed with an `eip712` by mistake: the catalogue cannot know, the token's answer tells. */
  let misconfigured: Address;
  const gasUsed: bigint[] = [];

  beforeAll(async () => {
    chain = await startChainHarness({
      confirmations: 2,
      catalogueExtras: async (anvil) => {
        token = await deployTestStablecoin3009({ rpcUrl: anvil.rpcUrl, privateKey: ANVIL_KEYS[0], ...DOMAIN });
        misconfigured = await deployTestStablecoin({ rpcUrl: anvil.rpcUrl, privateKey: ANVIL_KEYS[0] });
        return {
          tokens: [
            { address: token, symbol: 'USD3009', decimals: 6, status: 'ready', eip712: DOMAIN },
            { address: misconfigured, symbol: 'NOT3009', decimals: 6, status: 'ready', eip712: DOMAIN },
          ],
          network: { x402_native_price: '1' },
        };
      },
    });
    await fundRelayer(chain);
  }, 60_000);
  afterAll(async () => {
    if (gasUsed.length > 0) process.stdout.write(`x402 settlement gas used: ${gasUsed.join(', ')}\n`);
    await chain.close();
  });

  /** A payer with tokens and no native coin at all: x402's point is that it pays no gas. */
  async function newPayer(amount: bigint): Promise<PrivateKeyAccount> {
    const payer = privateKeyToAccount(generatePrivateKey());
    const minter = privateKeyToAccount(ANVIL_KEYS[0]);
    const client = chain.anvil.client;
    await client.waitForTransactionReceipt({ hash: await client.writeContract({ account: minter, chain: chain.anvil.chain, address: token, abi: mintAbi, functionName: 'mint', args: [payer.address, amount] }) });
    return payer;
  }

  async function openInvoice(amount: bigint, recipient = privateKeyToAccount(generatePrivateKey()).address) {
    const shop = await liveShop(chain.app, recipient);
    const invoice = await createLiveInvoice(chain, shop, amount, { token });
    const publicId = (await chain.app.request({ method: 'GET', url: `/api/v1/shops/${shop.shopId}/issuances/${invoice.id}`, headers: authed(shop.token) })).json<{ payment_url: string }>().payment_url.split('/').pop() as string;
    return { shop, invoice, recipient, publicId, url: `/pay/${publicId}/x402` };
  }

  /** `fetch` over the app's own server (inject): the x402 client speaks to the real routes. */
  const injectFetch: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const response = await chain.app.request({ method: request.method as 'GET', url: `${url.pathname}${url.search}`, headers: Object.fromEntries(request.headers) });
    return new Response(response.statusCode === 204 ? null : response.rawPayload, { status: response.statusCode, headers: response.headers as Record<string, string> });
  };

  const get = (url: string, signature?: string) => chain.app.request({ method: 'GET', url, headers: signature === undefined ? {} : { 'payment-signature': signature } });

  async function requirementsOf(url: string): Promise<{ required: PaymentRequired; accepted: PaymentRequirements }> {
    const response = await get(url);
    expect(response.statusCode).toBe(402);
    const required = decodePaymentRequiredHeader(response.headers['payment-required'] as string);
    const accepted = required.accepts[0];
    if (accepted === undefined) throw new Error('no requirements offered');
    return { required, accepted };
  }

  /** Signs an EIP-3009 authorisation by hand (the tests that alter one), as the exact client would. */
  async function signedHeader(payer: PrivateKeyAccount, accepted: PaymentRequirements, change: Partial<{ to: Address; value: bigint; validAfter: bigint; validBefore: bigint }> = {}, alter?: (payload: PaymentPayload) => void) {
    const now = BigInt(Math.floor(Date.now() / 1000));
    const authorization = {
      from: payer.address,
      to: change.to ?? getAddress(accepted.payTo),
      value: change.value ?? BigInt(accepted.amount),
      validAfter: change.validAfter ?? now - 600n,
      validBefore: change.validBefore ?? now + 300n,
      nonce: toHex(crypto.getRandomValues(new Uint8Array(32))),
    };
    const signature = await payer.signTypedData({
      domain: { ...DOMAIN, chainId: chain.anvil.chainId, verifyingContract: token },
      types: authorizationTypes,
      primaryType: 'TransferWithAuthorization',
      message: authorization,
    });
    const payload: PaymentPayload = {
      x402Version: 2,
      accepted,
      payload: {
        signature,
        authorization: { ...authorization, value: authorization.value.toString(), validAfter: authorization.validAfter.toString(), validBefore: authorization.validBefore.toString() },
      },
    };
    alter?.(payload);
    return encodePaymentSignatureHeader(payload);
  }

  async function storedClaims(): Promise<number> {
    const rows = await chain.app.context.db.withTables<{ x402_authorizations: { id: string } }>().selectFrom('x402_authorizations').select('id').execute();
    return rows.length;
  }

  function x402Error(response: LightMyRequestResponse) {
    const body = response.json<PaymentRequired & { reason?: string; status?: string }>();
    expect(body.x402Version).toBe(2);
    return body;
  }

  it('402 states the exact scheme: CAIP-2 network, the token, the forwarder as payTo, the amount owed, the EIP-712 domain', async () => {
    const { invoice, url, publicId } = await openInvoice(usd(12.5));
    const response = await get(url);
    expect(response.statusCode).toBe(402);
    const body = response.json<PaymentRequired>();
    expect(decodePaymentRequiredHeader(response.headers['payment-required'] as string)).toEqual(body);
    expect(body).toEqual({
      x402Version: 2,
      resource: { url: `http://ivory.test/pay/${publicId}/x402`, description: `Invoice ${publicId}`, mimeType: 'application/json' },
      accepts: [
        {
          scheme: 'exact',
          network: `eip155:${chain.anvil.chainId}`,
          asset: token,
          amount: usd(12.5).toString(),
          payTo: getAddress(invoice.address),
          maxTimeoutSeconds: 300,
          extra: DOMAIN,
        },
      ],
    });
  });

  it('an x402 client pays a live invoice: 402, signed retry, 200 with the settlement; the watcher credits it once and the invoice settles with the exact split', async () => {
    const amount = usd(25);
    const { shop, invoice, recipient, url } = await openInvoice(amount);
    const payer = await newPayer(amount);
    expect(await chain.anvil.client.getBalance({ address: payer.address })).toBe(0n);
    const paidFetch = wrapFetchWithPaymentFromConfig(injectFetch, {
      schemes: [{ network: `eip155:${chain.anvil.chainId}`, client: new ExactEvmScheme(payer) }],
      spendControls: { allowedAssets: [{ network: `eip155:${chain.anvil.chainId}`, asset: token, maxAmountPerPayment: amount.toString() }] },
    });

    const started = Date.now();
    const response = await paidFetch(`http://ivory.test${url}`);
    expect(response.status).toBe(200);
    const settlement = decodePaymentResponseHeader(response.headers.get('payment-response') as string);
    expect(settlement).toMatchObject({ success: true, network: `eip155:${chain.anvil.chainId}`, payer: payer.address });
    const receipt = await chain.anvil.client.getTransactionReceipt({ hash: settlement.transaction as Hex });
    expect(receipt.status).toBe('success');
    gasUsed.push(receipt.gasUsed);
    expect(await balanceOf(chain, invoice.address, token)).toBe(amount);
    expect(await balanceOf(chain, payer.address, token)).toBe(0n);

    // Nothing is credited at settlement time: the watcher does it, like any payment.
    expect((await readIssuance(chain, shop, invoice.id)).received).toBe('0');
    // Meanwhile the amount is on its way: no one is asked for it again.
    const meanwhile = await get(url);
    expect(meanwhile.statusCode).toBe(409);
    expect(x402Error(meanwhile)).toMatchObject({ error: 'settlement_pending', accepts: [] });

    await mineAndSettle(chain);
    const confirmedAfterMs = Date.now() - started;
    process.stdout.write(`x402 request to transfer.confirmed: ${confirmedAfterMs} ms\n`);
    await mineAndSettle(chain);
    const settled = await readIssuance(chain, shop, invoice.id);
    expect(settled.status).toBe('settled');
    expect(settled.received).toBe(amount.toString());
    expect(await eventTypes(chain, invoice.id)).toEqual(['transfer.observed', 'transfer.confirmed', 'payout.sent', 'payout.confirmed', 'invoice.closed']);
    expect(await balanceOf(chain, recipient, token)).toBe(amount - fee(amount));

    // A paid invoice is no longer payable: 409 in the x402 shape, no requirements.
    const after = await get(url);
    expect(after.statusCode).toBe(409);
    expect(x402Error(after)).toMatchObject({ error: 'invoice_not_open', accepts: [] });
  });

  it('a replayed authorisation is refused and nothing is credited twice: two concurrent retries settle once', async () => {
    const amount = usd(3);
    const { shop, invoice, url } = await openInvoice(amount);
    const payer = await newPayer(amount * 2n);
    const { accepted } = await requirementsOf(url);
    const header = await signedHeader(payer, accepted);
    const [first, second] = await Promise.all([get(url, header), get(url, header)]);
    const [winner, loser] = first.statusCode === 200 ? [first, second] : [second, first];
    expect(winner.statusCode).toBe(200);
    // The loser is stopped by the claim: the amount is already in flight (409), or the nonce is claimed (402).
    expect([402, 409]).toContain(loser.statusCode);
    expect(x402Error(loser).error).toMatch(/^(settlement_pending|invalid_exact_evm_nonce_already_used)$/);
    // Replayed again later: refused (the amount is in flight, then the invoice is paid).
    const replay = await get(url, header);
    expect(replay.statusCode).not.toBe(200);
    expect(await balanceOf(chain, invoice.address, token)).toBe(amount);
    expect(await balanceOf(chain, payer.address, token)).toBe(amount);
    await mineAndSettle(chain);
    const funded = await readIssuance(chain, shop, invoice.id);
    expect(funded.received).toBe(amount.toString());
    expect((await eventTypes(chain, invoice.id)).filter((type) => type === 'transfer.confirmed')).toHaveLength(1);
    const late = await get(url, header);
    expect(late.statusCode).toBe(409);
  });

  it('an authorisation already used on chain (submitted by someone else) is refused as a used nonce; its one Transfer is credited once', async () => {
    const amount = usd(6);
    const { shop, invoice, url } = await openInvoice(amount);
    const payer = await newPayer(amount);
    const { accepted } = await requirementsOf(url);
    const header = await signedHeader(payer, accepted);
    const { payload } = JSON.parse(Buffer.from(header, 'base64').toString('utf8')) as PaymentPayload;
    const { authorization, signature } = payload as { signature: Hex; authorization: { from: Address; to: Address; value: string; validAfter: string; validBefore: string; nonce: Hex } };
    const outsider = privateKeyToAccount(ANVIL_KEYS[3]);
    const hash = await chain.anvil.client.writeContract({
      account: outsider,
      chain: chain.anvil.chain,
      address: token,
      abi: testStablecoin3009Abi,
      functionName: 'transferWithAuthorization',
      args: [authorization.from, authorization.to, BigInt(authorization.value), BigInt(authorization.validAfter), BigInt(authorization.validBefore), authorization.nonce, signature],
    });
    await chain.anvil.client.waitForTransactionReceipt({ hash });

    const claimsBefore = await storedClaims();
    const replay = await get(url, header);
    expect(replay.statusCode).toBe(402);
    expect(x402Error(replay).error).toBe('invalid_exact_evm_nonce_already_used');
    expect(await storedClaims()).toBe(claimsBefore);
    await mineAndSettle(chain);
    expect((await readIssuance(chain, shop, invoice.id)).received).toBe(amount.toString());
    expect((await eventTypes(chain, invoice.id)).filter((type) => type === 'transfer.confirmed')).toHaveLength(1);
  });

  it('an altered authorisation is refused with 402 and nothing is stored: amount, recipient, signature, window', async () => {
    const amount = usd(4);
    const { invoice, url } = await openInvoice(amount);
    const payer = await newPayer(amount);
    const { accepted } = await requirementsOf(url);
    const claimsBefore = await storedClaims();

    const cases: Array<[string, Promise<string>]> = [
      ['invalid_exact_evm_payload_authorization_value_mismatch', signedHeader(payer, accepted, { value: amount - 1n })],
      ['invalid_exact_evm_recipient_mismatch', signedHeader(payer, accepted, { to: privateKeyToAccount(generatePrivateKey()).address })],
      // Signed for one amount, presented with another: the signature no longer recovers to `from`.
      [
        'invalid_exact_evm_signature',
        signedHeader(payer, { ...accepted, amount: (amount + 1n).toString() }, { value: amount + 1n }, (payload) => {
          (payload.payload.authorization as { value: string }).value = amount.toString();
        }),
      ],
      ['invalid_exact_evm_payload_authorization_valid_before', signedHeader(payer, accepted, { validAfter: 0n, validBefore: BigInt(Math.floor(Date.now() / 1000) - 60) })],
      ['invalid_exact_evm_payload_authorization_valid_after', signedHeader(payer, accepted, { validAfter: BigInt(Math.floor(Date.now() / 1000) + 3600) })],
      ['invalid_payload', Promise.resolve('not base64 at all!')],
    ];
    for (const [error, header] of cases) {
      const response = await get(url, await header);
      expect(response.statusCode, error).toBe(402);
      const body = x402Error(response);
      expect(body.error, error).toBe(error);
      // Fresh requirements to sign again against, in the header too.
      expect(body.accepts).toEqual([accepted]);
      expect(decodePaymentRequiredHeader(response.headers['payment-required'] as string).error).toBe(error);
    }
    expect(await storedClaims()).toBe(claimsBefore);
    expect(await balanceOf(chain, invoice.address, token)).toBe(0n);
    expect(await balanceOf(chain, payer.address, token)).toBe(amount);
  });

  it('an invoice that is not open answers 409 in the x402 shape; a token without EIP-3009, a sandbox invoice and an unknown id are not offered', async () => {
    const cancelled = await openInvoice(usd(5));
    const cancel = await chain.app.request({ method: 'POST', url: `/api/v1/shops/${cancelled.shop.shopId}/invoices/${cancelled.invoice.id}/cancel`, headers: authed(cancelled.shop.token, newIdempotencyKey()) });
    expect(cancel.statusCode).toBe(200);
    const refused = await get(cancelled.url);
    expect(refused.statusCode).toBe(409);
    expect(x402Error(refused)).toMatchObject({ error: 'invoice_not_open', status: 'cancelled', accepts: [] });
    expect(refused.headers['payment-required']).toBeUndefined();

    // The harness's plain TestStablecoin has no eip712 in the catalogue.
    const shop = await liveShop(chain.app, privateKeyToAccount(generatePrivateKey()).address);
    const plain = await createLiveInvoice(chain, shop, usd(5));
    const plainPage = (await chain.app.request({ method: 'GET', url: `/api/v1/shops/${shop.shopId}/issuances/${plain.id}`, headers: authed(shop.token) })).json<{ payment_url: string }>().payment_url;
    const noToken = await get(`${new URL(plainPage).pathname}/x402`);
    expect(noToken.statusCode).toBe(404);
    expect(x402Error(noToken)).toMatchObject({ error: 'x402_unavailable', reason: 'token', accepts: [] });

    const user = await createUser(chain.app.context.db);
    const merchant = await createMerchant(chain.app.context.db, user.id);
    const sandboxShop = await createShop(chain.app.context.db, merchant.id, { sandbox: true, recipient: privateKeyToAccount(generatePrivateKey()).address });
    const key = await createApiKey(chain.app.context.db, { id: sandboxShop.id, merchantId: merchant.id });
    const created = await chain.app.request({
      method: 'POST',
      url: `/api/v1/shops/${sandboxShop.id}/invoices`,
      headers: authed(key.token, newIdempotencyKey()),
      payload: { chain_id: chain.anvil.chainId, token, amount: usd(5).toString() },
    });
    expect(created.statusCode).toBe(202);
    const sandboxPage = created.json<{ payment_url: string }>().payment_url;
    const sandbox = await get(`${new URL(sandboxPage).pathname}/x402`);
    expect(sandbox.statusCode).toBe(404);
    expect(x402Error(sandbox)).toMatchObject({ error: 'x402_unavailable', reason: 'sandbox' });

    const unknown = await get('/pay/AAAAAAAAAAAAAAAA/x402');
    expect(unknown.statusCode).toBe(404);
    expect(x402Error(unknown)).toMatchObject({ error: 'not_found' });
  });

  it('a token listed with eip712 that has no EIP-3009 refuses the payment by its own answer, nothing stored', async () => {
    const shop = await liveShop(chain.app, privateKeyToAccount(generatePrivateKey()).address);
    const invoice = await createLiveInvoice(chain, shop, usd(5), { token: misconfigured });
    const page = (await chain.app.request({ method: 'GET', url: `/api/v1/shops/${shop.shopId}/issuances/${invoice.id}`, headers: authed(shop.token) })).json<{ payment_url: string }>().payment_url;
    const url = `${new URL(page).pathname}/x402`;
    const { accepted } = await requirementsOf(url);
    const claimsBefore = await storedClaims();
    const response = await get(url, await signedHeader(await newPayer(usd(5)), accepted));
    expect(response.statusCode).toBe(402);
    expect(x402Error(response).error).toBe('invalid_exact_evm_eip3009_not_supported');
    expect(await storedClaims()).toBe(claimsBefore);
  });

  it('the relayer refuses a settlement whose gas would cost more than the invoice fee at the stated native price; the claim is given back', async () => {
    const amount = usd(2);
    const { url, invoice } = await openInvoice(amount);
    const payer = await newPayer(amount);
    const { accepted } = await requirementsOf(url);
    const header = await signedHeader(payer, accepted);
    // fee(2 USD) = 0.1 token at 1 token per ETH: a cap of 0.1 ETH. A base fee of 10^7 gwei puts any call above it.
    await chain.anvil.client.setNextBlockBaseFeePerGas({ baseFeePerGas: 10n ** 16n });
    await chain.anvil.client.mine({ blocks: 1 });
    const claimsBefore = await storedClaims();
    const response = await get(url, header);
    expect(response.statusCode).toBe(402);
    expect(x402Error(response).error).toBe('settlement_gas_over_cap');
    expect(await storedClaims()).toBe(claimsBefore);
    expect(await balanceOf(chain, invoice.address, token)).toBe(0n);
  });
});
