#!/usr/bin/env node
/* global process, console */
/* eslint-disable no-console -- a command-line program: the console is its interface */
// `npm run devnet`: a local EVM chain with Ivory on it, for trying a real payment.
// Starts anvil (1-second blocks), deploys a 6-decimal test stablecoin and Ivory's
// factories, writes a catalogue file, starts Ivory on it (the caller's environment
// passes through), funds the relayer, signs up a demo merchant with a live shop and
// an API key, and prints how to pay an invoice from a funded test account.
// Ctrl-C stops everything. `npm run devnet -- --family tron` is the same on a local Tron
// node (scripts/devnet-tron.mjs), `--family solana` on the local Solana node
// (scripts/devnet-solana.mjs).
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createPublicClient, createWalletClient, http, parseEther } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { adminNetwork, children, isStopping, ivoryApi, start, startIvory, stopAll, waitFor, writeDevnetCatalogue } from './devnet-processes.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// --block-ms and --solid-lag tune the Tron node, --slot-ms and --finalized-lag the Solana node
// (the EVM devnet's anvil makes 1-second blocks).
const { values: flags } = parseArgs({
  options: {
    family: { type: 'string', default: 'evm' },
    'block-ms': { type: 'string', default: '3000' },
    'solid-lag': { type: 'string', default: '2' },
    'slot-ms': { type: 'string', default: '400' },
    'finalized-lag': { type: 'string', default: '32' },
  },
});
if (flags.family !== 'evm' && flags.family !== 'tron' && flags.family !== 'solana') {
  console.error(`devnet: --family must be evm, tron or solana, got ${JSON.stringify(flags.family)}`);
  process.exit(2);
}
// The script runs the built program and does not build it: `npm run devnet` builds first.
const contractsModule = path.join(root, 'dist', 'chains', 'evm', 'contracts', 'index.js');
if (!existsSync(contractsModule)) {
  console.error('devnet: dist/ is missing; run `npm run devnet` (it builds first) or `npm run build`');
  process.exit(1);
}
const { deployContracts, deployTestStablecoin, deployTestStablecoin3009 } = await import(contractsModule);

// anvil's well-known test accounts (mnemonic "test test … junk"): never real money.
const DEPLOYER_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const FEE_WALLET_KEY = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
const MERCHANT_KEY = '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a';
const RECIPIENT_KEY = '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6';
const PAYER_KEY = '0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a';

const chainId = 31337;
const anvilPort = Number(process.env.DEVNET_ANVIL_PORT ?? 8545);
const ivoryPort = Number(process.env.PORT ?? 8080);
const rpcUrl = `http://127.0.0.1:${anvilPort}`;
const ivoryUrl = process.env.PUBLIC_URL ?? `http://localhost:${ivoryPort}`;
const dataDir = path.resolve(process.env.DEVNET_DATA_DIR ?? path.join(root, 'data', 'devnet'));
const adminToken = process.env.ADMIN_TOKEN ?? `devnet-${randomBytes(12).toString('hex')}`;
// How to call devnet-pay.mjs: it finds the chain and the token in DEVNET_DATA_DIR's catalogue.
const payCommand = `${process.env.DEVNET_DATA_DIR === undefined ? '' : `DEVNET_DATA_DIR=${dataDir} `}node scripts/devnet-pay.mjs`;

const api = ivoryApi(ivoryUrl);

async function main() {
  // 1. The chain.
  start(
    path.join(root, 'node_modules', '.bin', 'anvil'),
    ['--host', '127.0.0.1', '--port', String(anvilPort), '--chain-id', String(chainId), '--block-time', '1', '--silent'],
    process.env,
    'anvil',
  );
  const chain = { id: chainId, name: 'Ivory devnet', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [rpcUrl] } } };
  const publicClient = createPublicClient({ chain, transport: http(rpcUrl), pollingInterval: 250 });
  await waitFor(`anvil on ${rpcUrl}`, () => publicClient.getChainId());

  // 2. The token and the factories.
  const feeWallet = privateKeyToAccount(FEE_WALLET_KEY).address;
  const stablecoin = await deployTestStablecoin({ rpcUrl, privateKey: DEPLOYER_KEY });
  // A second token with EIP-3009, so that an x402 client can pay an invoice in it (docs/agents.md).
  const stablecoin3009 = await deployTestStablecoin3009({ rpcUrl, privateKey: DEPLOYER_KEY, name: 'Test USD 3009', version: '2' });
  const deployed = await deployContracts({ rpcUrl, privateKey: DEPLOYER_KEY, feeWallet });
  console.log(`devnet: test stablecoin TUSD at ${stablecoin}; factories ${deployed.mainFactory} (deposits), ${deployed.invoiceFactory} (invoices)`);

  // 3. The catalogue: the bundled networks (sandbox shops keep working) plus this chain.
  const networksFile = writeDevnetCatalogue(root, dataDir, {
    chain_id: chainId,
    name: 'Ivory devnet',
    family: 'evm',
    native_symbol: 'ETH',
    main_factory: deployed.mainFactory,
    invoice_factory: deployed.invoiceFactory,
    start_block: deployed.startBlock,
    tokens: [
      { address: stablecoin, symbol: 'TUSD', decimals: 6, status: 'ready' },
      { address: stablecoin3009, symbol: 'TUSD3009', decimals: 6, status: 'ready', eip712: { name: 'Test USD 3009', version: '2' } },
    ],
    // x402's gas cap: devnet ETH priced at 1 token, so any settlement fits under an invoice's fee.
    x402_native_price: '1',
    rpc_url: rpcUrl,
    confirmations: 2,
    fee_wallet: feeWallet,
    poll_interval_ms: 250,
  });

  // 4. Ivory itself. Request logs would bury the instructions below: warnings only, unless
  // the caller sets LOG_LEVEL.
  startIvory(root, { port: ivoryPort, networksFile, dataDir, adminToken });
  const relayer = await waitFor('the relayer address on /admin/v1/networks', async () => (await adminNetwork(ivoryUrl, adminToken, chainId))?.relayer_address);
  const deployer = createWalletClient({ chain, transport: http(rpcUrl), account: privateKeyToAccount(DEPLOYER_KEY) });
  await publicClient.waitForTransactionReceipt({ hash: await deployer.sendTransaction({ to: relayer, value: parseEther('10') }) });

  // 5. A demo merchant: wallet sign-in, onboarding, a live shop paying the recipient, an API key.
  const merchant = privateKeyToAccount(MERCHANT_KEY);
  const challenge = await api('POST', '/auth/wallet/challenge', { body: { address: merchant.address, chain_id: chainId }, idempotent: false });
  const session = await api('POST', '/auth/wallet/verify', {
    body: { challenge_id: challenge.challenge_id, signature: await merchant.signMessage({ message: challenge.message }) },
    idempotent: false,
  });
  await api('POST', '/onboarding', { token: session.token, body: { name: 'Devnet Demo', email: 'demo@example.com' } });
  const [{ id: merchantId }] = await api('GET', '/merchants', { token: session.token });
  const recipient = privateKeyToAccount(RECIPIENT_KEY).address;
  const shop = await api('POST', `/merchants/${merchantId}/shops`, { token: session.token, body: { name: 'Devnet shop', sandbox: false, recipient } });
  const key = await api('POST', `/shops/${shop.id}/keys`, { token: session.token, body: { name: 'devnet', scopes: ['read', 'write'] } });

  const payer = privateKeyToAccount(PAYER_KEY).address;
  const [anvilChild, ivoryChild] = children;
  console.log(`
Ivory devnet is up (Ctrl-C stops it).
  API          ${ivoryUrl}/api/v1   (Ivory pid ${ivoryChild.pid}, data in ${dataDir})
  chain        ${rpcUrl}   (anvil pid ${anvilChild.pid}; id ${chainId}, 1-second blocks, 2 confirmations)
  token        TUSD ${stablecoin} (6 decimals); TUSD3009 ${stablecoin3009} (EIP-3009: invoices in it are payable with x402 at {payment_url}/x402)
  relayer      ${relayer} (funded with 10 ETH)
  fee wallet   ${feeWallet}      recipient ${recipient}
  admin        curl -H 'authorization: Bearer ${adminToken}' ${ivoryUrl}/admin/v1/networks
  API key      ${key.token}   (shop ${shop.id})

Pay an invoice:
  1. Create it (amounts in base units: 25000000 is 25 TUSD); note its "id":
     curl -s -X POST ${ivoryUrl}/api/v1/shops/${shop.id}/invoices \\
       -H 'authorization: Bearer ${key.token}' -H 'content-type: application/json' -H "idempotency-key: $(date +%s%N)" \\
       -d '{"chain_id":${chainId},"token":"${stablecoin}","amount":"25000000"}'
  2. Read it: it answers "registering" with no address, then within a second "open" with its "address":
     curl -s ${ivoryUrl}/api/v1/shops/${shop.id}/issuances/<id> -H 'authorization: Bearer ${key.token}'
  3. Pay it from the funded test account ${payer}:
     ${payCommand} <address> 25
  4. Read it again (step 2): open → funded → settled with payout_tx_hash within a few seconds;
     or open its payment_url in a browser.
`);
}

if (flags.family === 'tron') {
  const { runTronDevnet } = await import('./devnet-tron.mjs');
  runTronDevnet({ blockMs: Number(flags['block-ms']), solidLag: Number(flags['solid-lag']) }).catch((error) => {
    if (isStopping()) return;
    console.error(`devnet: ${error instanceof Error ? error.message : String(error)}; stopping`);
    void stopAll(1);
  });
} else if (flags.family === 'solana') {
  const { runSolanaDevnet } = await import('./devnet-solana.mjs');
  runSolanaDevnet({ slotMs: Number(flags['slot-ms']), finalizedLag: Number(flags['finalized-lag']) }).catch((error) => {
    if (isStopping()) return;
    console.error(`devnet: ${error instanceof Error ? error.message : String(error)}; stopping`);
    void stopAll(1);
  });
} else {
  main().catch((error) => {
    if (isStopping()) return;
    console.error(`devnet: ${error instanceof Error ? error.message : String(error)}; stopping`);
    void stopAll(1);
  });
}
