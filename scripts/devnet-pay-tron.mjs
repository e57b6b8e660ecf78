/* global process, console, setTimeout */
/* eslint-disable no-console -- a command-line program: the console is its interface */
// `node scripts/devnet-pay.mjs --family tron <T… address> <amount in USDT> [token]`: mints the
// Tron devnet's USDT to its payer account and transfers it with tronweb, as a Tron wallet
// would; waits until the transfer is in a block. The node, the token and the payer's key come
// from DEVNET_DATA_DIR (written by `npm run devnet -- --family tron`).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TronWeb } from 'tronweb';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Waits for the transaction's block and answers its info; throws unless it succeeded. */
async function landed(tronWeb, txId, what) {
  for (let attempt = 0; attempt < 600; attempt += 1) {
    const info = await tronWeb.trx.getTransactionInfo(txId);
    if (info.blockNumber !== undefined) {
      if (info.receipt?.result !== 'SUCCESS') throw new Error(`${what} failed: ${JSON.stringify(info.receipt)}`);
      return info;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${what}: not in a block within two minutes`);
}

async function call(tronWeb, token, signature, parameters) {
  const built = await tronWeb.transactionBuilder.triggerSmartContract(token, signature, { feeLimit: 100_000_000 }, parameters, tronWeb.defaultAddress.base58);
  const sent = await tronWeb.trx.sendRawTransaction(await tronWeb.trx.sign(built.transaction));
  if (sent.result !== true) throw new Error(`${signature} refused: ${JSON.stringify(sent)}`);
  return landed(tronWeb, built.transaction.txID, signature);
}

/** Answers the exit code. */
export async function payTron([to, amount, tokenArgument]) {
  if (to === undefined || !TronWeb.isAddress(to) || amount === undefined || !/^\d+(\.\d{1,6})?$/.test(amount)) {
    console.error('usage: node scripts/devnet-pay.mjs --family tron <T… address> <amount, e.g. 25 or 12.5> [token T… address]');
    return 2;
  }
  const dataDir = path.resolve(process.env.DEVNET_DATA_DIR ?? path.join(root, 'data', 'devnet'));
  const networksFile = path.join(dataDir, 'networks.json');
  const payerFile = path.join(dataDir, 'tron-payer.json');
  if (!existsSync(networksFile) || !existsSync(payerFile)) {
    console.error(`devnet-pay: no ${payerFile}; is \`npm run devnet -- --family tron\` running (with the same DEVNET_DATA_DIR)?`);
    return 1;
  }
  const network = JSON.parse(readFileSync(networksFile, 'utf8')).networks.find((entry) => entry.family === 'tron' && entry.api_url !== undefined);
  const payer = JSON.parse(readFileSync(payerFile, 'utf8'));
  const token = tokenArgument ?? network.tokens[0].address;
  const tronWeb = new TronWeb({ fullHost: network.api_url, privateKey: payer.private_key });
  const [whole, fraction = ''] = amount.split('.');
  const units = (BigInt(whole) * 1_000_000n + BigInt(fraction.padEnd(6, '0'))).toString();
  await call(tronWeb, token, 'mint(address,uint256)', [
    { type: 'address', value: payer.address },
    { type: 'uint256', value: units },
  ]);
  const transferInfo = await call(tronWeb, token, 'transfer(address,uint256)', [
    { type: 'address', value: to },
    { type: 'uint256', value: units },
  ]);
  console.log(`paid ${amount} USDT to ${to}: tx ${transferInfo.id} in block ${transferInfo.blockNumber}`);
  return 0;
}
