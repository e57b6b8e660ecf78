import type { components } from '../client/index.js';
import { decimalOf } from './amounts.js';
import { networkNameOf, symbolOf } from './assets.js';

type Network = components['schemas']['Network'];
type Issuance = components['schemas']['Issuance'];
type IssuanceGroup = components['schemas']['IssuanceGroup'];

/**
 * An issuance as a model reads it: decimal token amounts with the token's
 * symbol and the network's name instead of base units, chain ids and
 * addresses; everything a next step needs (id, status, address, payment URL).
 */
export function issuanceForModel(issuance: Issuance | IssuanceGroup, networks: readonly Network[]) {
  const common = {
    id: issuance.id,
    kind: issuance.kind,
    status: issuance.status,
    cancelled: issuance.cancelled_at !== null,
    paused: issuance.disabled_at !== null,
    payment_url: issuance.payment_url,
    external_id: issuance.external_id,
    expires_at: issuance.expires_at,
    created_at: issuance.created_at,
  };
  if ('group' in issuance) {
    return {
      ...common,
      group: true,
      amount: issuance.amount,
      paid_option_id: issuance.paid_issuance_id,
      options: issuance.options.map((option) => ({
        id: option.id,
        network: networkNameOf(networks, option.chain_id),
        token: symbolOf(networks, option.chain_id, option.token),
        amount: decimalOf(option.amount, option.token_decimals),
        address: option.address,
        status: option.status,
      })),
    };
  }
  return {
    ...common,
    network: networkNameOf(networks, issuance.chain_id),
    token: symbolOf(networks, issuance.chain_id, issuance.token),
    amount: decimalOf(issuance.amount, issuance.token_decimals),
    received: decimalOf(issuance.received, issuance.token_decimals),
    address: issuance.address,
    payout_tx_hash: issuance.payout_tx_hash,
  };
}

/** One line on what the issuance is waiting for, so a model knows the next step. */
export function nextStep(issuance: Issuance | IssuanceGroup): string {
  if (issuance.cancelled_at !== null) return 'It is cancelled: its page is closed (money already sent is still recorded).';
  if (issuance.status === 'registering') return 'Its address is being allocated: call get_issuance again in a few seconds, then give the payer payment_url.';
  if (issuance.status === 'open') return 'It is open: give the payer payment_url (as returned, never rebuilt); partial payments add up in received.';
  if (issuance.status === 'funded') return 'It is paid (funded); the payout to the merchant is scheduled and the invoice closes on chain next.';
  if (issuance.status === 'settled') return 'It is settled: paid and closed on chain.';
  return `Its status is ${issuance.status}.`;
}
