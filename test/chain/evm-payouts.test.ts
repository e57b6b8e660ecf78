import { evmPayoutSuite } from './evm-payouts.suite.js';

// Issue 9 items 2, 3 and 5 on an EIP-1559 network (anvil's default rules).
evmPayoutSuite({ transactionType: 'eip1559' });
