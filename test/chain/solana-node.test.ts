import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { getCreateAccountInstruction, getTransferSolInstruction } from '@solana-program/system';
import {
  TOKEN_PROGRAM_ADDRESS,
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getInitializeMint2Instruction,
  getMintSize,
  getMintToCheckedInstruction,
  getTransferCheckedInstruction,
} from '@solana-program/token';
import {
  SOLANA_ERROR__JSON_RPC__INVALID_PARAMS,
  SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE,
  SOLANA_ERROR__TRANSACTION_ERROR__BLOCKHASH_NOT_FOUND,
  address,
  appendTransactionMessageInstructions,
  createKeyPairSignerFromBytes,
  createSolanaRpc,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  isSolanaError,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Address,
  type Instruction,
  type KeyPairSigner,
  type Signature,
} from '@solana/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKEN_2022_PROGRAM, startSolanaNode, type SolanaNode } from '../../devnets/solana-node/index.js';

const TOKEN_2022_PROGRAM_ADDRESS = address(TOKEN_2022_PROGRAM);

// Issue 24 item 8: the local Solana node serves item 3's JSON-RPC methods in a validator's wire
// shapes. @solana/kit is the client throughout: what it accepts here, it accepts from a real node.

const root = path.resolve(import.meta.dirname, '../..');
const CONFIRMED_LAG = 2;
const FINALIZED_LAG = 5;
const BLOCKHASH_VALIDITY = 10;

type Rpc = ReturnType<typeof createSolanaRpc>;

let node: SolanaNode;
let rpc: Rpc;
let payer: KeyPairSigner;

beforeAll(async () => {
  // Slots advance by hand in these tests (`node.advance`), so each step is exact.
  node = await startSolanaNode({ autoAdvance: false, confirmedLag: CONFIRMED_LAG, finalizedLag: FINALIZED_LAG, blockhashValidity: BLOCKHASH_VALIDITY });
  rpc = createSolanaRpc(node.url);
  payer = await createKeyPairSignerFromBytes(node.accounts[0]!.secretKey);
});

afterAll(async () => {
  await node?.close();
});

async function post(method: string, params: unknown[]): Promise<Record<string, unknown>> {
  const response = await fetch(node.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }) });
  return (await response.json()) as Record<string, unknown>;
}

async function signed(instructions: Instruction[], options: { feePayer?: KeyPairSigner; blockhashCommitment?: 'processed' | 'confirmed' | 'finalized' } = {}) {
  const { value: latest } = await rpc.getLatestBlockhash({ commitment: options.blockhashCommitment ?? 'processed' }).send();
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (draft) => setTransactionMessageFeePayerSigner(options.feePayer ?? payer, draft),
    (draft) => setTransactionMessageLifetimeUsingBlockhash(latest, draft),
    (draft) => appendTransactionMessageInstructions(instructions, draft),
  );
  return signTransactionMessageWithSigners(message);
}

async function send(instructions: Instruction[], options: { feePayer?: KeyPairSigner; skipPreflight?: boolean } = {}): Promise<Signature> {
  const transaction = await signed(instructions, options);
  const signature = await rpc.sendTransaction(getBase64EncodedWireTransaction(transaction), { encoding: 'base64', skipPreflight: options.skipPreflight ?? false }).send();
  expect(signature).toBe(getSignatureFromTransaction(transaction));
  return signature;
}

/** A mint whose authority is `payer`, made with kit and @solana-program/token instructions. */
async function createMint(tokenProgram: Address, decimals: number): Promise<Address> {
  const mint = await generateKeyPairSigner();
  const space = getMintSize();
  const rent = await rpc.getMinimumBalanceForRentExemption(BigInt(space)).send();
  await send([
    getCreateAccountInstruction({ payer, newAccount: mint, lamports: rent, space, programAddress: tokenProgram }),
    getInitializeMint2Instruction({ mint: mint.address, decimals, mintAuthority: payer.address }, { programAddress: tokenProgram }),
  ]);
  return mint.address;
}

async function tokenAccountOf(owner: Address, mint: Address, tokenProgram: Address): Promise<Address> {
  const [tokenAccount] = await findAssociatedTokenPda({ owner, mint, tokenProgram });
  return tokenAccount;
}

async function createTokenAccount(owner: Address, mint: Address, tokenProgram: Address): Promise<Address> {
  const tokenAccount = await tokenAccountOf(owner, mint, tokenProgram);
  await send([getCreateAssociatedTokenIdempotentInstruction({ payer, ata: tokenAccount, owner, mint, tokenProgram })]);
  return tokenAccount;
}

/** A mint, two funded token accounts of it (the payer's with 1,000 tokens, a stranger's empty). */
async function tokenScene(tokenProgram: Address) {
  const mint = await createMint(tokenProgram, 6);
  const source = await createTokenAccount(payer.address, mint, tokenProgram);
  const receiver = (await generateKeyPairSigner()).address;
  const destination = await createTokenAccount(receiver, mint, tokenProgram);
  await send([getMintToCheckedInstruction({ mint, token: source, mintAuthority: payer, amount: 1_000_000_000n, decimals: 6 }, { programAddress: tokenProgram })]);
  const transfer = (amount: bigint) =>
    send([getTransferCheckedInstruction({ source, mint, destination, authority: payer, amount, decimals: 6 }, { programAddress: tokenProgram })]);
  return { mint, source, destination, receiver, transfer };
}

describe('local Solana node: slots, blockhashes, commitments', () => {
  it('answers getSlot and getBlockHeight per commitment, and a blockhash with its last valid block height', async () => {
    const processed = await rpc.getSlot({ commitment: 'processed' }).send();
    expect(await rpc.getSlot({ commitment: 'confirmed' }).send()).toBe(processed - BigInt(CONFIRMED_LAG));
    expect(await rpc.getSlot({ commitment: 'finalized' }).send()).toBe(processed - BigInt(FINALIZED_LAG));
    expect(await rpc.getBlockHeight({ commitment: 'processed' }).send()).toBe(processed);
    node.advance(3);
    expect(await rpc.getSlot({ commitment: 'processed' }).send()).toBe(processed + 3n);

    const { context, value } = await rpc.getLatestBlockhash({ commitment: 'processed' }).send();
    expect(context.slot).toBe(processed + 3n);
    expect(value.lastValidBlockHeight).toBe(processed + 3n + BigInt(BLOCKHASH_VALIDITY));
    expect((await rpc.isBlockhashValid(value.blockhash, { commitment: 'processed' }).send()).value).toBe(true);
  });

  it('refuses lags a client could not work with: a finalized blockhash must still be valid', async () => {
    await expect(startSolanaNode({ autoAdvance: false, finalizedLag: 10, blockhashValidity: 10 })).rejects.toThrow(RangeError);
  });

  it('advances slots on its timer, and pauses', async () => {
    const timed = await startSolanaNode({ slotMs: 20, finalizedLag: 4, fundedAccounts: 0 });
    try {
      const timedRpc = createSolanaRpc(timed.url);
      const first = await timedRpc.getSlot({ commitment: 'processed' }).send();
      await new Promise((resolve) => setTimeout(resolve, 150));
      const later = await timedRpc.getSlot({ commitment: 'processed' }).send();
      expect(later).toBeGreaterThan(first + 2n);
      timed.pause();
      const paused = await timedRpc.getSlot({ commitment: 'processed' }).send();
      await new Promise((resolve) => setTimeout(resolve, 80));
      expect(await timedRpc.getSlot({ commitment: 'processed' }).send()).toBe(paused);
    } finally {
      await timed.close();
    }
  });

  it('airdrops, and shows the balance at processed at once and at finalized after the lag', async () => {
    const someone = (await generateKeyPairSigner()).address;
    await node.airdrop(someone, 2_000_000_000n);
    expect((await rpc.getBalance(someone, { commitment: 'processed' }).send()).value).toBe(lamports(2_000_000_000n));
    expect((await rpc.getBalance(someone, { commitment: 'finalized' }).send()).value).toBe(lamports(0n));
    expect((await rpc.getAccountInfo(someone, { commitment: 'finalized', encoding: 'base64' }).send()).value).toBeNull();
    node.advance(FINALIZED_LAG);
    expect((await rpc.getBalance(someone, { commitment: 'finalized' }).send()).value).toBe(lamports(2_000_000_000n));
    const account = await rpc.getAccountInfo(someone, { commitment: 'finalized', encoding: 'base64' }).send();
    expect(account.value).toMatchObject({ lamports: 2_000_000_000n, owner: '11111111111111111111111111111111', executable: false, space: 0n, data: ['', 'base64'] });
  });

  it('answers invalid params with -32602', async () => {
    const answer = await post('getBalance', ['not-an-address']);
    expect(answer).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32602 } });
    await expect(rpc.getBalance(address('11111111111111111111111111111111'), { commitment: 'processed' }).send()).resolves.toBeDefined();
    const error = await rpc.getTokenAccountBalance(payer.address).send().catch((caught: unknown) => caught);
    expect(isSolanaError(error, SOLANA_ERROR__JSON_RPC__INVALID_PARAMS)).toBe(true);
  });
});

describe('local Solana node: the command line', () => {
  it('prints one JSON line with the RPC URL and funded accounts whose keys sign for their addresses', async () => {
    const child = spawn(process.execPath, [path.join(root, 'node_modules/vite-node/vite-node.mjs'), 'devnets/solana-node/main.ts', '--port', '0', '--slot-ms', '50', '--confirmed-lag', '1', '--finalized-lag', '3'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
      const started = JSON.parse(line) as { rpc_url: string; accounts: { address: string; secret_key: string }[] };
      expect(started.accounts).toHaveLength(3);
      const signer = await createKeyPairSignerFromBytes(Uint8Array.from(Buffer.from(started.accounts[0]!.secret_key, 'base64')));
      expect(signer.address).toBe(started.accounts[0]!.address);
      const cliRpc = createSolanaRpc(started.rpc_url);
      expect((await cliRpc.getBalance(signer.address, { commitment: 'processed' }).send()).value).toBe(lamports(1_000_000_000_000n));
      expect(await cliRpc.getSlot({ commitment: 'finalized' }).send()).toBeGreaterThan(0n);
    } finally {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  });
});

describe('local Solana node: SPL Token transfers through @solana/kit', () => {
  it('creates a 6-decimal mint and token accounts, moves tokens with TransferChecked, and indexes the signature', async () => {
    const scene = await tokenScene(TOKEN_PROGRAM_ADDRESS);
    const signature = await scene.transfer(250_500_000n);

    const balance = await rpc.getTokenAccountBalance(scene.destination, { commitment: 'processed' }).send();
    expect(balance.value).toEqual({ amount: '250500000', decimals: 6, uiAmount: 250.5, uiAmountString: '250.5' });

    node.advance(CONFIRMED_LAG);
    const signatures = await rpc.getSignaturesForAddress(scene.destination, { commitment: 'confirmed' }).send();
    expect(signatures[0]).toMatchObject({ signature, err: null, memo: null, confirmationStatus: 'confirmed' });
    expect(signatures.map((entry) => entry.signature)).toHaveLength(2); // its creation, then the transfer
    expect(signatures[0]!.slot).toBeGreaterThanOrEqual(signatures[1]!.slot);
    expect(await rpc.getSignaturesForAddress(scene.destination, { commitment: 'confirmed', limit: 1 }).send()).toHaveLength(1);
    const older = await rpc.getSignaturesForAddress(scene.destination, { commitment: 'confirmed', before: signature }).send();
    expect(older.map((entry) => entry.signature)).toEqual([signatures[1]!.signature]);
    expect(await rpc.getSignaturesForAddress(scene.destination, { commitment: 'confirmed', until: signatures[1]!.signature }).send()).toHaveLength(1);
    // Not at finalized yet.
    expect(await rpc.getSignaturesForAddress(scene.destination, { commitment: 'finalized' }).send()).toEqual([]);

    const json = await rpc.getTransaction(signature, { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 }).send();
    expect(json).not.toBeNull();
    expect(json!.version).toBe(0);
    expect(json!.meta!.err).toBeNull();
    expect(json!.meta!.fee).toBe(lamports(5000n));
    expect(json!.meta!.logMessages).toContain(`Program ${TOKEN_PROGRAM_ADDRESS} success`);
    expect(json!.meta!.computeUnitsConsumed).toBeGreaterThan(0n);
    const keys = json!.transaction.message.accountKeys;
    const destinationIndex = keys.indexOf(scene.destination);
    const sourceIndex = keys.indexOf(scene.source);
    expect(json!.transaction.signatures[0]).toBe(signature);
    expect(json!.meta!.preTokenBalances).toContainEqual({
      accountIndex: destinationIndex,
      mint: scene.mint,
      owner: scene.receiver,
      programId: TOKEN_PROGRAM_ADDRESS,
      uiTokenAmount: { amount: '0', decimals: 6, uiAmount: 0, uiAmountString: '0' },
    });
    expect(json!.meta!.postTokenBalances).toContainEqual({
      accountIndex: destinationIndex,
      mint: scene.mint,
      owner: scene.receiver,
      programId: TOKEN_PROGRAM_ADDRESS,
      uiTokenAmount: { amount: '250500000', decimals: 6, uiAmount: 250.5, uiAmountString: '250.5' },
    });
    expect(json!.meta!.postTokenBalances).toContainEqual(expect.objectContaining({ accountIndex: sourceIndex, uiTokenAmount: expect.objectContaining({ amount: '749500000' }) }));
    const payerIndex = keys.indexOf(payer.address);
    expect(json!.meta!.preBalances[payerIndex]! - json!.meta!.postBalances[payerIndex]!).toBe(5000n);

    const parsed = await rpc.getTransaction(signature, { commitment: 'confirmed', encoding: 'jsonParsed', maxSupportedTransactionVersion: 0 }).send();
    expect(parsed!.meta!.postTokenBalances).toEqual(json!.meta!.postTokenBalances);
    expect(parsed!.transaction.message.accountKeys).toContainEqual({ pubkey: payer.address, signer: true, source: 'transaction', writable: true });
    expect(parsed!.transaction.message.instructions).toEqual([
      {
        program: 'spl-token',
        programId: TOKEN_PROGRAM_ADDRESS,
        parsed: {
          type: 'transferChecked',
          info: {
            source: scene.source,
            mint: scene.mint,
            destination: scene.destination,
            authority: payer.address,
            // kit turns every number of a parsed instruction into a bigint, as it would a validator's.
            tokenAmount: { amount: '250500000', decimals: 6n, uiAmount: 250.5, uiAmountString: '250.5' },
          },
        },
        stackHeight: null,
      },
    ]);

    const raw = await post('getTransaction', [signature, { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 }]);
    expect(raw).toMatchObject({ result: { slot: expect.any(Number), blockTime: expect.any(Number), meta: { status: { Ok: null }, rewards: [] } } });
    const unversioned = await post('getTransaction', [signature, { commitment: 'confirmed', encoding: 'json' }]);
    expect(unversioned).toMatchObject({ error: { code: -32015 } });

    const account = await rpc.getAccountInfo(scene.destination, { commitment: 'processed', encoding: 'jsonParsed' }).send();
    expect(account.value!.data).toMatchObject({
      program: 'spl-token',
      parsed: { type: 'account', info: { mint: scene.mint, owner: scene.receiver, state: 'initialized', isNative: false, tokenAmount: { amount: '250500000', decimals: 6 } } },
    });
    const mint = await rpc.getAccountInfo(scene.mint, { commitment: 'processed', encoding: 'jsonParsed' }).send();
    expect(mint.value!.data).toMatchObject({ program: 'spl-token', parsed: { type: 'mint', info: { decimals: 6, supply: '1000000000', mintAuthority: payer.address } } });
    const multiple = await rpc.getMultipleAccounts([scene.source, scene.destination, (await generateKeyPairSigner()).address], { commitment: 'processed', encoding: 'base64' }).send();
    expect(multiple.value.map((one) => one?.space ?? null)).toEqual([165n, 165n, null]);
  });

  it('moves a signature status from processed to confirmed to finalized as slots pass', async () => {
    const signature = await node.airdrop((await generateKeyPairSigner()).address, 1_000_000n);
    const statusOf = async () => (await rpc.getSignatureStatuses([signature]).send()).value[0];
    const landed = await statusOf();
    expect(landed).toMatchObject({ confirmationStatus: 'processed', confirmations: 0n, err: null });
    node.advance(CONFIRMED_LAG);
    expect(await statusOf()).toMatchObject({ confirmationStatus: 'confirmed', confirmations: BigInt(CONFIRMED_LAG), slot: landed!.slot });
    node.advance(FINALIZED_LAG - CONFIRMED_LAG);
    expect(await statusOf()).toMatchObject({ confirmationStatus: 'finalized', confirmations: null, slot: landed!.slot });
    const [missing] = (await rpc.getSignatureStatuses(['1111111111111111111111111111111111111111111111111111111111111111' as Signature]).send()).value;
    expect(missing).toBeNull();
  });

  it('refuses a transaction whose blockhash expired (BlockhashNotFound), and drops it when preflight is skipped', async () => {
    const transaction = await signed([getTransferSolInstruction({ source: payer, destination: (await generateKeyPairSigner()).address, amount: lamports(1_000_000n) })]);
    const lifetime = transaction.lifetimeConstraint;
    if (!('blockhash' in lifetime)) throw new Error('expected a blockhash lifetime');
    const { blockhash } = lifetime;
    node.advance(BLOCKHASH_VALIDITY + 1);
    expect((await rpc.isBlockhashValid(blockhash, { commitment: 'processed' }).send()).value).toBe(false);

    const error = await rpc.sendTransaction(getBase64EncodedWireTransaction(transaction), { encoding: 'base64' }).send().catch((caught: unknown) => caught);
    expect(isSolanaError(error, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE)).toBe(true);
    expect(isSolanaError((error as Error).cause, SOLANA_ERROR__TRANSACTION_ERROR__BLOCKHASH_NOT_FOUND)).toBe(true);
    const raw = await post('sendTransaction', [getBase64EncodedWireTransaction(transaction), { encoding: 'base64' }]);
    expect(raw).toMatchObject({ error: { code: -32002, message: 'Transaction simulation failed: Blockhash not found', data: { err: 'BlockhashNotFound', logs: [] } } });

    const signature = await rpc.sendTransaction(getBase64EncodedWireTransaction(transaction), { encoding: 'base64', skipPreflight: true }).send();
    expect(signature).toBe(getSignatureFromTransaction(transaction));
    expect((await rpc.getSignatureStatuses([signature]).send()).value[0]).toBeNull();
  });

  it('refuses a failing transaction at preflight with the simulation in data, and lands it with its error when preflight is skipped', async () => {
    const poor = await generateKeyPairSigner();
    await node.airdrop(poor.address, 1_000_000n);
    const overdraw = [getTransferSolInstruction({ source: poor, destination: payer.address, amount: lamports(10_000_000n) })];
    const transaction = await signed(overdraw, { feePayer: poor });
    const raw = await post('sendTransaction', [getBase64EncodedWireTransaction(transaction), { encoding: 'base64' }]);
    expect(raw).toMatchObject({ error: { code: -32002, data: { err: { InstructionError: [0, { Custom: 1 }] }, logs: expect.any(Array) } } });

    const signature = await rpc.sendTransaction(getBase64EncodedWireTransaction(transaction), { encoding: 'base64', skipPreflight: true }).send();
    const [status] = (await rpc.getSignatureStatuses([signature]).send()).value;
    expect(status).toMatchObject({ err: { InstructionError: [0n, { Custom: 1n }] }, confirmationStatus: 'processed' });
    expect((await rpc.getBalance(poor.address, { commitment: 'processed' }).send()).value).toBe(lamports(1_000_000n - 5000n));
  });

  it('drops a confirmed, not finalized transfer on the rollback hook (balance restored, signature gone) and refuses a finalized one', async () => {
    const scene = await tokenScene(TOKEN_PROGRAM_ADDRESS);
    node.advance(FINALIZED_LAG);
    const settled = await scene.transfer(1_000_000n);
    node.advance(1);
    const dropped = await scene.transfer(5_000_000n);
    node.advance(1);
    const later = await node.airdrop(scene.receiver, 3_000_000n);
    node.advance(CONFIRMED_LAG);
    expect((await rpc.getSignatureStatuses([dropped]).send()).value[0]?.confirmationStatus).toBe('confirmed');
    expect((await rpc.getTokenAccountBalance(scene.destination, { commitment: 'confirmed' }).send()).value.amount).toBe('6000000');

    expect(node.drop(dropped)).toEqual({ dropped: true, signature: dropped, replayed: [later], lost: [] });
    expect((await rpc.getTokenAccountBalance(scene.destination, { commitment: 'processed' }).send()).value.amount).toBe('1000000');
    expect((await rpc.getTokenAccountBalance(scene.source, { commitment: 'processed' }).send()).value.amount).toBe('999000000');
    expect((await rpc.getSignatureStatuses([dropped]).send()).value[0]).toBeNull();
    expect(await rpc.getTransaction(dropped, { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 }).send()).toBeNull();
    const signatures = await rpc.getSignaturesForAddress(scene.destination, { commitment: 'confirmed' }).send();
    expect(signatures.map((entry) => entry.signature)).not.toContain(dropped);
    expect(signatures[0]!.signature).toBe(settled);
    // The later airdrop, re-executed, is still there.
    expect((await rpc.getBalance(scene.receiver, { commitment: 'processed' }).send()).value).toBe(lamports(3_000_000n));
    expect((await rpc.getSignatureStatuses([later]).send()).value[0]).toMatchObject({ err: null });

    node.advance(FINALIZED_LAG);
    expect((await rpc.getSignatureStatuses([settled]).send()).value[0]?.confirmationStatus).toBe('finalized');
    expect(node.drop(settled)).toEqual({ dropped: false, reason: 'finalized' });
    expect((await rpc.getTokenAccountBalance(scene.destination, { commitment: 'finalized' }).send()).value.amount).toBe('1000000');
  });

  it('loses, with the dropped transaction, a later one that only its lamports could pay for', async () => {
    const newcomer = await generateKeyPairSigner();
    const funding = await node.airdrop(newcomer.address, 10_000_000n);
    const spend = await send([getTransferSolInstruction({ source: newcomer, destination: payer.address, amount: lamports(1_000_000n) })], { feePayer: newcomer });
    expect(node.drop(funding)).toEqual({ dropped: true, signature: funding, replayed: [], lost: [spend] });
    expect((await rpc.getSignatureStatuses([funding, spend]).send()).value).toEqual([null, null]);
    expect((await rpc.getBalance(newcomer.address, { commitment: 'processed' }).send()).value).toBe(lamports(0n));
    expect(await rpc.getSignaturesForAddress(newcomer.address, { commitment: 'confirmed' }).send()).toEqual([]);
  });

  it('works the same for a Token-2022 mint', async () => {
    const scene = await tokenScene(TOKEN_2022_PROGRAM_ADDRESS);
    const signature = await scene.transfer(42_000_000n);
    node.advance(FINALIZED_LAG);
    expect((await rpc.getTokenAccountBalance(scene.destination, { commitment: 'finalized' }).send()).value).toEqual({ amount: '42000000', decimals: 6, uiAmount: 42, uiAmountString: '42' });
    const [entry] = await rpc.getSignaturesForAddress(scene.destination, { limit: 1 }).send();
    expect(entry).toMatchObject({ signature, confirmationStatus: 'finalized' });
    const transaction = await rpc.getTransaction(signature, { encoding: 'jsonParsed', maxSupportedTransactionVersion: 0 }).send();
    expect(transaction!.meta!.postTokenBalances).toContainEqual(
      expect.objectContaining({ mint: scene.mint, owner: scene.receiver, programId: TOKEN_2022_PROGRAM_ADDRESS, uiTokenAmount: expect.objectContaining({ amount: '42000000' }) }),
    );
    const account = await rpc.getAccountInfo(scene.destination, { encoding: 'jsonParsed' }).send();
    expect(account.value!.data).toMatchObject({ program: 'spl-token-2022', parsed: { type: 'account' } });
  });

  it('mints with the node helpers (createMint, mintTo) for tests that need tokens without a mint authority', async () => {
    const { mint } = await node.createMint({ decimals: 6, tokenProgram: TOKEN_2022_PROGRAM_ADDRESS });
    const owner = (await generateKeyPairSigner()).address;
    const { tokenAccount, signature } = await node.mintTo({ mint, owner, amount: 7_500_000n });
    expect(tokenAccount).toBe(await tokenAccountOf(owner, mint, TOKEN_2022_PROGRAM_ADDRESS));
    expect((await rpc.getTokenAccountBalance(tokenAccount, { commitment: 'processed' }).send()).value.uiAmountString).toBe('7.5');
    node.advance(CONFIRMED_LAG);
    expect((await rpc.getSignaturesForAddress(tokenAccount, { commitment: 'confirmed' }).send())[0]?.signature).toBe(signature);
  });
});
