import { evmPayoutSuite } from './evm-payouts.suite.js';

// Issue 22 item 3: a network without EIP-1559 (no `baseFeePerGas` in its
// blocks) is paid with legacy gas pricing; every payout rule holds there too.
evmPayoutSuite({ hardfork: 'berlin', transactionType: 'legacy' });
