export { solanaDriver } from './solana-driver.js';
export { exportDepositKey } from './export-deposit-key.js';
