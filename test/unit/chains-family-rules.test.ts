import { describe, expect, it } from 'vitest';
import { addressCodec, CHAIN_FAMILIES, familyDrivers, familyRules, isChainFamily } from '../../src/chains/index.js';
import { ERROR_CODES } from '../../src/platform/errors.js';

// Issue 21 item 1: what generic code used to decide with `if (family === …)` is a rule of the
// family, each one a SPEC statement.

describe('family rules', () => {
  it('every family SPEC names has a codec and rules that say they are its own', () => {
    expect(CHAIN_FAMILIES).toEqual(['evm', 'tron', 'solana']);
    for (const family of CHAIN_FAMILIES) {
      expect(familyRules(family).family).toBe(family);
      expect(addressCodec(family).family).toBe(family);
    }
    expect(isChainFamily('tron')).toBe(true);
    expect(isChainFamily('bitcoin')).toBe(false);
  });

  it('every code a rule answers with is in the error catalogue', () => {
    for (const family of CHAIN_FAMILIES) {
      const rules = familyRules(family);
      const codes = [rules.sandboxRefusal, rules.recipientMissing, rules.serviceWalletMissing, rules.malformedRecipient, rules.ownAddressRecipient];
      for (const code of codes.filter((code) => code !== undefined)) expect(ERROR_CODES).toContain(code);
    }
  });

  it('EVM: the delegate, wallet sign-in and the browser wallet exist only there', () => {
    expect(CHAIN_FAMILIES.filter((family) => familyRules(family).hasDelegate)).toEqual(['evm']);
    expect(CHAIN_FAMILIES.filter((family) => familyRules(family).walletSignIn)).toEqual(['evm']);
    expect(CHAIN_FAMILIES.filter((family) => familyRules(family).browserWalletPayment)).toEqual(['evm']);
    expect(familyRules('evm').recipientMissing).toBe('wallet_not_ready');
  });

  it('Tron: the merchant must have it on (merchant_network_disabled), and its payment URI opens no wallet', () => {
    expect(CHAIN_FAMILIES.filter((family) => familyRules(family).needsMerchantOptIn)).toEqual(['tron']);
    expect(CHAIN_FAMILIES.filter((family) => !familyRules(family).paymentUriOpensWallet)).toEqual(['tron']);
    expect(familyRules('tron')).toMatchObject({
      recipientMissing: 'tron_setup_required',
      serviceWalletMissing: 'tron_bridge_unavailable',
      malformedRecipient: 'invalid_tron_address',
      ownAddressRecipient: 'invalid_tron_recipient',
    });
  });

  it('Solana: sandbox shops are refused with solana_sandbox_unavailable, and the merchant list shows wallet_bridge', () => {
    expect(CHAIN_FAMILIES.filter((family) => familyRules(family).sandboxRefusal !== undefined)).toEqual(['solana']);
    expect(familyRules('solana').sandboxRefusal).toBe('solana_sandbox_unavailable');
    expect(CHAIN_FAMILIES.filter((family) => familyRules(family).listsWalletBridge)).toEqual(['solana']);
    expect(familyRules('solana')).toMatchObject({ recipientMissing: 'solana_setup_required', serviceWalletMissing: 'solana_bridge_unavailable' });
  });

  it('a running family\'s driver answers with the same codec and rules as its family (one source)', () => {
    expect(familyDrivers.length).toBeGreaterThan(0);
    for (const driver of familyDrivers) {
      expect(driver.codec).toBe(addressCodec(driver.family));
      expect(driver.rules).toBe(familyRules(driver.family));
    }
  });
});
