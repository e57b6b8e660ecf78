// A local Solana node for tests and the devnet (issue 24 item 8): Solana JSON-RPC 2.0 over
// litesvm, which runs the System, SPL Token, Token-2022 and associated token account programs.
// What it serves and how it differs from a validator: devnets/solana-node/README.md.

import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ed25519 } from '@noble/curves/ed25519';
import { getCreateAccountInstruction, getTransferSolInstruction } from '@solana-program/system';
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getInitializeMint2Instruction,
  getMintSize,
  getMintToCheckedInstruction,
} from '@solana-program/token';
import {
  appendTransactionMessageInstructions,
  blockhash as toBlockhash,
  createKeyPairSignerFromPrivateKeyBytes,
  createTransactionMessage,
  generateKeyPairSigner,
  getTransactionEncoder,
  lamports as toLamports,
  pipe,
  signature as toSignature,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Address,
  type Instruction,
  type KeyPairSigner,
  type Signature,
} from '@solana/kit';
import { Chain, type Commitment, type DropOutcome } from './chain.js';
import { SolanaRpc } from './rpc.js';
import { TOKEN_2022_PROGRAM, TOKEN_PROGRAM, readMint } from './token-layout.js';

export { TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from './token-layout.js';
export type { Commitment, DropOutcome } from './chain.js';

export interface SolanaNodeOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  host?: string;
  /** One slot every `slotMs` milliseconds (400 on mainnet). */
  slotMs?: number;
  /** Slots between processed and confirmed (default 2). */
  confirmedLag?: number;
  /** Slots between processed and finalized (default 32, as on mainnet). */
  finalizedLag?: number;
  /** Blocks a blockhash stays valid (default 150, as on mainnet). */
  blockhashValidity?: number;
  /** Accounts funded at genesis, their keys handed out (default 3). */
  fundedAccounts?: number;
  /** Lamports of each funded account (default 1,000 SOL). */
  fundedLamports?: bigint;
  /** false: slots advance only through `advance()` until `resume()`. */
  autoAdvance?: boolean;
}

export interface FundedAccount {
  address: Address;
  /** 64 bytes, the ed25519 seed then the public key, as Solana keypair files and kit's `createKeyPairSignerFromBytes` take it. */
  secretKey: Uint8Array;
}

export interface SolanaNode {
  readonly url: string;
  readonly accounts: readonly FundedAccount[];
  /** The slot at `commitment` (default processed). Block height equals slot here. */
  slot(commitment?: Commitment): bigint;
  /** A System transfer from the node's faucet; answers its signature (landed at the current slot). */
  airdrop(address: Address, lamports: bigint): Promise<Signature>;
  /** A new mint whose mint authority is the node's faucet. */
  createMint(options: { decimals: number; tokenProgram?: Address }): Promise<{ mint: Address; signature: Signature }>;
  /** Mints to `owner`'s associated token account, creating it when missing. */
  mintTo(options: { mint: Address; owner: Address; amount: bigint }): Promise<{ tokenAccount: Address; signature: Signature }>;
  /** The rollback hook: drops a transaction not yet finalized and re-executes the later ones; refuses a finalized one. */
  drop(signature: string): DropOutcome;
  pause(): void;
  resume(): void;
  advance(slots?: number): void;
  close(): Promise<void>;
}

async function newKeyPair(): Promise<{ signer: KeyPairSigner; secretKey: Uint8Array }> {
  const seed = randomBytes(32);
  const signer = await createKeyPairSignerFromPrivateKeyBytes(seed);
  const secretKey = new Uint8Array(64);
  secretKey.set(seed, 0);
  secretKey.set(ed25519.getPublicKey(seed), 32);
  return { signer, secretKey };
}

export async function startSolanaNode(options: SolanaNodeOptions = {}): Promise<SolanaNode> {
  const settings = {
    slotMs: options.slotMs ?? 400,
    confirmedLag: options.confirmedLag ?? 2,
    finalizedLag: options.finalizedLag ?? 32,
    blockhashValidity: options.blockhashValidity ?? 150,
  };
  // A finalized blockhash must still be valid, or a client reading at `finalized` could never send.
  if (!(settings.confirmedLag <= settings.finalizedLag && settings.finalizedLag < settings.blockhashValidity)) {
    throw new RangeError(`need confirmedLag ≤ finalizedLag < blockhashValidity, got ${settings.confirmedLag}, ${settings.finalizedLag}, ${settings.blockhashValidity}`);
  }
  const chain = new Chain(settings);
  const faucet = (await newKeyPair()).signer;
  chain.fundAtGenesis(faucet.address, 1_000_000_000n * 1_000_000_000n);
  const accounts: FundedAccount[] = [];
  for (let index = 0; index < (options.fundedAccounts ?? 3); index += 1) {
    const { signer, secretKey } = await newKeyPair();
    chain.fundAtGenesis(signer.address, options.fundedLamports ?? 1_000n * 1_000_000_000n);
    accounts.push({ address: signer.address, secretKey });
  }

  const rpc = new SolanaRpc(chain);
  const server: Server = createServer((request, response) => {
    if (request.method !== 'POST') {
      response.writeHead(405, { 'content-type': 'text/plain' }).end('Used HTTP Method is not allowed. POST or OPTIONS is required');
      return;
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'application/json' }).end(rpc.handle(Buffer.concat(chunks).toString('utf8')));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve);
  });
  const { address: host, port } = server.address() as AddressInfo;
  if (options.autoAdvance !== false) chain.start();

  /** Signs with the faucet as fee payer and lands at the current slot, or throws. */
  async function land(instructions: Instruction[]): Promise<Signature> {
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (draft) => setTransactionMessageFeePayerSigner(faucet, draft),
      (draft) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: toBlockhash(chain.blockhashOf(chain.slot)), lastValidBlockHeight: chain.lastValidBlockHeight(chain.slot) }, draft),
      (draft) => appendTransactionMessageInstructions(instructions, draft),
    );
    const wire = Uint8Array.from(getTransactionEncoder().encode(await signTransactionMessageWithSigners(message)));
    const outcome = chain.send(chain.decode(wire), wire, { preflight: true });
    if (outcome.kind !== 'landed') throw new Error(`the node's own transaction failed: ${JSON.stringify(outcome.error)}`);
    return toSignature(outcome.transaction.signature);
  }

  return {
    url: `http://${host}:${port}`,
    accounts,
    slot: (commitment = 'processed') => chain.commitmentSlot(commitment),
    airdrop: (address, lamports) => land([getTransferSolInstruction({ source: faucet, destination: address, amount: toLamports(lamports) })]),
    async createMint({ decimals, tokenProgram = TOKEN_PROGRAM as Address }) {
      const mint = await generateKeyPairSigner();
      const space = getMintSize();
      const signature = await land([
        getCreateAccountInstruction({ payer: faucet, newAccount: mint, lamports: toLamports(chain.minimumBalanceForRentExemption(BigInt(space))), space, programAddress: tokenProgram }),
        getInitializeMint2Instruction({ mint: mint.address, decimals, mintAuthority: faucet.address }, { programAddress: tokenProgram }),
      ]);
      return { mint: mint.address, signature };
    },
    async mintTo({ mint, owner, amount }) {
      const mintAccount = chain.readAccount(mint);
      const layout = mintAccount === null ? undefined : readMint(mintAccount.owner, mintAccount.data);
      if (mintAccount === null || layout === undefined) throw new Error(`${mint} is not a mint`);
      const tokenProgram = mintAccount.owner as Address;
      if (tokenProgram !== TOKEN_PROGRAM && tokenProgram !== TOKEN_2022_PROGRAM) throw new Error(`${mint} is not a token mint`);
      const [tokenAccount] = await findAssociatedTokenPda({ owner, mint, tokenProgram });
      const signature = await land([
        getCreateAssociatedTokenIdempotentInstruction({ payer: faucet, ata: tokenAccount, owner, mint, tokenProgram }),
        getMintToCheckedInstruction({ mint, token: tokenAccount, mintAuthority: faucet, amount, decimals: layout.decimals }, { programAddress: tokenProgram }),
      ]);
      return { tokenAccount, signature };
    },
    drop: (signature) => chain.drop(signature),
    pause: () => chain.pause(),
    resume: () => chain.start(),
    advance: (slots = 1) => chain.advance(slots),
    async close() {
      chain.pause();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
