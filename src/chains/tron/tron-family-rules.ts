import type { FamilyRules } from '../family-rules.js';

export const tronFamilyRules: FamilyRules = {
  family: 'tron',
  displayName: 'Tron',
  hasDelegate: false,
  paymentUriOpensWallet: false,
  paymentReference: false,
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
  liveSetup: 'its operator lists the network in the NETWORKS_FILE catalogue with api_url, main_factory and invoice_factory (printed by npx ivory contracts deploy --family tron)',
};
