import type { FamilyRules } from '../family-rules.js';

export const solanaFamilyRules: FamilyRules = {
  family: 'solana',
  displayName: 'Solana',
  hasDelegate: false,
  paymentUriOpensWallet: true,
  paymentReference: true,
  browserWalletPayment: false,
  walletSignIn: false,
  // SPEC "Errors": a sandbox shop on Solana is refused.
  sandboxRefusal: 'solana_sandbox_unavailable',
  needsMerchantOptIn: false,
  listsWalletBridge: true,
  recipientRequiredInSandbox: false,
  recipientMissing: 'solana_setup_required',
  serviceWalletMissing: 'solana_bridge_unavailable',
  malformedRecipient: 'invalid_solana_address',
  ownAddressRecipient: 'invalid_solana_address',
  liveSetup: 'add rpc_url (a Solana JSON-RPC endpoint) and fee_wallet to its catalogue entry, then fund the relayer shown by GET /admin/v1/networks with SOL',
};
