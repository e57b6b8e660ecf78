import { parseArgs } from 'node:util';
import { startTronNode } from './index.js';

/**
 * `node dist-devnets/tron-node/main.js [--port N] [--block-ms N] [--solid-lag N] [--chain-id N]`:
 * starts a node and prints one JSON line with its URL, chain id and pre-funded accounts; runs
 * until interrupted.
 */
const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    'block-ms': { type: 'string', default: '3000' },
    'solid-lag': { type: 'string', default: '2' },
    'chain-id': { type: 'string', default: '3448148188' },
  },
});

const node = await startTronNode({
  port: Number(values.port),
  blockMs: Number(values['block-ms']),
  solidLag: Number(values['solid-lag']),
  chainId: Number(values['chain-id']),
});

process.stdout.write(
  `${JSON.stringify({
    api_url: node.url,
    chain_id: node.chainId,
    accounts: node.accounts.map((account) => ({ address: account.address, private_key: account.privateKey })),
  })}\n`,
);

const stop = (): void => {
  void node.close().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
