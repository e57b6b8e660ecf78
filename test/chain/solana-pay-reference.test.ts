import { address as toAddress } from '@solana/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listIssuanceChainTransfers } from '../../src/chains/ingest/index.js';
import { findAddressCursor } from '../../src/chains/ingest/address-cursor.repository.js';
import { findDepositAddress } from '../../src/chains/solana/solana-keys.repository.js';
import type { SolanaTables } from '../../src/chains/solana/solana.schema.js';
import { solanaTransferSource } from '../../src/chains/solana/solana-transfer-source.js';
import {
  SOLANA_CHAIN_ID,
  createSolanaDeposit,
  createSolanaInvoice,
  eventTypes,
  fundRelayer,
  liveSolanaShop,
  newRecipient,
  pay,
  readIssuance,
  settle,
  startSolanaHarness,
  type SolanaHarness,
} from '../support/solana-chain.js';
import { payWithSolanaPay } from '../support/solana-pay-wallet.js';

// Issue 24 item 7, decision 0039: each Solana issuance's Solana Pay reference is stored with its
// deposit key and read by the watcher while the issuance is open; a transaction found through the
// reference is the same credit as through the token account (signature + token account), once.

const usd = (whole: number) => BigInt(Math.round(whole * 1_000_000));

describe('Solana Pay reference on the local node', () => {
  let chain: SolanaHarness;
  beforeAll(async () => {
    chain = await startSolanaHarness();
    await fundRelayer(chain, 2_000_000_000n);
  }, 60_000);
  afterAll(async () => {
    await chain?.close();
  });

  async function referenceOf(issuanceId: string) {
    const deposit = await findDepositAddress(chain.app.context.db, issuanceId);
    if (deposit?.reference == null) throw new Error(`issuance ${issuanceId} has no reference`);
    return { reference: deposit.reference, tokenAccount: deposit.tokenAccount };
  }

  it('each issuance gets its own reference at allocation: 32 bytes in base58, unique', async () => {
    const shop = await liveSolanaShop(chain.app, await newRecipient(chain));
    const { allocated: first } = await createSolanaInvoice(chain, shop, usd(1));
    const second = await createSolanaDeposit(chain, shop);
    const [a, b] = [await referenceOf(first.id), await referenceOf(second.id)];
    expect(a.reference).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    expect(toAddress(a.reference)).toBe(a.reference);
    expect(a.reference).not.toBe(b.reference);
    expect([first.address, a.tokenAccount]).not.toContain(a.reference);
    // The column is unique: a second issuance can never be given the same reference.
    await expect(
      chain.app.context.db.withTables<SolanaTables>().updateTable('solana_deposit_addresses').set({ reference: a.reference }).where('issuance_id', '=', second.id).execute(),
    ).rejects.toThrow();
  });

  it('a payment made like a Solana Pay wallet (reference as an extra read-only key) is credited once, though the token account and the reference both see it', async () => {
    const shop = await liveSolanaShop(chain.app, await newRecipient(chain));
    const amount = usd(20);
    const { allocated: invoice } = await createSolanaInvoice(chain, shop, amount);
    const { reference, tokenAccount } = await referenceOf(invoice.id);
    const signature = await payWithSolanaPay(chain, invoice.address, amount, reference);

    // Both addresses index the transaction on the node.
    const byReference = await chain.rpc.getSignaturesForAddress(toAddress(reference), { commitment: 'confirmed' }).send();
    const byAccount = await chain.rpc.getSignaturesForAddress(toAddress(tokenAccount), { commitment: 'confirmed' }).send();
    expect(byReference.map((entry) => entry.signature)).toEqual([signature]);
    expect(byAccount.map((entry) => entry.signature)).toContain(signature);

    // Either path reads the same transfer under the same key: the token account's balance change.
    const source = solanaTransferSource({
      rpc: chain.rpc,
      chainId: SOLANA_CHAIN_ID,
      watched: (address) => ([reference, tokenAccount].includes(address) ? { issuanceId: invoice.id, tokenAccount, owner: invoice.address, mint: chain.mint } : undefined),
    });
    const [throughReference] = (await source.read(reference, null)).transfers;
    const [throughAccount] = (await source.read(tokenAccount, null)).transfers;
    expect(throughReference).toMatchObject({ txHash: signature, amount, toAddress: invoice.address, issuanceId: invoice.id, credited: true });
    expect(throughReference?.logIndex).toBe(throughAccount?.logIndex);

    await settle(chain);
    const settled = await readIssuance(chain, shop, invoice.id);
    expect(settled.status).toBe('settled');
    expect(settled.received).toBe(amount.toString());
    expect(await eventTypes(chain, invoice.id)).toEqual(['transfer.observed', 'transfer.confirmed', 'payout.sent', 'payout.confirmed', 'invoice.closed']);
    const rows = await listIssuanceChainTransfers(chain.app.context.db, invoice.id);
    expect(rows.filter((row) => row.txHash === signature)).toHaveLength(1);
    // The watcher did read the reference: its own cursor stands on the finalized payment.
    expect(await findAddressCursor(chain.app.context.db, SOLANA_CHAIN_ID, reference)).toBe(signature);
  });

  it('a payment without the reference (any wallet, by address) still credits, through the token account', async () => {
    const shop = await liveSolanaShop(chain.app, await newRecipient(chain));
    const { allocated: invoice } = await createSolanaInvoice(chain, shop, usd(8));
    const { reference } = await referenceOf(invoice.id);
    await pay(chain, invoice.address, usd(8));
    await settle(chain);
    const settled = await readIssuance(chain, shop, invoice.id);
    expect(settled.status).toBe('settled');
    expect(settled.received).toBe(usd(8).toString());
    // Nothing ever went through the reference: its cursor never moved.
    expect(await findAddressCursor(chain.app.context.db, SOLANA_CHAIN_ID, reference)).toBeNull();
  });

  it('the reference is read only while the issuance is open: a late Solana Pay payment after settlement is found through the token account alone', async () => {
    const shop = await liveSolanaShop(chain.app, await newRecipient(chain));
    const { allocated: invoice } = await createSolanaInvoice(chain, shop, usd(5));
    const { reference } = await referenceOf(invoice.id);
    const first = await payWithSolanaPay(chain, invoice.address, usd(5), reference);
    await settle(chain);
    expect((await readIssuance(chain, shop, invoice.id)).status).toBe('settled');
    expect(await findAddressCursor(chain.app.context.db, SOLANA_CHAIN_ID, reference)).toBe(first);

    const late = await payWithSolanaPay(chain, invoice.address, usd(2), reference);
    await settle(chain);
    const rows = await listIssuanceChainTransfers(chain.app.context.db, invoice.id);
    expect(rows.map((row) => row.txHash)).toContain(late);
    expect(rows.filter((row) => row.txHash === late)).toHaveLength(1);
    // Recorded (a late transfer), yet the settled issuance's reference was not read again.
    expect(await findAddressCursor(chain.app.context.db, SOLANA_CHAIN_ID, reference)).toBe(first);
  });
});
