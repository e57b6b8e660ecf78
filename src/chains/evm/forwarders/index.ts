/** Live issuances' forwarders on an EVM network: CREATE2 addresses and their committed terms. */
export { allocateForwarder } from './allocate-forwarder.js';
export { forwarderFor, ForwarderTermsError, type Forwarder, type ForwarderNetwork, type PredictForwarder } from './forwarder-terms.js';
export { findForwarder, isForwarderAddress } from './forwarders.repository.js';
