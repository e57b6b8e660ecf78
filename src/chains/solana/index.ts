export { solanaDriver } from './solana-driver.js';
export { exportDepositKey } from './export-deposit-key.js';
export { isSolanaServiceAddress } from './solana-service-addresses.js';
export { findPaymentReference as findSolanaPaymentReference } from './solana-keys.repository.js';
export { importSolanaRelayerKey, parseSolanaKeypair, type ImportSolanaRelayerOutcome } from './import-solana-relayer.js';
