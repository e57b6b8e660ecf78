import { findAssociatedTokenPda, getCreateAssociatedTokenIdempotentInstruction } from '@solana-program/token';
import { address as toAddress } from '@solana/kit';
import type { Clock } from '../../platform/clock.js';
import type { SecretBox } from '../../platform/crypto.js';
import type { Db } from '../../platform/database/database.js';
import type { AddressPending, AddressRequest } from '../chain-adapter.js';
import type { DriverLog } from '../family-driver.js';
import { ensureDepositSeed, openDepositKey, solanaRelayerKey } from './solana-keys.js';
import { findDepositAddress, insertDepositAddressIfAbsent, nextDerivationIndex, noteTokenAccountCreation, type SolanaDepositAddress } from './solana-keys.repository.js';
import type { SolanaNetwork } from './solana-network.js';
import { newPaymentReference } from './solana-pay.js';
import { blockHeights, existingAccounts, mintTokenProgram, signatureStates, signTransaction, signerOf, sendSigned, type SolanaRpc } from './solana-rpc.js';

export interface AllocateDepositAddressDeps {
  readonly db: Db;
  readonly secrets: SecretBox;
  readonly clock: Clock;
  readonly rpc: SolanaRpc;
  readonly network: SolanaNetwork;
  readonly log: DriverLog;
}

/**
 * An issuance's Solana payment address (issue 24 item 1): its own deposit key,
 * derived from the deployment's seed at a fresh index, shown as the key's
 * wallet address (Solana Pay's `recipient` is a system account). The issuance
 * stays `registering` (SPEC) until its associated token account exists at
 * `confirmed`: the relayer creates it idempotently, in the mint's own token
 * program, and pays its rent. The call never waits for the chain: it sends
 * the creation, notes it, and answers pending; a later call answers the
 * address once the account exists, and sends a new creation only when the
 * noted one can no longer land (failed, or its blockhash expired below the
 * confirmed block height). Idempotent per issuance: the first stored index
 * wins, and a creation sent twice (a crash before it was noted) is harmless.
 */
export async function allocateDepositAddress(deps: AllocateDepositAddressDeps, request: AddressRequest): Promise<string | AddressPending> {
  const { db, rpc, network } = deps;
  if (request.chainId !== network.chainId) throw new Error(`allocation for chain ${request.chainId} sent to the adapter of Solana chain ${network.chainId}`);
  const deposit = (await findDepositAddress(db, request.issuanceId)) ?? (await recordDepositAddress(deps, request));
  const [exists] = await existingAccounts(rpc, [deposit.tokenAccount], 'confirmed');
  if (exists === true) return deposit.ownerAddress;
  const pending: AddressPending = { pending: true, retryInMs: network.pollIntervalMs };
  if (deposit.creation !== undefined && (await mayStillLand(deps, deposit, deposit.creation))) return pending;
  await createTokenAccount(deps, deposit);
  return pending;
}

/**
 * Whether the noted creation can still make the account exist: it is in a
 * block (not failed), or its blockhash is still valid at the confirmed height.
 * A failed one is forgotten and reported, so the allocation backs off before
 * trying again (a relayer short of SOL would otherwise pay a fee every poll).
 */
async function mayStillLand(deps: AllocateDepositAddressDeps, deposit: SolanaDepositAddress, creation: { readonly signature: string; readonly lastValidBlockHeight: bigint }): Promise<boolean> {
  const [state] = await signatureStates(deps.rpc, [creation.signature]);
  if (state?.failed === true) {
    await noteTokenAccountCreation(deps.db, deposit.issuanceId, undefined);
    throw new Error(`the creation of Solana deposit token account ${deposit.tokenAccount} failed on chain (${creation.signature}); sent again after the allocation's back-off`);
  }
  if (state !== null && state !== undefined) return true;
  return (await blockHeights(deps.rpc)).head <= creation.lastValidBlockHeight;
}

async function recordDepositAddress(deps: AllocateDepositAddressDeps, request: AddressRequest): Promise<SolanaDepositAddress> {
  const { db, rpc, network } = deps;
  const tokenProgram = await mintTokenProgram(rpc, request.token);
  if (tokenProgram === undefined) throw new Error(`${request.token} is not an SPL Token or Token-2022 mint on Solana network ${network.name}`);
  await ensureDepositSeed(db, deps.secrets);
  const derivationIndex = await nextDerivationIndex(db);
  // Hardened derivation has no public-only path: the seed is opened to learn the address, and the private key dropped at once.
  const key = await openDepositKey(db, deps.secrets, derivationIndex);
  key.privateKey.fill(0);
  const [tokenAccount] = await findAssociatedTokenPda({ owner: toAddress(key.address), mint: toAddress(request.token), tokenProgram: toAddress(tokenProgram) });
  await insertDepositAddressIfAbsent(
    db,
    { issuanceId: request.issuanceId, chainId: network.chainId, derivationIndex, ownerAddress: key.address, tokenAccount, mint: request.token, tokenProgram, kind: request.kind, reference: newPaymentReference() },
    deps.clock.now(),
  );
  const stored = await findDepositAddress(db, request.issuanceId);
  if (stored === undefined) throw new Error(`Solana deposit address of issuance ${request.issuanceId} vanished right after its insert`);
  return stored;
}

async function createTokenAccount(deps: AllocateDepositAddressDeps, deposit: SolanaDepositAddress): Promise<void> {
  const relayer = await signerOf((await solanaRelayerKey(deps.db, deps.secrets, deps.network.chainId)).privateKey);
  const instruction = getCreateAssociatedTokenIdempotentInstruction({
    payer: relayer,
    ata: toAddress(deposit.tokenAccount),
    owner: toAddress(deposit.ownerAddress),
    mint: toAddress(deposit.mint),
    tokenProgram: toAddress(deposit.tokenProgram),
  });
  const signed = await signTransaction(deps.rpc, relayer, [instruction]);
  await sendSigned(deps.rpc, signed.wireBase64);
  // Noted after the send: a crash in between only leads to a second creation, a no-op on chain but its fee.
  await noteTokenAccountCreation(deps.db, deposit.issuanceId, { signature: signed.signature, lastValidBlockHeight: signed.lastValidBlockHeight });
  deps.log.info({ issuanceId: deposit.issuanceId, tokenAccount: deposit.tokenAccount, signature: signed.signature }, 'Solana deposit token account creation sent');
}
