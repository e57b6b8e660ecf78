import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../platform/clock.js';
import type { SecretBox } from '../platform/crypto.js';
import type { Db } from '../platform/database/database.js';
import type { Job } from '../platform/jobs.js';
import type { AccessParser } from './access-section.js';
import type { AddressCodec } from './address-codec.js';
import type { FamilyRules } from './family-rules.js';
import type { ChainAdapter } from './chain-adapter.js';
import type { ChainAccess, ChainFamily, ChainNetwork } from './chain-network.js';
import type { SweepLedger, TransferLedger } from './ledger-ports.js';

export type DriverLog = Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;

/** What a family driver is started with: the deployment's services and the ledger's ports, nothing more. */
export interface FamilyDriverDeps {
  readonly db: Db;
  readonly secrets: SecretBox;
  readonly clock: Clock;
  readonly log: DriverLog;
  /**
   * The catalogue's networks of the driver's family, enabled or not; the
   * driver runs those that are enabled and have access (`chain`).
   */
  readonly networks: readonly ChainNetwork[];
  readonly transferLedger: TransferLedger;
  readonly sweepLedger: SweepLedger;
}

/**
 * What the operator sees of one live network, the same shape for every
 * family, so that the admin API shows it without knowing the family.
 */
export interface LiveNetworkState {
  readonly chainId: number;
  readonly name: string;
  /** The relayer (the key that pays network fees), in the family's display form. */
  readonly relayerAddress: string;
  /** The relayer's native coin in the family's smallest unit (wei, sun, lamports); null when the node did not answer. */
  readonly relayerBalance: bigint | null;
  /** Tron only: energy the relayer can use now without burning TRX; null when the node did not answer. */
  readonly relayerEnergy?: bigint | null;
  /** EVM and Tron: the head block; Solana: the slot at `confirmed`. */
  readonly headBlock: bigint | null;
  /** EVM and Tron: the whole-chain scan's last block; Solana: the finalized slot before the watcher's last complete pass. */
  readonly lastScannedBlock: bigint | null;
  readonly confirmations: number;
}

/** A started family: its adapters by chain id, its workers, and its status for the operator. */
export interface RunningFamily {
  readonly adapters: ReadonlyMap<number, ChainAdapter>;
  readonly jobs: readonly Job[];
  status(): Promise<LiveNetworkState[]>;
}

/**
 * One blockchain family behind one interface (ARCHITECTURE "Chains"): code
 * outside `chains/` asks the driver registered for a network's family and
 * never switches on the family. The pure parts (codec, rules) are also
 * reachable by family alone (`addressCodec`, `familyRules` in families.ts),
 * for families that have no running driver yet: their recipients and
 * catalogue entries are checked all the same.
 */
export interface ChainFamilyDriver<Access extends ChainAccess = ChainAccess> {
  readonly family: Access['family'];
  /** The family's addresses: parse, normalise, compare, display, links, payment URI. */
  readonly codec: AddressCodec;
  /** What generic code would otherwise ask with `if (family === …)`. */
  readonly rules: FamilyRules;
  /** The family's catalogue access section, parsed and checked at start. */
  readonly access: AccessParser<Access>;
  /**
   * Makes the family's networks live: relayers, adapters, watchers. Talks to
   * no node here, so that a node down at start delays that network's work,
   * never the start of Ivory.
   */
  start(deps: FamilyDriverDeps): Promise<RunningFamily>;
}

/** The access parser of every family, whether or not it has a driver yet: a catalogue entry is checked either way. */
export type FamilyAccessParsers = { readonly [Family in ChainFamily]: AccessParser<Extract<ChainAccess, { family: Family }>> };
