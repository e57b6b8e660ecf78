import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKEN_2022_PROGRAM } from '../../devnets/solana-node/index.js';
import type { Address } from '@solana/kit';
import {
  adminNetworks,
  balanceOf,
  createSolanaInvoice,
  eventTypes,
  fundRelayer,
  liveSolanaShop,
  newRecipient,
  pay,
  readIssuance,
  settle,
  startSolanaHarness,
  waitUntil,
  type SolanaHarness,
} from '../support/solana-chain.js';

// Issue 24 items 4 and 6 and "Tests": a relayer without SOL (gas.wait, paid promptly once funded),
// the lamports an invoice costs, and a Token-2022 mint, on the local node through the real app.

const usd = (whole: number) => BigInt(Math.round(whole * 1_000_000));
const SWEEP_FEE = 10_000n;
const SIGNATURE_FEE = 5_000n;

async function relayerLamports(chain: SolanaHarness): Promise<bigint> {
  return BigInt((await adminNetworks(chain.app))[0]?.relayer_balance ?? '0');
}

describe('a Solana relayer without SOL for the sweep', () => {
  let chain: SolanaHarness;
  beforeAll(async () => {
    chain = await startSolanaHarness();
  }, 60_000);
  afterAll(async () => {
    await chain.close();
  });

  it('the payout waits in gas.wait, is counted for the operator, and is swept once the relayer is funded; the lamports it cost', async () => {
    const rent = await chain.rpc.getMinimumBalanceForRentExemption(165n, { commitment: 'confirmed' }).send();
    // Enough for the deposit token account (rent and one signature), not for the sweep.
    await fundRelayer(chain, rent + SIGNATURE_FEE);
    const recipient = await newRecipient(chain);
    const shop = await liveSolanaShop(chain.app, recipient);
    const { allocated: invoice } = await createSolanaInvoice(chain, shop, usd(10));
    expect(invoice.status).toBe('open');
    expect(await relayerLamports(chain)).toBe(0n);

    await pay(chain, invoice.address, usd(10));
    await settle(chain);
    expect((await readIssuance(chain, shop, invoice.id)).status).toBe('funded');
    expect((await adminNetworks(chain.app))[0]?.payouts_waiting_gas).toBe(1);
    expect(await balanceOf(chain, recipient)).toBe(0n);

    // Funded: the tracker wakes the payout at once, not after the gas retry delay.
    await chain.node.airdrop((await adminNetworks(chain.app))[0]?.relayer_address as Address, 1_000_000_000n);
    await waitUntil(async () => (await relayerLamports(chain)) === 1_000_000_000n);
    await settle(chain);
    expect((await readIssuance(chain, shop, invoice.id)).status).toBe('settled');
    expect((await adminNetworks(chain.app))[0]?.payouts_waiting_gas).toBe(0);
    expect(await balanceOf(chain, recipient)).toBe(usd(10) - usd(0.1));
    // The first sweep also paid the fee wallet's token account; a second invoice pays only its own.
    const feeWalletRent = rent;
    expect(1_000_000_000n - (await relayerLamports(chain))).toBe(SWEEP_FEE + feeWalletRent);

    const before = await relayerLamports(chain);
    const second = (await createSolanaInvoice(chain, shop, usd(10))).allocated;
    await pay(chain, second.address, usd(10));
    await settle(chain);
    expect((await readIssuance(chain, shop, second.id)).status).toBe('settled');
    // Per invoice: the deposit token account's rent, one signature to create it, two to sweep.
    expect(before - (await relayerLamports(chain))).toBe(rent + SIGNATURE_FEE + SWEEP_FEE);
    console.warn(`lamports per invoice: rent ${rent}, fees ${SIGNATURE_FEE + SWEEP_FEE}; reclaimed at retirement: rent less one signature`);
  });
});

describe('a Token-2022 mint', () => {
  let chain: SolanaHarness;
  beforeAll(async () => {
    chain = await startSolanaHarness({ tokenProgram: TOKEN_2022_PROGRAM as Address });
    await fundRelayer(chain);
  }, 60_000);
  afterAll(async () => {
    await chain.close();
  });

  it('an exact invoice in a Token-2022 mint: the token account is created in the mint\'s own program, credited at finalized, swept, settled', async () => {
    const recipient = await newRecipient(chain);
    const shop = await liveSolanaShop(chain.app, recipient);
    const { allocated: invoice } = await createSolanaInvoice(chain, shop, usd(25));
    expect(invoice.status).toBe('open');
    const signature = await pay(chain, invoice.address, usd(25));

    // Detection latency: from the transfer's slot finalized to transfer.confirmed, polling as the jobs do.
    const [status] = (await chain.rpc.getSignatureStatuses([signature as never]).send()).value;
    await waitUntil(async () => chain.node.slot('finalized') >= (status?.slot ?? 0n), 20_000);
    const finalizedAt = Date.now();
    await waitUntil(async () => {
      chain.app.clock.advance(1_000);
      await chain.app.jobs.drain();
      return (await eventTypes(chain, invoice.id)).includes('transfer.confirmed');
    }, 20_000);
    console.warn(`detection after finalized: ${Date.now() - finalizedAt} ms`);

    await settle(chain);
    expect((await readIssuance(chain, shop, invoice.id)).status).toBe('settled');
    expect(await balanceOf(chain, recipient)).toBe(usd(25) - usd(0.125));
    expect(await balanceOf(chain, invoice.address)).toBe(0n);
    expect(await eventTypes(chain, invoice.id)).toEqual(['transfer.observed', 'transfer.confirmed', 'payout.sent', 'payout.confirmed', 'invoice.closed']);
  });
});
