import { getAddress, type Hex } from 'viem';
import type { Executor } from '../../../platform/database/database.js';
import type { EvmTables } from '../relayer/index.js';
import type { Forwarder } from './forwarder-terms.js';

/** SQL for `evm_forwarders`: each live issuance's forwarder and the terms its address commits. */

const evm = (executor: Executor) => executor.withTables<EvmTables>();

/** Stores the forwarder unless the issuance has one already (asked twice): the first one stays. */
export async function insertForwarderIfAbsent(executor: Executor, forwarder: Forwarder, now: Date): Promise<void> {
  const { terms } = forwarder;
  await evm(executor)
    .insertInto('evm_forwarders')
    .values({
      issuance_id: forwarder.issuanceId,
      chain_id: forwarder.chainId,
      kind: forwarder.kind,
      factory: forwarder.factory,
      address: forwarder.address,
      terms_id: terms.id,
      token: terms.token,
      recipient: terms.recipient,
      fee_wallet: terms.feeWallet,
      delegate: terms.delegate,
      amount: terms.amount,
      fee_min: terms.feeMin,
      fee_max: terms.feeMax,
      fee_bps: terms.feeBps,
      created_at: now,
    })
    .onConflict((conflict) => conflict.column('issuance_id').doNothing())
    .execute();
}

export async function findForwarder(executor: Executor, issuanceId: string): Promise<Forwarder | undefined> {
  const row = await evm(executor).selectFrom('evm_forwarders').selectAll().where('issuance_id', '=', issuanceId).executeTakeFirst();
  if (row === undefined) return undefined;
  return {
    issuanceId: row.issuance_id,
    chainId: row.chain_id,
    kind: row.kind,
    factory: getAddress(row.factory),
    address: getAddress(row.address),
    terms: {
      id: row.terms_id as Hex,
      token: getAddress(row.token),
      recipient: getAddress(row.recipient),
      feeWallet: getAddress(row.fee_wallet),
      delegate: getAddress(row.delegate),
      amount: BigInt(row.amount),
      feeMin: BigInt(row.fee_min),
      feeMax: BigInt(row.fee_max),
      feeBps: row.fee_bps,
    },
  };
}

/** Whether `address` (checksummed) is the forwarder of some issuance: a payment address of this service. */
export async function isForwarderAddress(executor: Executor, address: string): Promise<boolean> {
  const row = await evm(executor).selectFrom('evm_forwarders').select('issuance_id').where('address', '=', address).limit(1).executeTakeFirst();
  return row !== undefined;
}
