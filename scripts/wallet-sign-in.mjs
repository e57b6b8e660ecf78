// node scripts/wallet-sign-in.mjs BASE_URL
//
// Signs in to Ivory as an agent (SPEC "Sign-in": wallet challenge, EIP-191
// signature, verify) and prints the session token on standard output, for
// the README's quick start. The wallet is fresh each time unless
// WALLET_PRIVATE_KEY (0x + 64 hex digits) names one; the key never leaves
// this process.
/* global process, fetch, console */
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';

const base = (process.argv[2] ?? '').replace(/\/+$/, '');
if (!/^https?:\/\/.+\/api\/v1$/.test(base)) {
  console.error('usage: node scripts/wallet-sign-in.mjs http://localhost:8080/api/v1');
  process.exit(2);
}
const wallet = privateKeyToAccount(process.env.WALLET_PRIVATE_KEY ?? generatePrivateKey());

async function post(path, body) {
  const response = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const answer = await response.json();
  if (!response.ok) throw new Error(`POST ${path} answered ${response.status}: ${JSON.stringify(answer)}`);
  return answer;
}

try {
  // Any EVM network of the catalogue will do: the signature proves the address, not a balance.
  const networks = await (await fetch(`${base}/networks`)).json();
  const evm = networks.find((network) => (network.family ?? 'evm') === 'evm');
  const challenge = await post('/auth/wallet/challenge', { address: wallet.address, chain_id: evm.chain_id });
  const signature = await wallet.signMessage({ message: challenge.message });
  const session = await post('/auth/wallet/verify', { challenge_id: challenge.challenge_id, signature });
  process.stdout.write(`${session.token}\n`);
} catch (error) {
  console.error(`wallet sign-in failed: ${error.cause?.code === 'ECONNREFUSED' ? `nothing answers at ${base} (is the server running?)` : error.message}`);
  process.exit(1);
}
