/* global process, console */
/* eslint-disable no-console -- a command-line program: the console is its interface */
// `npm run devnet -- --family tron`: the local Tron node (devnets/tron-node, built into
// dist-devnets/) with Ivory on it. Starts the node (3-second blocks, the solidified head 2
// blocks behind; --block-ms and --solid-lag change them), deploys Ivory's TVM factories with
// the operator command's code (dist/'s deployTronContracts) and a Tether-like USDT whose
// transfer returns false, writes a catalogue file, starts Ivory on it, funds the relayer with
// TRX, signs up a demo merchant with a live shop paying a node account on Tron, switches Tron
// on for the merchant, and prints how to pay an invoice. Ctrl-C stops everything.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { TronWeb } from 'tronweb';
import { privateKeyToAccount } from 'viem/accounts';
import { adminNetwork, children, ivoryApi, start, startIvory, waitFor, writeDevnetCatalogue } from './devnet-processes.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const nodeMain = path.join(root, 'dist-devnets', 'tron-node', 'main.js');
const chainsModule = path.join(root, 'dist', 'chains', 'index.js');

// Signs in to the dashboard (SIWE on a bundled EVM network); never holds money.
const MERCHANT_KEY = '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a';
/** The bundled Ethereum entry: wallet sign-in needs an enabled EVM network, not a live one. */
const SIGN_IN_CHAIN_ID = 1;
const RELAYER_FUNDING_SUN = 10_000_000_000; // 10,000 TRX: an invoice sweep burns about 55 TRX at the node's energy price
const FEE_LIMIT_SUN = 100_000_000; // 100 TRX, Ivory's default ceiling on one sweep

const tronPort = Number(process.env.DEVNET_TRON_PORT ?? 9090);
const ivoryPort = Number(process.env.PORT ?? 8080);
const ivoryUrl = process.env.PUBLIC_URL ?? `http://localhost:${ivoryPort}`;
const dataDir = path.resolve(process.env.DEVNET_DATA_DIR ?? path.join(root, 'data', 'devnet'));
const adminToken = process.env.ADMIN_TOKEN ?? `devnet-${randomBytes(12).toString('hex')}`;
const payCommand = `${process.env.DEVNET_DATA_DIR === undefined ? '' : `DEVNET_DATA_DIR=${dataDir} `}node scripts/devnet-pay.mjs --family tron`;
const api = ivoryApi(ivoryUrl);

/** Starts the node's CLI and reads the JSON line it prints: its URL, chain id and pre-funded accounts. */
async function startNode({ blockMs, solidLag }) {
  const child = start(process.execPath, ['--enable-source-maps', nodeMain, '--port', String(tronPort), '--block-ms', String(blockMs), '--solid-lag', String(solidLag)], process.env, 'tron node', 'pipe');
  const lines = createInterface({ input: child.stdout });
  const first = await waitFor('the Tron node', () => new Promise((resolve) => lines.once('line', resolve)), 30_000);
  lines.on('line', (line) => console.log(line));
  return { child, ...JSON.parse(first) };
}

/** Deploys a compiled test token with tronweb, as any Tron developer would, and waits for its address. */
async function deployToken(apiUrl, privateKey, name) {
  const tronWeb = new TronWeb({ fullHost: apiUrl, privateKey });
  const { abi, bytecode } = JSON.parse(readFileSync(path.join(root, 'contracts', 'artifacts', `${name}.json`), 'utf8'));
  const unsigned = await tronWeb.transactionBuilder.createSmartContract(
    { abi, bytecode: bytecode.slice(2), feeLimit: 5_000_000_000, callValue: 0, userFeePercentage: 100, originEnergyLimit: 10_000_000 },
    tronWeb.defaultAddress.base58,
  );
  const sent = await tronWeb.trx.sendRawTransaction(await tronWeb.trx.sign(unsigned, privateKey));
  if (sent.result !== true) throw new Error(`devnet: the ${name} deployment was refused: ${JSON.stringify(sent)}`);
  const info = await waitFor(`the ${name} deployment`, async () => (await tronWeb.trx.getTransactionInfo(unsigned.txID)).contract_address, 60_000);
  return TronWeb.address.fromHex(info);
}

/** Wallet sign-in, onboarding, Tron on for the merchant, a live shop paying `recipient` on Tron, an API key. */
async function demoMerchant(recipient) {
  const merchant = privateKeyToAccount(MERCHANT_KEY);
  const challenge = await api('POST', '/auth/wallet/challenge', { body: { address: merchant.address, chain_id: SIGN_IN_CHAIN_ID }, idempotent: false });
  const session = await api('POST', '/auth/wallet/verify', {
    body: { challenge_id: challenge.challenge_id, signature: await merchant.signMessage({ message: challenge.message }) },
    idempotent: false,
  });
  await api('POST', '/onboarding', { token: session.token, body: { name: 'Devnet Demo', email: 'demo@example.com' } });
  const [{ id: merchantId }] = await api('GET', '/merchants', { token: session.token });
  // SPEC: a merchant's Tron invoices answer merchant_network_disabled until the operator opts it in.
  await api('PATCH', `/admin/v1/merchants/${merchantId}/payout-setup`, { token: adminToken, body: { tron_enabled: true }, idempotent: false });
  // A live shop needs an EVM recipient too; the merchant's own address serves (no EVM chain runs here).
  const shop = await api('POST', `/merchants/${merchantId}/shops`, { token: session.token, body: { name: 'Devnet Tron shop', sandbox: false, recipient: merchant.address } });
  await api('PUT', `/shops/${shop.id}/tron-recipient`, { token: session.token, body: { address: recipient } });
  const key = await api('POST', `/shops/${shop.id}/keys`, { token: session.token, body: { name: 'devnet', scopes: ['read', 'write'] } });
  return { shop, key };
}

export async function runTronDevnet({ blockMs, solidLag }) {
  if (!existsSync(nodeMain) || !existsSync(chainsModule)) {
    console.error('devnet: dist/ or dist-devnets/ is missing; run `npm run devnet -- --family tron` (it builds both first)');
    process.exit(1);
  }
  if (!Number.isInteger(blockMs) || blockMs < 100 || !Number.isInteger(solidLag) || solidLag < 0) {
    console.error('devnet: --block-ms must be an integer of at least 100 and --solid-lag a whole number of blocks');
    process.exit(2);
  }
  const { deployTronContracts } = await import(chainsModule);

  // 1. The chain. Its accounts are the same on every start: deployer, fee wallet, payer, recipient.
  const node = await startNode({ blockMs, solidLag });
  const [deployer, feeWallet, payer, recipient] = node.accounts;

  // 2. The factories (the operator command's code path) and the token.
  const deployed = await deployTronContracts({ apiUrl: node.api_url, privateKey: `0x${deployer.private_key}`, feeWallet: feeWallet.address, timeoutMs: 120_000 });
  const usdt = await deployToken(node.api_url, deployer.private_key, 'FalseOnSuccessToken');
  console.log(`devnet: USDT (transfer returns false, as Tether's) at ${usdt}; factories ${deployed.mainFactory} (deposits), ${deployed.invoiceFactory} (invoices)`);

  // 3. The catalogue: the bundled networks (sandbox shops and wallet sign-in keep working) plus this chain.
  const networksFile = writeDevnetCatalogue(root, dataDir, {
    chain_id: node.chain_id,
    name: 'Ivory Tron devnet',
    family: 'tron',
    native_symbol: 'TRX',
    main_factory: deployed.mainFactory,
    invoice_factory: deployed.invoiceFactory,
    start_block: deployed.startBlock,
    tokens: [{ address: usdt, symbol: 'USDT', decimals: 6, status: 'ready' }],
    api_url: node.api_url,
    confirmations: 0,
    fee_limit: FEE_LIMIT_SUN,
    fee_wallet: feeWallet.address,
    poll_interval_ms: Math.max(50, Math.min(1_000, Math.floor(blockMs / 3))),
  });
  // devnet-pay.mjs --family tron pays from this account (a devnet key, never real money).
  writeFileSync(path.join(dataDir, 'tron-payer.json'), `${JSON.stringify({ address: payer.address, private_key: payer.private_key })}\n`);

  // 4. Ivory. Warnings only, unless the caller sets LOG_LEVEL.
  const ivory = startIvory(root, { port: ivoryPort, networksFile, dataDir, adminToken });
  const relayerOf = () => adminNetwork(ivoryUrl, adminToken, node.chain_id);
  const relayer = (await waitFor('the relayer address on /admin/v1/networks', relayerOf, 60_000)).relayer_address;

  // 5. The relayer's TRX, sent as an operator would: a transfer from a funded account.
  const deployerWeb = new TronWeb({ fullHost: node.api_url, privateKey: deployer.private_key });
  const funding = await deployerWeb.trx.sendTransaction(relayer, RELAYER_FUNDING_SUN);
  if (funding.result !== true) throw new Error(`devnet: funding the relayer was refused: ${JSON.stringify(funding)}`);
  await waitFor('the relayer funding', async () => BigInt((await relayerOf())?.relayer_balance ?? '0') >= BigInt(RELAYER_FUNDING_SUN), 60_000);

  // 6. The demo merchant.
  const { shop, key } = await demoMerchant(recipient.address);

  console.log(`
Ivory Tron devnet is up (Ctrl-C stops it).
  API          ${ivoryUrl}/api/v1   (Ivory pid ${ivory.pid}, data in ${dataDir})
  chain        ${node.api_url}   (Tron node pid ${children[0].pid}; id ${node.chain_id}, ${blockMs} ms blocks, credited at solidified: ${solidLag} blocks behind the head)
  token        USDT ${usdt} (6 decimals; transfer returns false, as Tether's)
  relayer      ${relayer} (funded with ${RELAYER_FUNDING_SUN / 1_000_000} TRX)
  fee wallet   ${feeWallet.address}      recipient ${recipient.address}
  admin        curl -H 'authorization: Bearer ${adminToken}' ${ivoryUrl}/admin/v1/networks
  API key      ${key.token}   (shop ${shop.id})

Pay an invoice:
  1. Create it (amounts in base units: 25000000 is 25 USDT); note its "id":
     curl -s -X POST ${ivoryUrl}/api/v1/shops/${shop.id}/invoices \\
       -H 'authorization: Bearer ${key.token}' -H 'content-type: application/json' -H "idempotency-key: $(date +%s%N)" \\
       -d '{"chain_id":${node.chain_id},"token":"${usdt}","amount":"25000000"}'
  2. Read it: it answers "registering" with no address, then within a second "open" with its T… "address":
     curl -s ${ivoryUrl}/api/v1/shops/${shop.id}/issuances/<id> -H 'authorization: Bearer ${key.token}'
  3. Pay it from the funded test account ${payer.address}:
     ${payCommand} <address> 25
  4. Read it again (step 2): open → funded once the transfer's block is solidified → settled
     with payout_tx_hash after the sweep's block is; or open its payment_url in a browser.
`);
}
