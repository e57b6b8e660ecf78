import type { FamilyRules } from '../family-rules.js';

export const tronFamilyRules: FamilyRules = {
  family: 'tron',
  displayName: 'Tron',
  hasDelegate: false,
  paymentUriOpensWallet: false,
  browserWalletPayment: false,
  walletSignIn: false,
  sandboxRefusal: undefined,
  needsMerchantOptIn: true,
  listsWalletBridge: false,
  recipientRequiredInSandbox: true,
  recipientMissing: 'tron_setup_required',
  serviceWalletMissing: 'tron_bridge_unavailable',
  malformedRecipient: 'invalid_tron_address',
  ownAddressRecipient: 'invalid_tron_recipient',
  liveSetup: 'Tron networks take no live payments in this version of Ivory',
};
