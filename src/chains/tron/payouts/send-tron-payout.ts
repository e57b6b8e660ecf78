import { decodeFunctionResult, encodeFunctionData, erc20Abi, type Hex } from 'viem';
import type { Clock } from '../../../platform/clock.js';
import type { SecretBox } from '../../../platform/crypto.js';
import { inTransaction, type Db } from '../../../platform/database/database.js';
import type { PayoutBroadcast, PayoutRequest } from '../../chain-adapter.js';
import { nextExpiringPayoutStep, type SignedAttempt } from '../../expiring-payout.js';
import { depositForwarderFactoryAbi, findForwarder, invoiceForwarderFactoryAbi, type Forwarder } from '../../evm/index.js';
import type { DriverLog } from '../../family-driver.js';
import type { TronApi } from '../tron-api.js';
import { tronAddress, tronWireAddress } from '../tron-evm-address.js';
import type { TronNetwork } from '../tron-network.js';
import { availableEnergy, constantCall, energyPrice, headBlock, solidBlock, transactionInfo, trxBalance } from '../tron-node-reads.js';
import { ensureTronRelayer, noteTrxNeeded, tronRelayerKey } from '../tron-relayer.js';
import { checkTrigger, signTransactionId, transactionId } from '../tron-transaction.js';
import { broadcastTronTransaction } from './broadcast.js';
import {
  insertTronPayoutTransaction,
  listTronPayoutTransactions,
  markTronBroadcast,
  type TronPayoutTransaction,
} from './tron-payout-transactions.repository.js';

export interface SendTronPayoutDeps {
  readonly db: Db;
  readonly secrets: SecretBox;
  readonly clock: Clock;
  readonly api: TronApi;
  readonly network: TronNetwork;
  readonly log: DriverLog;
  /** Tests only: stop after signing (before storing) or after storing (before broadcasting), as a crash would. */
  readonly hooks?: { afterSign?(): Promise<void>; afterStore?(): Promise<void> };
}

/** Energy estimates leave this headroom (state may change between estimate and inclusion). */
const ENERGY_HEADROOM_PERCENT = 30n;
/** TRX kept for the transaction's bandwidth when the relayer's free bandwidth is used up (about 350 bytes at 1,000 sun). */
const BANDWIDTH_RESERVE_SUN = 500_000n;

/** The forwarder holds nothing to sweep yet: temporary as far as the payout worker knows (it retries with back-off). */
export class TronNothingToSweepError extends Error {}

/**
 * Sends (or finds again) the sweep of one payout on Tron, under the
 * expiring-payouts rule (chains/expiring-payout.ts): a transaction already
 * signed for the payout is followed or rebroadcast; a new one is signed only
 * when every earlier one is proven unable to land. A new sweep is simulated
 * first (a sweep that would revert is never signed), its energy estimated and
 * its fee_limit set from the energy price; the relayer must hold the TRX it
 * would burn (`gas.wait` otherwise). The node builds the transaction, Ivory
 * checks it and signs it, stores it, then broadcasts it.
 */
export async function sendTronPayout(deps: SendTronPayoutDeps, request: PayoutRequest): Promise<PayoutBroadcast> {
  const { network, db } = deps;
  if (request.chainId !== network.chainId) return { kind: 'failed', reason: `payout for chain ${request.chainId} sent to the adapter of Tron chain ${network.chainId}` };
  const forwarder = await findForwarder(db, request.issuanceId);
  if (forwarder === undefined) return { kind: 'failed', reason: `no forwarder was allocated for issuance ${request.issuanceId} on Tron chain ${network.chainId}` };
  if (tronAddress(forwarder.address) !== request.fromAddress) return { kind: 'failed', reason: `payout address ${request.fromAddress} is not the issuance's forwarder` };
  await ensureTronRelayer(db, deps.secrets, network.chainId);

  const attempts = await listTronPayoutTransactions(db, network.chainId, request.payoutId);
  // A sweep that reverted on chain is done with: it landed, moved nothing, and the payout signs anew.
  const contenders = attempts.filter((attempt) => attempt.status !== 'failed');
  if (contenders.length > 0) {
    const [head, solid] = await Promise.all([headBlock(deps.api), solidBlock(deps.api)]);
    const seen = await Promise.all(contenders.map((attempt) => seenAs(deps.api, attempt)));
    const step = nextExpiringPayoutStep(seen, { head: head.timestamp, final: solid.timestamp });
    const attempt = (id: string) => contenders.find((candidate) => candidate.id === id) as TronPayoutTransaction;
    switch (step.kind) {
      case 'follow':
        return { kind: 'broadcast', txHash: attempt(step.attemptId).txId };
      case 'rebroadcast':
        return broadcastStored(deps, attempt(step.attemptId));
      case 'wait': {
        // Expired at the head but not yet proven dead at the solidified block: the tracker decides.
        const newest = contenders[contenders.length - 1] as TronPayoutTransaction;
        return { kind: 'broadcast', txHash: newest.txId };
      }
      case 'sign':
        break;
    }
  }
  return signAndSend(deps, request, forwarder, attempts);
}

async function seenAs(api: TronApi, attempt: TronPayoutTransaction): Promise<SignedAttempt> {
  if (attempt.status === 'confirmed') return { id: attempt.id, expiresAt: attempt.expiration, seen: 'landed' };
  if (attempt.status === 'expired') return { id: attempt.id, expiresAt: attempt.expiration, seen: 'absent' };
  const info = await transactionInfo(api, attempt.txId, false);
  return { id: attempt.id, expiresAt: attempt.expiration, seen: info === undefined ? 'absent' : 'landed' };
}

async function signAndSend(deps: SendTronPayoutDeps, request: PayoutRequest, forwarder: Forwarder, earlier: readonly TronPayoutTransaction[]): Promise<PayoutBroadcast> {
  const { api, network, db, clock } = deps;
  const relayer = await tronRelayerKey(db, deps.secrets, network.chainId);
  const relayerWire = tronWireAddress(relayer.address);
  const factoryWire = tronWireAddress(forwarder.factory);
  const view = async (contract: string, data: Hex) => constantCall(api, { owner: relayerWire, contract, data });

  if (forwarder.kind === 'invoice') {
    const settled = await view(factoryWire, encodeFunctionData({ abi: invoiceForwarderFactoryAbi, functionName: 'settled', args: [forwarder.address] }));
    if (settled.revert === undefined && settled.output !== '' && decodeFunctionResult({ abi: invoiceForwarderFactoryAbi, functionName: 'settled', data: `0x${settled.output}` })) {
      return { kind: 'failed', reason: `forwarder ${tronAddress(forwarder.address)} is already settled on chain; nothing left for Ivory to sweep` };
    }
  }
  const balanceCall = await view(tronWireAddress(forwarder.terms.token), encodeFunctionData({ abi: erc20Abi, functionName: 'balanceOf', args: [forwarder.address] }));
  if (balanceCall.revert !== undefined || balanceCall.output === '') throw new Error(`balanceOf of the forwarder failed: ${balanceCall.revert ?? 'empty answer'}`);
  const balance = decodeFunctionResult({ abi: erc20Abi, functionName: 'balanceOf', data: `0x${balanceCall.output}` });
  if (balance === 0n || balance < forwarder.terms.amount) throw new TronNothingToSweepError(`forwarder ${tronAddress(forwarder.address)} holds ${balance}: nothing to sweep yet`);

  const abi = forwarder.kind === 'invoice' ? invoiceForwarderFactoryAbi : depositForwarderFactoryAbi;
  const data = encodeFunctionData({ abi, functionName: 'sweep', args: [forwarder.terms] });
  const simulation = await view(factoryWire, data);
  if (simulation.revert !== undefined) throw new Error(`the sweep would revert: ${simulation.revert}`);

  const [price, energy, trx] = await Promise.all([energyPrice(api), availableEnergy(api, relayerWire), trxBalance(api, relayerWire)]);
  const energyNeeded = simulation.energyUsed + (simulation.energyUsed * ENERGY_HEADROOM_PERCENT) / 100n;
  // A sweep that ran out of energy before is retried with twice its limit (issue 23 item 6).
  const outOfEnergy = earlier.filter((attempt) => attempt.receiptResult === 'OUT_OF_ENERGY').map((attempt) => attempt.feeLimit * 2n);
  const feeLimit = [energyNeeded * price, ...outOfEnergy].reduce((largest, value) => (value > largest ? value : largest), 0n);
  if (feeLimit > network.feeLimitSun) {
    return { kind: 'failed', reason: `the sweep needs a fee_limit of ${feeLimit} sun, above the network's fee_limit of ${network.feeLimitSun}: raise it in the catalogue` };
  }
  const burnt = (energyNeeded > energy ? energyNeeded - energy : 0n) * price + BANDWIDTH_RESERVE_SUN;
  if (trx < burnt) {
    deps.log.info({ payoutId: request.payoutId, relayer: relayer.address, needed: burnt.toString(), balance: trx.toString() }, 'Tron relayer lacks TRX for the sweep');
    await noteTrxNeeded(db, network.chainId, burnt, clock.now());
    return { kind: 'waiting_gas' };
  }

  const built = await api.call<{ result?: { result?: boolean; message?: string }; transaction?: { raw_data_hex?: string } }>('/wallet/triggersmartcontract', {
    owner_address: relayerWire,
    contract_address: factoryWire,
    data: data.slice(2),
    fee_limit: Number(feeLimit),
    call_value: 0,
  });
  const rawDataHex = built.transaction?.raw_data_hex?.toLowerCase();
  if (built.result?.result !== true || rawDataHex === undefined) throw new Error(`the node built no transaction: ${built.result?.message ?? 'no answer'}`);
  // Expiration is judged by the chain's clock (block timestamps), which is what the network enforces.
  const head = await headBlock(api);
  const decoded = checkTrigger(rawDataHex, { owner: relayerWire, contract: factoryWire, data, feeLimit }, head.timestamp);
  const txId = transactionId(rawDataHex);
  const signature = signTransactionId(txId, relayer.privateKey);
  await deps.hooks?.afterSign?.();

  const stored = await inTransaction(db, async (trx) => {
    // One signer per payout: a racing worker that stored a transaction first wins; its transaction is followed.
    const now = await listTronPayoutTransactions(trx, network.chainId, request.payoutId);
    if (now.length !== earlier.length) return undefined;
    return insertTronPayoutTransaction(
      trx,
      { payoutId: request.payoutId, chainId: network.chainId, relayer: relayer.address, txId, rawDataHex, signature, expiration: decoded.expiration, feeLimit },
      clock.now(),
    );
  });
  if (stored === undefined) return sendTronPayout(deps, request);
  await deps.hooks?.afterStore?.();
  return broadcastStored(deps, stored);
}

/** Broadcasts a stored transaction and answers the worker; trouble reaching the node is thrown (the next call rebroadcasts). */
async function broadcastStored(deps: SendTronPayoutDeps, transaction: TronPayoutTransaction): Promise<PayoutBroadcast> {
  const outcome = await broadcastTronTransaction(deps.api, transaction.rawDataHex, transaction.signature);
  switch (outcome.kind) {
    case 'accepted':
    case 'known':
      await markTronBroadcast(deps.db, transaction.id, deps.clock.now());
      return { kind: 'broadcast', txHash: transaction.txId };
    case 'expired':
      // It can never land; the tracker proves it at the solidified block and the payout signs anew.
      return { kind: 'broadcast', txHash: transaction.txId };
    case 'insufficient_trx':
      await noteTrxNeeded(deps.db, deps.network.chainId, transaction.feeLimit + BANDWIDTH_RESERVE_SUN, deps.clock.now());
      return { kind: 'waiting_gas' };
  }
}
