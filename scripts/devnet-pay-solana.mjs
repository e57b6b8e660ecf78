/* global process, console, setTimeout, Buffer */
/* eslint-disable no-console -- a command-line program: the console is its interface */
// `node scripts/devnet-pay.mjs --family solana <wallet address> <amount in USDC> [mint]`: mints
// the Solana devnet's test USDC to its payer account and sends it with TransferChecked to the
// wallet's associated token account (created when missing, as wallets do), with @solana/kit;
// waits until the transfer is confirmed. The node, the mint and the keys come from
// DEVNET_DATA_DIR (written by `npm run devnet -- --family solana`).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findAssociatedTokenPda, getCreateAssociatedTokenIdempotentInstruction, getMintToCheckedInstruction, getTransferCheckedInstruction } from '@solana-program/token';
import {
  address as toAddress,
  appendTransactionMessageInstructions,
  createKeyPairSignerFromBytes,
  createSolanaRpc,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  isAddress,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from '@solana/kit';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Signs `instructions` with the fee payer and every signer they name, sends them and polls
 * until confirmed (the local node has no WebSocket subscriptions, as its README says).
 */
export async function landSolana(rpc, feePayer, instructions, what) {
  const { value: lifetime } = await rpc.getLatestBlockhash({ commitment: 'confirmed' }).send();
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (draft) => setTransactionMessageFeePayerSigner(feePayer, draft),
    (draft) => setTransactionMessageLifetimeUsingBlockhash(lifetime, draft),
    (draft) => appendTransactionMessageInstructions(instructions, draft),
  );
  const signed = await signTransactionMessageWithSigners(message);
  const signature = getSignatureFromTransaction(signed);
  await rpc.sendTransaction(getBase64EncodedWireTransaction(signed), { encoding: 'base64' }).send();
  for (let attempt = 0; attempt < 1_200; attempt += 1) {
    const { value: [status] } = await rpc.getSignatureStatuses([signature]).send();
    if (status?.err) throw new Error(`${what} failed: ${JSON.stringify(status.err)}`);
    if (status?.confirmationStatus === 'confirmed' || status?.confirmationStatus === 'finalized') return { signature, slot: status.slot };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${what}: not confirmed within two minutes`);
}

/** A signer from a Solana keypair in base64 (the local node's `secret_key`). */
export function signerOf(secretKeyBase64) {
  return createKeyPairSignerFromBytes(Buffer.from(secretKeyBase64, 'base64'));
}

/** Answers the exit code. */
export async function paySolana([to, amount, mintArgument]) {
  if (to === undefined || !isAddress(to) || amount === undefined || !/^\d+(\.\d{1,6})?$/.test(amount)) {
    console.error('usage: node scripts/devnet-pay.mjs --family solana <wallet address> <amount, e.g. 25 or 12.5> [mint address]');
    return 2;
  }
  const dataDir = path.resolve(process.env.DEVNET_DATA_DIR ?? path.join(root, 'data', 'devnet'));
  const networksFile = path.join(dataDir, 'networks.json');
  const keysFile = path.join(dataDir, 'solana-payer.json');
  if (!existsSync(networksFile) || !existsSync(keysFile)) {
    console.error(`devnet-pay: no ${keysFile}; is \`npm run devnet -- --family solana\` running (with the same DEVNET_DATA_DIR)?`);
    return 1;
  }
  const network = JSON.parse(readFileSync(networksFile, 'utf8')).networks.find((entry) => entry.family === 'solana' && entry.rpc_url !== undefined);
  const keys = JSON.parse(readFileSync(keysFile, 'utf8'));
  const mint = toAddress(mintArgument ?? network.tokens[0].address);
  const rpc = createSolanaRpc(network.rpc_url);
  const payer = await signerOf(keys.payer_secret_key);
  const mintAuthority = await signerOf(keys.mint_authority_secret_key);
  const { value: mintAccount } = await rpc.getAccountInfo(mint, { encoding: 'base64', commitment: 'confirmed' }).send();
  if (mintAccount === null) throw new Error(`${mint} is not an account on ${network.rpc_url}`);
  const tokenProgram = mintAccount.owner;
  const [whole, fraction = ''] = amount.split('.');
  const units = BigInt(whole) * 1_000_000n + BigInt(fraction.padEnd(6, '0'));
  const [source] = await findAssociatedTokenPda({ owner: payer.address, mint, tokenProgram });
  const [destination] = await findAssociatedTokenPda({ owner: toAddress(to), mint, tokenProgram });
  await landSolana(rpc, payer, [
    getCreateAssociatedTokenIdempotentInstruction({ payer, ata: source, owner: payer.address, mint, tokenProgram }),
    getMintToCheckedInstruction({ mint, token: source, mintAuthority, amount: units, decimals: 6 }, { programAddress: tokenProgram }),
  ], 'the mint to the payer');
  const paid = await landSolana(rpc, payer, [
    getCreateAssociatedTokenIdempotentInstruction({ payer, ata: destination, owner: toAddress(to), mint, tokenProgram }),
    getTransferCheckedInstruction({ source, mint, destination, authority: payer, amount: units, decimals: 6 }, { programAddress: tokenProgram }),
  ], 'the transfer');
  console.log(`paid ${amount} USDC to ${to}: signature ${paid.signature} in slot ${paid.slot}`);
  return 0;
}
