import { isAddress, isHex } from 'viem';
import { addressCodec, deployContracts, deployTronContracts } from '../chains/index.js';
import { RECOVER_USAGE, recoverCommand } from './recover-command.js';
import { parseCommandFlags } from './parse-command-flags.js';

export const CONTRACTS_USAGE = `usage: ivory contracts deploy --rpc-url URL --private-key HEX --fee-wallet ADDRESS [--owner ADDRESS]

Deploys Ivory's forwarder factories to the network at URL, paying gas from the
key, waits for their receipts and prints, as the last line, the catalogue
fields of that network as one JSON object:
  {"chain_id":…,"main_factory":"0x…","invoice_factory":"0x…","start_block":…,"fee_wallet":"0x…"}
--owner (default: the deploying account) may recover late transfers and coins
sent by mistake, always along each forwarder's committed split.

usage: ivory contracts deploy --family tron --api-url URL --private-key HEX --fee-wallet T… [--owner T…] [--api-key KEY]

Deploys the TVM build of the factories through a java-tron node's HTTP API at
URL (with TRON-PRO-API-KEY: KEY when given), burning the key's TRX for their
energy, waits until both are solidified and prints, as the last line:
  {"chain_id":…,"main_factory":"T…","invoice_factory":"T…","start_block":…,"fee_wallet":"T…"}`;

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
  const parsed = parseCommandFlags('ivory contracts deploy', CONTRACTS_USAGE, rest, ['family', 'rpc-url', 'api-url', 'api-key', 'private-key', 'fee-wallet', 'owner']);
  if ('exitCode' in parsed) return parsed.exitCode;
  const { values } = parsed;
  if (values.family === 'tron') return deployTron(values);
  if (values.family !== undefined && values.family !== 'evm') {
    console.error(`ivory contracts deploy: --family must be evm or tron, got ${JSON.stringify(values.family)}`);
    return 2;
  }
  if (values['api-url'] !== undefined || values['api-key'] !== undefined) {
    console.error('ivory contracts deploy: --api-url and --api-key are for --family tron; an EVM network takes --rpc-url');
    return 2;
  }
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

async function deployTron(values: Partial<Record<'rpc-url' | 'api-url' | 'api-key' | 'private-key' | 'fee-wallet' | 'owner', string>>): Promise<number> {
  const apiUrl = values['api-url'];
  const rawKey = values['private-key'];
  const feeWallet = values['fee-wallet'];
  const tron = addressCodec('tron');
  const problem =
    values['rpc-url'] !== undefined
      ? '--rpc-url is for EVM networks; a Tron network takes --api-url'
      : apiUrl === undefined || !/^https?:\/\//.test(apiUrl)
        ? '--api-url must be an http(s) URL'
        : rawKey === undefined || !/^0x[0-9a-fA-F]{64}$/.test(normalisedKey(rawKey))
          ? '--private-key must be 32 bytes of hex'
          : feeWallet === undefined || tron.contractProblem(feeWallet) !== undefined
            ? '--fee-wallet must be a Tron address (T…)'
            : values.owner !== undefined && tron.contractProblem(values.owner) !== undefined
              ? '--owner must be a Tron address (T…)'
              : undefined;
  if (problem !== undefined || apiUrl === undefined || rawKey === undefined || feeWallet === undefined) {
    console.error(`ivory contracts deploy: ${problem ?? 'missing arguments'}`);
    return 2;
  }
  console.log(`deploying Ivory's forwarder factories through the Tron node at ${new URL(apiUrl).origin} …`);
  const deployed = await deployTronContracts({
    apiUrl,
    ...(values['api-key'] === undefined ? {} : { apiKey: values['api-key'] }),
    privateKey: normalisedKey(rawKey),
    feeWallet,
    ...(values.owner === undefined ? {} : { owner: values.owner }),
  });
  console.log(`deployed on chain ${deployed.chainId}, solidified from block ${deployed.startBlock}; add these fields to the network's catalogue entry:`);
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
