import type { AddressCodec } from './address-codec.js';
import type { ChainFamily } from './chain-network.js';
import type { FamilyRules } from './family-rules.js';
import type { Executor } from '../platform/database/database.js';
import { evmAddressCodec } from './evm/evm-address-codec.js';
import { evmFamilyRules } from './evm/evm-family-rules.js';
import { solanaAddressCodec } from './solana/solana-address-codec.js';
import { solanaFamilyRules } from './solana/solana-family-rules.js';
import { isSolanaServiceAddress } from './solana/solana-service-addresses.js';
import { tronAddressCodec } from './tron/tron-address-codec.js';
import { isOwnTronAddress } from './tron/tron-service-addresses.js';
import { tronFamilyRules } from './tron/tron-family-rules.js';

/** Every family, in the order lists and messages show them. */
export const CHAIN_FAMILIES: readonly ChainFamily[] = ['evm', 'tron', 'solana'];

const CODECS: Readonly<Record<ChainFamily, AddressCodec>> = { evm: evmAddressCodec, tron: tronAddressCodec, solana: solanaAddressCodec };
const RULES: Readonly<Record<ChainFamily, FamilyRules>> = { evm: evmFamilyRules, tron: tronFamilyRules, solana: solanaFamilyRules };

export function isChainFamily(text: string): text is ChainFamily {
  return (CHAIN_FAMILIES as readonly string[]).includes(text);
}

export function addressCodec(family: ChainFamily): AddressCodec {
  return CODECS[family];
}

export function familyRules(family: ChainFamily): FamilyRules {
  return RULES[family];
}

/**
 * Addresses a family's running side owns, which must never be a payout
 * recipient: Solana's relayers, deposit keys and their token accounts; Tron's
 * relayers and forwarders (payment addresses). EVM recipients are checked
 * against the contracts by their own rules.
 */
const SERVICE_ADDRESSES: Readonly<Record<ChainFamily, (executor: Executor, address: string) => Promise<boolean>>> = {
  evm: async () => false,
  tron: isOwnTronAddress,
  solana: isSolanaServiceAddress,
};

export function isFamilyServiceAddress(executor: Executor, family: ChainFamily, address: string): Promise<boolean> {
  return SERVICE_ADDRESSES[family](executor, address);
}
