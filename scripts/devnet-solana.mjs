/* global process, console */
/* eslint-disable no-console -- a command-line program: the console is its interface */
// `npm run devnet -- --family solana`: the local Solana node (devnets/solana-node, built into
// dist-devnets/) with Ivory on it. Starts the node (400 ms slots, confirmed 2 slots and
// finalized 32 slots behind, as on mainnet; --slot-ms and --finalized-lag change them), creates
// a 6-decimal test USDC mint (SPL Token) with @solana/kit, writes a catalogue file listing the
// node with its rpc_url and a fee wallet, starts Ivory on it, funds the relayer with SOL, signs
// up a demo merchant with a live shop paying a node account on Solana, and prints how to pay an
// invoice. Ctrl-C stops everything.
import { randomBytes } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { getCreateAccountInstruction, getTransferSolInstruction } from '@solana-program/system';
import { findAssociatedTokenPda, getCreateAssociatedTokenIdempotentInstruction, getInitializeMint2Instruction, getMintSize, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { createSolanaRpc, generateKeyPairSigner, lamports } from '@solana/kit';
import { privateKeyToAccount } from 'viem/accounts';
import { landSolana, signerOf } from './devnet-pay-solana.mjs';
import { adminNetwork, children, ivoryApi, start, startIvory, waitFor, writeDevnetCatalogue } from './devnet-processes.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const nodeMain = path.join(root, 'dist-devnets', 'solana-node', 'main.js');

// Signs in to the dashboard (SIWE on a bundled EVM network); never holds money.
const MERCHANT_KEY = '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a';
/** The bundled Ethereum entry: wallet sign-in needs an enabled EVM network, not a live one. */
const SIGN_IN_CHAIN_ID = 1;
/** The devnet's own id; the bundled Solana entry (900, mainnet, not live here) stays as it is. */
const CHAIN_ID = 901;
const RELAYER_FUNDING_LAMPORTS = 10_000_000_000n; // 10 SOL: an invoice costs the relayer about 0.002 SOL of rent (returned) and 15,000 lamports of fees

const solanaPort = Number(process.env.DEVNET_SOLANA_PORT ?? 8899);
const ivoryPort = Number(process.env.PORT ?? 8080);
const ivoryUrl = process.env.PUBLIC_URL ?? `http://localhost:${ivoryPort}`;
const dataDir = path.resolve(process.env.DEVNET_DATA_DIR ?? path.join(root, 'data', 'devnet'));
const adminToken = process.env.ADMIN_TOKEN ?? `devnet-${randomBytes(12).toString('hex')}`;
const payCommand = `${process.env.DEVNET_DATA_DIR === undefined ? '' : `DEVNET_DATA_DIR=${dataDir} `}node scripts/devnet-pay.mjs --family solana`;
const api = ivoryApi(ivoryUrl);

/** Starts the node's CLI and reads the JSON line it prints: its URL and pre-funded accounts (1,000 SOL each). */
async function startNode({ slotMs, finalizedLag }) {
  const args = ['--enable-source-maps', nodeMain, '--port', String(solanaPort), '--slot-ms', String(slotMs), '--confirmed-lag', '2', '--finalized-lag', String(finalizedLag)];
  const child = start(process.execPath, args, process.env, 'Solana node', 'pipe');
  const lines = createInterface({ input: child.stdout });
  const first = await waitFor('the Solana node', () => new Promise((resolve) => lines.once('line', resolve)), 30_000);
  lines.on('line', (line) => console.log(line));
  return { child, ...JSON.parse(first) };
}

/** A 6-decimal mint whose mint authority is `authority`, as a token issuer would create it. */
async function createMint(rpc, authority) {
  const mint = await generateKeyPairSigner();
  const space = getMintSize();
  const rent = await rpc.getMinimumBalanceForRentExemption(BigInt(space)).send();
  await landSolana(rpc, authority, [
    getCreateAccountInstruction({ payer: authority, newAccount: mint, lamports: lamports(rent), space, programAddress: TOKEN_PROGRAM_ADDRESS }),
    getInitializeMint2Instruction({ mint: mint.address, decimals: 6, mintAuthority: authority.address }),
  ], 'the mint');
  return mint.address;
}

/** Wallet sign-in, onboarding, a live shop paying `recipient` on Solana, an API key. */
async function demoMerchant(recipient) {
  const merchant = privateKeyToAccount(MERCHANT_KEY);
  const challenge = await api('POST', '/auth/wallet/challenge', { body: { address: merchant.address, chain_id: SIGN_IN_CHAIN_ID }, idempotent: false });
  const session = await api('POST', '/auth/wallet/verify', {
    body: { challenge_id: challenge.challenge_id, signature: await merchant.signMessage({ message: challenge.message }) },
    idempotent: false,
  });
  await api('POST', '/onboarding', { token: session.token, body: { name: 'Devnet Demo', email: 'demo@example.com' } });
  const [{ id: merchantId }] = await api('GET', '/merchants', { token: session.token });
  // A live shop needs an EVM recipient too; the merchant's own address serves (no EVM chain runs here).
  const shop = await api('POST', `/merchants/${merchantId}/shops`, { token: session.token, body: { name: 'Devnet Solana shop', sandbox: false, recipient: merchant.address } });
  await api('PUT', `/shops/${shop.id}/solana-recipient`, { token: session.token, body: { address: recipient } });
  const key = await api('POST', `/shops/${shop.id}/keys`, { token: session.token, body: { name: 'devnet', scopes: ['read', 'write'] } });
  return { shop, key };
}

export async function runSolanaDevnet({ slotMs, finalizedLag }) {
  if (!existsSync(nodeMain) || !existsSync(path.join(root, 'dist', 'cli', 'main.js'))) {
    console.error('devnet: dist/ or dist-devnets/ is missing; run `npm run devnet -- --family solana` (it builds both first)');
    process.exit(1);
  }
  // The node keeps a blockhash valid for 150 slots; a finalized one must still be valid.
  if (!Number.isInteger(slotMs) || slotMs < 20 || !Number.isInteger(finalizedLag) || finalizedLag < 2 || finalizedLag >= 150) {
    console.error('devnet: --slot-ms must be an integer of at least 20 and --finalized-lag a whole number of slots from 2 to 149');
    process.exit(2);
  }

  // 1. The chain. Its three funded accounts: mint authority and funder, payer, recipient.
  const node = await startNode({ slotMs, finalizedLag });
  const rpc = createSolanaRpc(node.rpc_url);
  const [funderKey, payerKey, recipientKey] = node.accounts;
  const funder = await signerOf(funderKey.secret_key);
  const recipient = recipientKey.address;

  // 2. The token, and the recipient's token account (SPEC: a Solana recipient must hold one).
  const mint = await createMint(rpc, funder);
  const [recipientAccount] = await findAssociatedTokenPda({ owner: recipient, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS });
  await landSolana(rpc, funder, [getCreateAssociatedTokenIdempotentInstruction({ payer: funder, ata: recipientAccount, owner: recipient, mint })], "the recipient's token account");
  const feeWallet = (await generateKeyPairSigner()).address;
  console.log(`devnet: test USDC mint ${mint} (SPL Token, 6 decimals, mint authority ${funder.address})`);

  // 3. The catalogue: the bundled networks (sandbox shops and wallet sign-in keep working) plus this chain.
  const networksFile = writeDevnetCatalogue(root, dataDir, {
    chain_id: CHAIN_ID,
    name: 'Ivory Solana devnet',
    family: 'solana',
    native_symbol: 'SOL',
    main_factory: '',
    invoice_factory: '',
    start_block: 0,
    tokens: [{ address: mint, symbol: 'USDC', decimals: 6, status: 'ready' }],
    rpc_url: node.rpc_url,
    fee_wallet: feeWallet,
    poll_interval_ms: Math.max(50, Math.min(1_000, slotMs)),
  });
  // devnet-pay.mjs --family solana mints with the funder and pays from the payer (devnet keys, never real money).
  writeFileSync(path.join(dataDir, 'solana-payer.json'), `${JSON.stringify({ payer_secret_key: payerKey.secret_key, mint_authority_secret_key: funderKey.secret_key })}\n`);

  // 4. Ivory. Warnings only, unless the caller sets LOG_LEVEL.
  const ivory = startIvory(root, { port: ivoryPort, networksFile, dataDir, adminToken });
  const networkOf = () => adminNetwork(ivoryUrl, adminToken, CHAIN_ID);
  const relayer = (await waitFor('the relayer address on /admin/v1/networks', async () => (await networkOf())?.relayer_address, 60_000));

  // 5. The relayer's SOL, sent as an operator would: a System transfer from a funded account.
  await landSolana(rpc, funder, [getTransferSolInstruction({ source: funder, destination: relayer, amount: lamports(RELAYER_FUNDING_LAMPORTS) })], 'the relayer funding');
  await waitFor('the relayer funding', async () => BigInt((await networkOf())?.relayer_balance ?? '0') >= RELAYER_FUNDING_LAMPORTS, 60_000);

  // 6. The demo merchant.
  const { shop, key } = await demoMerchant(recipient);

  const finalSeconds = ((finalizedLag * slotMs) / 1000).toFixed(1);
  console.log(`
Ivory Solana devnet is up (Ctrl-C stops it).
  API          ${ivoryUrl}/api/v1   (Ivory pid ${ivory.pid}, data in ${dataDir})
  chain        ${node.rpc_url}   (Solana node pid ${children[0].pid}; chain_id ${CHAIN_ID}, ${slotMs} ms slots, finalized ${finalizedLag} slots behind: ${finalSeconds} s)
  token        USDC ${mint} (SPL Token, 6 decimals)
  relayer      ${relayer} (funded with ${RELAYER_FUNDING_LAMPORTS / 1_000_000_000n} SOL)
  fee wallet   ${feeWallet}      recipient ${recipient}
  admin        curl -H 'authorization: Bearer ${adminToken}' ${ivoryUrl}/admin/v1/networks
  API key      ${key.token}   (shop ${shop.id})

Pay an invoice:
  1. Create it (amounts in base units: 25000000 is 25 USDC); note its "id":
     curl -s -X POST ${ivoryUrl}/api/v1/shops/${shop.id}/invoices \\
       -H 'authorization: Bearer ${key.token}' -H 'content-type: application/json' -H "idempotency-key: $(date +%s%N)" \\
       -d '{"chain_id":${CHAIN_ID},"token":"${mint}","amount":"25000000"}'
  2. Read it: it answers "registering" with no address while the relayer creates its token
     account, then "open" with its wallet "address":
     curl -s ${ivoryUrl}/api/v1/shops/${shop.id}/issuances/<id> -H 'authorization: Bearer ${key.token}'
  3. Pay it from the funded test account ${payerKey.address}:
     ${payCommand} <address> 25
  4. Read it again (step 2): open → funded once the transfer is finalized → settled with
     payout_tx_hash once the sweep is; or open its payment_url in a browser.
`);
}
