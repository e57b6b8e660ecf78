// `npx vite-node devnets/solana-node/main.ts --port 8899 --slot-ms 400`: starts the
// local Solana node and prints one JSON line, `{ "rpc_url", "accounts": [{ "address", "secret_key" }] }`
// (secret_key: base64 of the 64-byte keypair, seed then public key). Runs until interrupted.

import { parseArgs } from 'node:util';
import { startSolanaNode } from './index.js';

function integer(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) throw new Error(`--${flag} must be a non-negative integer, got ${value}`);
  return parsed;
}

const { values } = parseArgs({
  options: {
    port: { type: 'string' },
    host: { type: 'string' },
    'slot-ms': { type: 'string' },
    'confirmed-lag': { type: 'string' },
    'finalized-lag': { type: 'string' },
    'blockhash-validity': { type: 'string' },
  },
});

const node = await startSolanaNode({
  port: integer(values.port, 'port'),
  host: values.host,
  slotMs: integer(values['slot-ms'], 'slot-ms'),
  confirmedLag: integer(values['confirmed-lag'], 'confirmed-lag'),
  finalizedLag: integer(values['finalized-lag'], 'finalized-lag'),
  blockhashValidity: integer(values['blockhash-validity'], 'blockhash-validity'),
});
process.stdout.write(
  `${JSON.stringify({ rpc_url: node.url, accounts: node.accounts.map((account) => ({ address: account.address, secret_key: Buffer.from(account.secretKey).toString('base64') })) })}\n`,
);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void node.close().then(() => process.exit(0)));
}
