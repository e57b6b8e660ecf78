import { recoverForwarder, RecoverRefused } from '../chains/index.js';
import { openConfiguredDatabase } from '../platform/database/database.js';
import { isUuid } from '../platform/ids.js';
import { loadCliConfig } from './load-cli-config.js';
import { readPrivateKey } from './read-private-key.js';
import { parseCommandFlags } from './parse-command-flags.js';

export const RECOVER_USAGE = `usage: ivory contracts recover --issuance ID --asset TOKEN|native --rpc-url URL < key.txt

Moves what a sweep does not move out of a live EVM issuance's forwarder: a late
transfer to a settled invoice, another token, native coin sent by mistake. The
money goes along the forwarder's committed split only (recipient x − fee(x),
fee wallet fee(x)); the contract accepts the call from the factories' owner or
the shop's committed delegate. The key is read from standard input; the
issuance's terms from Ivory's storage (DATABASE_URL or DATA_DIR, as serve).
Prints the transaction hash and the split as one JSON line.`;

/** `ivory contracts recover`: 0 on success, 1 when refused, 2 on a usage error. */
export async function recoverCommand(args: readonly string[]): Promise<number> {
  const parsed = parseCommandFlags('ivory contracts recover', RECOVER_USAGE, args, ['issuance', 'asset', 'rpc-url']);
  if ('exitCode' in parsed) return parsed.exitCode;
  const { values } = parsed;
  const { issuance, asset } = values;
  const rpcUrl = values['rpc-url'];
  const problem =
    issuance === undefined || !isUuid(issuance)
      ? '--issuance must be an issuance id'
      : asset === undefined || (asset !== 'native' && !/^0x[0-9a-fA-F]{40}$/.test(asset))
        ? '--asset must be a token address or "native"'
        : rpcUrl === undefined || !/^https?:\/\//.test(rpcUrl)
          ? '--rpc-url must be an http(s) URL'
          : undefined;
  if (problem !== undefined || issuance === undefined || asset === undefined || rpcUrl === undefined) {
    console.error(`ivory contracts recover: ${problem ?? 'missing arguments'}`);
    return 2;
  }
  const privateKey = readPrivateKey('ivory contracts recover');
  if (privateKey === undefined) return 2;
  const config = loadCliConfig();
  if (config === undefined) return 2;
  const database = await openConfiguredDatabase(config);
  try {
    const outcome = await recoverForwarder(database.db, { issuanceId: issuance, asset, privateKey, rpcUrl });
    console.log(
      JSON.stringify({
        tx_hash: outcome.txHash,
        forwarder: outcome.forwarder,
        asset: outcome.asset,
        to_recipient: outcome.toRecipient.toString(),
        to_operator: outcome.toOperator.toString(),
      }),
    );
    return 0;
  } catch (error) {
    if (error instanceof RecoverRefused) {
      console.error(`ivory contracts recover: ${error.message}`);
      return 1;
    }
    // A contract refusal (not the owner or delegate, nothing to recover, an unsettled invoice): one line.
    const reason = error instanceof Error ? (error as Error & { shortMessage?: string }).shortMessage ?? error.message : String(error);
    console.error(`ivory contracts recover: refused: ${reason.split('\n')[0]}`);
    return 1;
  } finally {
    await database.close();
  }
}
