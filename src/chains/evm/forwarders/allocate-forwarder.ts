import type { AddressRequest } from '../../chain-adapter.js';
import type { Clock } from '../../../platform/clock.js';
import type { Db } from '../../../platform/database/database.js';
import { forwarderFor, type ForwarderNetwork, type PredictForwarder } from './forwarder-terms.js';
import { findForwarder, insertForwarderIfAbsent } from './forwarders.repository.js';

/**
 * An issuance's payment address: the CREATE2 prediction of its forwarder
 * (issue 9 "Allocation": no transaction, no RPC), stored with its terms so
 * that the sweep is later built from exactly what the address commits.
 * Idempotent per issuance: asked again, it answers the stored address, even if
 * the request changed meanwhile (the address already given out is the truth).
 */
export async function allocateForwarder(
  deps: { readonly db: Db; readonly clock: Clock; readonly network: ForwarderNetwork; readonly predict?: PredictForwarder },
  request: AddressRequest,
): Promise<string> {
  const stored = await findForwarder(deps.db, request.issuanceId);
  if (stored !== undefined) return stored.address;
  await insertForwarderIfAbsent(deps.db, forwarderFor(deps.network, request, deps.predict), deps.clock.now());
  const forwarder = await findForwarder(deps.db, request.issuanceId);
  if (forwarder === undefined) throw new Error(`forwarder of issuance ${request.issuanceId} vanished right after its insert`);
  return forwarder.address;
}
