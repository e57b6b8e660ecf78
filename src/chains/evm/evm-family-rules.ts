import type { FamilyRules } from '../family-rules.js';

export const evmFamilyRules: FamilyRules = {
  family: 'evm',
  displayName: 'EVM',
  hasDelegate: true,
  paymentUriOpensWallet: true,
  paymentReference: false,
  browserWalletPayment: true,
  walletSignIn: true,
  sandboxRefusal: undefined,
  needsMerchantOptIn: false,
  listsWalletBridge: false,
  // EVM payouts need the wallet set up either way: one code for both.
  recipientRequiredInSandbox: false,
  recipientMissing: 'wallet_not_ready',
  serviceWalletMissing: 'wallet_not_ready',
  malformedRecipient: 'invalid_recipient',
  ownAddressRecipient: 'invalid_recipient',
  liveSetup: 'its operator lists the network in the NETWORKS_FILE catalogue with rpc_url (or rpc_urls), main_factory and invoice_factory (printed by npx ivory contracts deploy)',
};
