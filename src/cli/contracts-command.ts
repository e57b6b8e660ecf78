import { isAddress, isHex } from 'viem';
import { deployContracts } from '../chains/index.js';
import { RECOVER_USAGE, recoverCommand } from './recover-command.js';
import { parseCommandFlags } from './parse-command-flags.js';

export const CONTRACTS_USAGE = `usage: ivory contracts deploy --rpc-url URL --private-key HEX --fee-wallet ADDRESS [--owner ADDRESS]

Deploys Ivory's forwarder factories to the network at URL, paying gas from the
key, waits for their receipts and prints, as the last line, the catalogue
fields of that network as one JSON object:
  {"chain_id":…,"main_factory":"0x…","invoice_factory":"0x…","start_block":…,"fee_wallet":"0x…"}
--owner (default: the deploying account) may recover late transfers and coins
sent by mistake, always along each forwarder's committed split.`;

/** `ivory contracts …`: exit code 0 on success, 2 on a usage error. */
export async function contractsCommand(args: readonly string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === '--help' || sub === '-h' || sub === 'help') {
    console.log(`${CONTRACTS_USAGE}\n\n${RECOVER_USAGE}`);
    return 0;
  }
  if (sub === 'recover') return recoverCommand(rest);
  if (sub !== 'deploy') {
    console.error(sub === undefined ? CONTRACTS_USAGE : `ivory contracts: unknown command "${sub}" (try: ivory contracts --help)`);
    return 2;
  }
  const parsed = parseCommandFlags('ivory contracts deploy', CONTRACTS_USAGE, rest, ['rpc-url', 'private-key', 'fee-wallet', 'owner']);
  if ('exitCode' in parsed) return parsed.exitCode;
  const { values } = parsed;
  const rpcUrl = values['rpc-url'];
  const rawKey = values['private-key'];
  const feeWallet = values['fee-wallet'];
  const problem =
    rpcUrl === undefined || !/^https?:\/\//.test(rpcUrl)
      ? '--rpc-url must be an http(s) URL'
      : rawKey === undefined || !isHex(normalisedKey(rawKey)) || normalisedKey(rawKey).length !== 66
        ? '--private-key must be 32 bytes of hex'
        : feeWallet === undefined || !isAddress(feeWallet, { strict: false })
          ? '--fee-wallet must be an EVM address'
          : values.owner !== undefined && !isAddress(values.owner, { strict: false })
            ? '--owner must be an EVM address'
            : undefined;
  if (problem !== undefined || rpcUrl === undefined || rawKey === undefined || feeWallet === undefined) {
    console.error(`ivory contracts deploy: ${problem ?? 'missing arguments'}`);
    return 2;
  }
  console.log(`deploying Ivory's forwarder factories through ${new URL(rpcUrl).origin} …`);
  const deployed = await deployContracts({
    rpcUrl,
    privateKey: normalisedKey(rawKey),
    feeWallet,
    ...(values.owner === undefined ? {} : { owner: values.owner }),
  });
  console.log(`deployed on chain ${deployed.chainId} at block ${deployed.startBlock}; add these fields to the network's catalogue entry:`);
  console.log(
    JSON.stringify({
      chain_id: deployed.chainId,
      main_factory: deployed.mainFactory,
      invoice_factory: deployed.invoiceFactory,
      start_block: deployed.startBlock,
      fee_wallet: deployed.feeWallet,
    }),
  );
  return 0;
}

function normalisedKey(key: string): `0x${string}` {
  return (key.startsWith('0x') ? key : `0x${key}`) as `0x${string}`;
}
