import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendSolanaPayout, type SendSolanaPayoutDeps } from '../../src/chains/solana/payouts/send-solana-payout.js';
import { listSolanaPayoutTransactions } from '../../src/chains/solana/payouts/solana-payout-transactions.repository.js';
import { solanaNetworkOf } from '../../src/chains/solana/solana-network.js';
import type { PayoutRequest } from '../../src/chains/index.js';
import {
  SOLANA_CHAIN_ID,
  balanceOf,
  createSolanaInvoice,
  fundRelayer,
  liveSolanaShop,
  newRecipient,
  pay,
  startSolanaHarness,
  waitUntil,
  type SolanaHarness,
} from '../support/solana-chain.js';

// ARCHITECTURE "Chains" and chains/expiring-payout.ts: a Solana sweep is signed and stored before
// it is broadcast, and signed anew only when every earlier transaction is proven unable to land
// (absent, its lastValidBlockHeight below the finalized block height). A crash after signing,
// after storing, after broadcasting, and a blockhash that expired meanwhile: exactly one sweep.

class Crash extends Error {}

describe('Solana sweeps that cannot be sent twice', () => {
  let chain: SolanaHarness;
  let deps: SendSolanaPayoutDeps;
  beforeAll(async () => {
    chain = await startSolanaHarness();
    await fundRelayer(chain);
    const entry = chain.app.context.catalogue.network(SOLANA_CHAIN_ID);
    if (entry?.chain?.family !== 'solana') throw new Error('no Solana access in the catalogue');
    deps = { db: chain.app.context.db, secrets: chain.app.context.secrets, clock: chain.app.clock, rpc: chain.rpc, network: solanaNetworkOf(entry, entry.chain), log: chain.app.context.log };
  }, 60_000);
  afterAll(async () => {
    await chain.close();
  });

  /** A paid invoice whose sweep the test sends by hand (no job runs: the app's payout worker stays out). */
  async function paidAddress(amount: bigint) {
    const recipient = await newRecipient(chain);
    const shop = await liveSolanaShop(chain.app, recipient);
    const { allocated } = await createSolanaInvoice(chain, shop, amount);
    await pay(chain, allocated.address, amount);
    const request: PayoutRequest = {
      payoutId: randomUUID(),
      issuanceId: allocated.id,
      chainId: SOLANA_CHAIN_ID,
      family: 'solana',
      token: chain.mint,
      tokenDecimals: 6,
      fromAddress: allocated.address,
      recipient,
      toRecipient: amount - 100_000n,
      toOperator: 100_000n,
    };
    return { recipient, address: allocated.address, request };
  }

  it('a crash after signing (nothing stored) signs again; a crash after broadcasting follows the same transaction', async () => {
    const { recipient, address, request } = await paidAddress(10_000_000n);
    await expect(sendSolanaPayout({ ...deps, hooks: { afterSign: () => Promise.reject(new Crash()) } }, request)).rejects.toBeInstanceOf(Crash);
    expect(await listSolanaPayoutTransactions(deps.db, SOLANA_CHAIN_ID, request.payoutId)).toHaveLength(0);

    const first = await sendSolanaPayout(deps, request);
    expect(first.kind).toBe('broadcast');
    await waitUntil(async () => (await balanceOf(chain, recipient)) === request.toRecipient);
    // The worker never heard the answer and asks again: the same transaction, no second sweep.
    const again = await sendSolanaPayout(deps, request);
    expect(again).toEqual(first);
    expect(await listSolanaPayoutTransactions(deps.db, SOLANA_CHAIN_ID, request.payoutId)).toHaveLength(1);
    expect(await balanceOf(chain, recipient)).toBe(request.toRecipient);
    expect(await balanceOf(chain, address)).toBe(0n);
  });

  it('a crash after storing, then the blockhash expires: the stored transaction is proven dead at finalized before one new sweep is signed', async () => {
    const { recipient, address, request } = await paidAddress(10_000_000n);
    await expect(sendSolanaPayout({ ...deps, hooks: { afterStore: () => Promise.reject(new Crash()) } }, request)).rejects.toBeInstanceOf(Crash);
    const [stored] = await listSolanaPayoutTransactions(deps.db, SOLANA_CHAIN_ID, request.payoutId);
    expect(stored?.status).toBe('signed');

    // While the stored transaction can still land, the sender sends that one, never a new one.
    chain.node.pause();
    const resent = await sendSolanaPayout(deps, request);
    expect(resent).toEqual({ kind: 'broadcast', txHash: stored?.signature });
    chain.node.drop(stored?.signature ?? '');
    chain.node.resume();
    // Past its lastValidBlockHeight at the finalized height: proven unable to land.
    const expiry = stored?.lastValidBlockHeight ?? 0n;
    await waitUntil(async () => chain.node.slot('finalized') > expiry + 1n, 20_000);
    const [status] = (await chain.rpc.getSignatureStatuses([stored?.signature as never], { searchTransactionHistory: true }).send()).value;
    expect(status).toBeNull();

    const fresh = await sendSolanaPayout(deps, request);
    expect(fresh.kind).toBe('broadcast');
    expect(fresh).not.toEqual(resent);
    await waitUntil(async () => (await balanceOf(chain, recipient)) === request.toRecipient);
    expect(await listSolanaPayoutTransactions(deps.db, SOLANA_CHAIN_ID, request.payoutId)).toHaveLength(2);
    expect(await balanceOf(chain, address)).toBe(0n);
  });
});
