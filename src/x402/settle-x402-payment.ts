import type { PaymentPayload, PaymentRequirements, ResourceInfo, SettleResponse } from '@x402/core/types';
import { parsePaymentPayload } from '@x402/core/schemas';
import { decodePaymentSignatureHeader } from '@x402/core/http';
import { eip3009ABI } from '@x402/evm';
import { ExactEvmScheme } from '@x402/evm/exact/facilitator';
import {
  BaseError,
  ContractFunctionRevertedError,
  ContractFunctionZeroDataError,
  encodeFunctionData,
  erc20Abi,
  getAddress,
  parseEventLogs,
  parseSignature,
  size,
  type Hex,
  type Log,
} from 'viem';
import { createRpcClient, sendRelayerCall } from '../chains/index.js';
import { feeFor } from '../money/index.js';
import type { SecretBox } from '../platform/crypto.js';
import { newId } from '../platform/crypto.js';
import { inTransaction, type Db } from '../platform/database/database.js';
import { readOnlyFacilitatorSigner } from './facilitator-signer.js';
import { readX402Offer, type ReadOfferDeps } from './read-x402-offer.js';
import { amountOwed, gasCapWei, readAuthorization, X402_VERSION, type Authorization, type X402Refusal } from './x402-offer.js';
import { deleteUnsignedClaim, inFlightValue, insertClaim, lockInvoice, markOutcome, markSent } from './x402.repository.js';

export interface SettleDeps extends ReadOfferDeps {
  readonly db: Db;
  readonly secrets: SecretBox;
  /** How long to wait for the settlement's receipt. */
  readonly receiptTimeoutMs?: number;
}

/**
 * Why a presented payment was not settled, as x402 error strings: the `exact` EVM scheme's own
 * (`invalid_exact_evm_*`, from `@x402/evm`'s verification) and Ivory's for what the relayer
 * refuses. All are answered 402 with fresh requirements: the payer may sign again.
 */
export type SettleFailure =
  | 'invalid_payload'
  | 'invalid_x402_version'
  | 'unsupported_payload_type'
  | 'invalid_exact_evm_nonce_already_used'
  | 'invalid_exact_evm_transaction_simulation_failed'
  | 'invalid_exact_evm_transaction_failed'
  | 'invalid_exact_evm_transfer_event_mismatch'
  | 'settlement_gas_over_cap'
  | 'relayer_unfunded'
  | 'settlement_unconfirmed'
  | (string & {});

export type SettleOutcome =
  | { readonly kind: 'settled'; readonly resource: ResourceInfo; readonly response: SettleResponse; readonly gasUsed: bigint }
  | { readonly kind: 'refused'; readonly resource: ResourceInfo; readonly refusal: X402Refusal }
  | {
      readonly kind: 'failed';
      readonly resource: ResourceInfo;
      readonly error: SettleFailure;
      /** The requirements to sign again against (empty when the invoice is no longer offered). */
      readonly accepts: readonly PaymentRequirements[];
      /** Set when a transaction was sent (`settlement_unconfirmed`, a reverted one). */
      readonly response?: SettleResponse;
    };

/**
 * `GET {payment_url}/x402` with `PAYMENT-SIGNATURE`: verify the payer's EIP-3009 authorisation
 * against what the invoice owes now, claim it, have the network's relayer submit
 * `transferWithAuthorization`, wait for the receipt. Nothing is credited here: the watcher
 * credits the token's Transfer to the forwarder like any payment (docs/decisions/0035).
 */
export async function settleX402Payment(deps: SettleDeps, publicId: string, header: string): Promise<SettleOutcome> {
  const offer = await readX402Offer(deps.db, deps, publicId);
  if (offer.kind === 'refused') return offer;
  const { resource, invoice, requirements } = offer;
  const failed = (error: SettleFailure, response?: SettleResponse): SettleOutcome => ({
    kind: 'failed',
    resource,
    error,
    accepts: [requirements],
    ...(response === undefined ? {} : { response }),
  });

  let decoded: unknown;
  try {
    decoded = decodePaymentSignatureHeader(header);
  } catch {
    return failed('invalid_payload');
  }
  if (!parsePaymentPayload(decoded).success) return failed('invalid_payload');
  // Checked by the package's own schema just above; its parsed type widens `network` to string.
  const payload = decoded as PaymentPayload;
  if (payload.x402Version !== X402_VERSION) return failed('invalid_x402_version');
  const authorization = readAuthorization(payload.payload);
  if (authorization === undefined) return failed('unsupported_payload_type');

  const client = createRpcClient(offer.access.rpcUrls);
  // The token's own replay record, asked directly: the library diagnoses a used nonce only through
  // Multicall3, which not every network (nor anvil) has.
  let used: boolean;
  try {
    used = await client.readContract({ address: getAddress(invoice.token), abi: eip3009ABI, functionName: 'authorizationState', args: [authorization.from, authorization.nonce] });
  } catch (error) {
    // A reverting (or empty) answer: the catalogue's `eip712` names a token without EIP-3009. A node that is down is thrown.
    const notSupported = error instanceof BaseError && error.walk((cause) => cause instanceof ContractFunctionRevertedError || cause instanceof ContractFunctionZeroDataError) !== null;
    if (notSupported) return failed('invalid_exact_evm_eip3009_not_supported');
    throw error;
  }
  if (used) return failed('invalid_exact_evm_nonce_already_used');
  // Signature (EOA, ERC-1271 or ERC-6492), recipient, amount, validity window, and a simulation
  // of the call: the exact scheme's own verification, read only.
  const verifier = new ExactEvmScheme(readOnlyFacilitatorSigner(client), { eip6492AllowedFactories: [] });
  const verified = await verifier.verify(payload, requirements);
  if (!verified.isValid) return failed(verified.invalidReason ?? 'invalid_payload');

  const claimId = newId();
  const claim = await inTransaction(deps.db, async (trx): Promise<'claimed' | 'nonce_used' | X402Refusal | 'amount_changed'> => {
    const locked = await lockInvoice(trx, invoice.id);
    if (locked === undefined) return { code: 'not_found' };
    const owed = amountOwed(locked, await inFlightValue(trx, invoice.id), deps.clock.now());
    if (typeof owed !== 'bigint') return owed;
    if (owed !== authorization.value) return 'amount_changed';
    const inserted = await insertClaim(trx, {
      id: claimId,
      chainId: invoice.chainId,
      token: getAddress(invoice.token),
      authorizer: authorization.from,
      nonce: authorization.nonce,
      issuanceId: invoice.id,
      value: authorization.value,
      now: deps.clock.now(),
    });
    return inserted ? 'claimed' : 'nonce_used';
  });
  if (claim === 'nonce_used') return failed('invalid_exact_evm_nonce_already_used');
  if (claim === 'amount_changed') return failed('invalid_exact_evm_payload_authorization_value_mismatch');
  if (claim !== 'claimed') return { kind: 'refused', resource, refusal: claim };

  const network = requirements.network;
  const fee = feeFor(invoice.amount ?? 0n, invoice.feeTerms, invoice.tokenDecimals);
  const sent = await sendRelayerCall(deps, {
    chainId: invoice.chainId,
    access: offer.access,
    to: getAddress(invoice.token),
    data: transferWithAuthorizationData(authorization),
    maxCostWei: gasCapWei(fee, invoice.tokenDecimals, offer.nativePrice),
    beforeBroadcast: (txHash) => markSent(deps.db, claimId, txHash, deps.clock.now()),
    ...(deps.receiptTimeoutMs === undefined ? {} : { receiptTimeoutMs: deps.receiptTimeoutMs }),
  });
  const response = (success: boolean, transaction: string, errorReason?: string): SettleResponse => ({
    success,
    transaction,
    network,
    payer: authorization.from,
    ...(errorReason === undefined ? {} : { errorReason }),
  });
  switch (sent.kind) {
    case 'reverts':
    case 'over_cap':
    case 'waiting_gas': {
      // Unsigned: the claim goes, and the payer may present the authorisation again. Signed but
      // refused by the node (waiting_gas after the broadcast): it stays, failed, out of the amount in flight.
      await deleteUnsignedClaim(deps.db, claimId);
      await markOutcome(deps.db, claimId, { status: 'failed', gasUsed: null, error: sent.kind }, deps.clock.now());
      const error = sent.kind === 'reverts' ? 'invalid_exact_evm_transaction_simulation_failed' : sent.kind === 'over_cap' ? 'settlement_gas_over_cap' : 'relayer_unfunded';
      return failed(error);
    }
    case 'unconfirmed':
      // Signed and perhaps out there: the claim stays (status sent), so the amount stays in flight.
      return failed('settlement_unconfirmed', response(false, sent.txHash, 'settlement_unconfirmed'));
    case 'mined': {
      const transferred = sent.success && hasTransfer(sent.logs, getAddress(invoice.token), authorization);
      const error = !sent.success ? 'invalid_exact_evm_transaction_failed' : transferred ? null : 'invalid_exact_evm_transfer_event_mismatch';
      await markOutcome(deps.db, claimId, { status: error === null ? 'settled' : 'failed', gasUsed: sent.gasUsed, error }, deps.clock.now());
      if (error !== null) return failed(error, response(false, sent.txHash, error));
      return { kind: 'settled', resource, response: response(true, sent.txHash), gasUsed: sent.gasUsed };
    }
  }
}

/** The token call: the (v, r, s) form for a 65-byte EOA signature (every EIP-3009 token has it), the bytes form otherwise. */
function transferWithAuthorizationData(authorization: Authorization): Hex {
  const { from, to, value, validAfter, validBefore, nonce, signature } = authorization;
  if (size(signature) === 65) {
    const { r, s, v, yParity } = parseSignature(signature);
    const recovery = v ?? BigInt(yParity + 27);
    return encodeFunctionData({ abi: eip3009ABI, functionName: 'transferWithAuthorization', args: [from, to, value, validAfter, validBefore, nonce, Number(recovery), r, s] });
  }
  return encodeFunctionData({ abi: eip3009ABI, functionName: 'transferWithAuthorization', args: [from, to, value, validAfter, validBefore, nonce, signature] });
}

/** The receipt holds the token's Transfer(from → payTo, value): what the watcher will credit. */
function hasTransfer(logs: readonly Log[], token: string, authorization: Authorization): boolean {
  return parseEventLogs({ abi: erc20Abi, eventName: 'Transfer', logs: [...logs] }).some(
    (log) =>
      getAddress(log.address) === token &&
      getAddress(log.args.from) === authorization.from &&
      getAddress(log.args.to) === authorization.to &&
      log.args.value === authorization.value,
  );
}
