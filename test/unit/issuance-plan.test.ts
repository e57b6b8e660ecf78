import { describe, expect, it } from 'vitest';
import type { Catalogue, Network, Token } from '../../src/catalogue/index.js';
import { createChainAdapters } from '../../src/chains/index.js';
import { parseIssuanceRequest } from '../../src/issuances/issuance-request.js';
import { planOptions, type ShopSnapshot } from '../../src/issuances/plan-options.js';
import type { Issuance } from '../../src/issuances/issuance.js';
import type { Payout } from '../../src/payouts/payout.js';
import { payoutEventData, PAYOUT_TRANSFER_IDS_CAP } from '../../src/payouts/payout-event-data.js';
import { IvoryError } from '../../src/platform/errors.js';
import { units18 } from '../../src/money/index.js';

// SPEC "Invoices and deposits" Rules 1-3, "Limits"; LEDGER "Fees" (fee_exceeds_amount at creation).
// The bundled catalogue refuses terms under which an invoice of minimum_payment could not be
// created, so fee_exceeds_amount is reachable only with terms the file validator would refuse:
// checked here on the pure planner with a hand-built catalogue.

const TOKEN: Token = { address: '0x00000000000000000000000000000000000000A1', symbol: 'TST', decimals: 6, ready: true, minimumPayment: 10_000n, icon: undefined };
const NETWORK: Network = {
  chainId: 77,
  name: 'Test',
  family: 'evm',
  nativeSymbol: 'T',
  explorerUrl: 'https://example.com',
  mainFactory: '',
  invoiceFactory: '',
  startBlock: 0,
  enabled: true,
  minimumPayment: '0.01',
  fees: {
    invoice: { bps: 50, minimum: units18(100_000_000_000_000_000n), maximum: units18(5_000_000_000_000_000_000n) },
    deposit: { bps: 50, minimum: units18(0n), maximum: units18(0n) },
  },
  sweep: { sweepThreshold: '10', minimumSweep: '5', maximumSweep: '100' },
  tokens: [TOKEN],
  chain: undefined,
};
const catalogue = {
  network: (chainId: number) => (chainId === NETWORK.chainId ? NETWORK : undefined),
  token: (chainId: number, address: string) => (chainId === NETWORK.chainId && address.toLowerCase() === TOKEN.address.toLowerCase() ? TOKEN : undefined),
} as unknown as Catalogue;

const SHOP: ShopSnapshot = {
  sandbox: true,
  recipient: '0x000000000000000000000000000000000000dEaD',
  delegate: null,
  payout_target: 'address',
  solana_recipient: null,
  tron_recipient: null,
  solana_payout_target: 'address',
  tron_payout_target: 'address',
};
const NOW = new Date('2026-01-01T00:00:00Z');

function plan(body: Record<string, unknown>) {
  return planOptions(parseIssuanceRequest('invoice', body, NOW), { catalogue, adapters: createChainAdapters(), shop: SHOP });
}

function codeOf(work: () => unknown): { code: string; details: unknown } {
  try {
    work();
  } catch (error) {
    if (error instanceof IvoryError) return { code: error.code, details: error.details };
    throw error;
  }
  throw new Error('expected an IvoryError');
}

describe('LEDGER "Fees": fee(A) >= A is fee_exceeds_amount at creation', () => {
  it('0.05 under terms 50 / 0.1e18 / 5e18 is refused', () => {
    expect(codeOf(() => plan({ chain_id: 77, token: TOKEN.address, amount: '50000' })).code).toBe('fee_exceeds_amount');
  });

  it('in a group, the failing option is named in details', () => {
    expect(codeOf(() => plan({ assets: [{ chain_id: 77, token: TOKEN.address }], amount: '0.05' }))).toEqual({
      code: 'fee_exceeds_amount',
      details: { chain_id: 77, token: TOKEN.address },
    });
  });

  it('0.100001 is accepted (fee 0.1 < A)', () => {
    expect(plan({ chain_id: 77, token: TOKEN.address, amount: '100001' })[0]?.amount).toBe(100_001n);
  });
});

describe('SPEC Rule 3 and the group amount', () => {
  it('a pair repeated with different EVM letter case is invalid_assets', () => {
    expect(codeOf(() => plan({ assets: [{ chain_id: 77, token: TOKEN.address }, { chain_id: 77, token: TOKEN.address.toLowerCase() }], amount: '1' })).code).toBe(
      'invalid_assets',
    );
  });

  it('more decimals than the token has is invalid_amount naming the option', () => {
    expect(codeOf(() => plan({ assets: [{ chain_id: 77, token: TOKEN.address }], amount: '1.0000001' }))).toEqual({
      code: 'invalid_amount',
      details: { chain_id: 77, token: TOKEN.address },
    });
  });
});

describe('SPEC "Events" rule 5: payout payloads', () => {
  const issuance = { id: 'i', shopId: 's', externalId: null, kind: 'invoice', cancelledAt: null } as unknown as Issuance;
  const payout = {
    id: 'p',
    chainId: 77,
    token: TOKEN.address,
    txHash: '0xabc',
    recipient: '0xdead',
    gross: 130n,
    fee: 5n,
    toRecipient: 95n,
    toOperator: 35n,
    feeTerms: { bps: 50, minimum: 1n, maximum: 2n },
  } as unknown as Payout;

  it('caps incoming transfer ids at 100 and flags the truncation', () => {
    const ids = Array.from({ length: PAYOUT_TRANSFER_IDS_CAP + 1 }, (_, index) => `t${index}`);
    const data = payoutEventData(issuance, null, payout, ids, true);
    expect(data.transfer_ids).toHaveLength(100);
    expect(data.transfer_ids_truncated).toBe(true);
    expect(data).toMatchObject({
      payout_id: 'p',
      tx_hash: '0xabc',
      amounts: { gross: '130', fee: '5', to_recipient: '95', to_operator: '35' },
      fee_details: { bps: 50, minimum: '1', maximum: '2' },
    });
    expect(payoutEventData(issuance, null, payout, ids.slice(0, 100), true).transfer_ids_truncated).toBe(false);
  });

  it('unknown amounts are null', () => {
    expect(payoutEventData(issuance, null, payout, [], false).amounts).toEqual({ gross: null, fee: null, to_recipient: null, to_operator: null });
  });
});
