/**
 * Live Tron networks (issue 23): Ivory's forwarders on the TVM, TRC-20
 * transfers read from a java-tron node, sweeps paid in energy, behind the
 * family driver `tronDriver`; the CLI deploys the factories.
 */
export { tronDriver } from './tron-driver.js';
export { importTronRelayerKey } from './tron-relayer.js';
export { deployTronContracts, type DeployTronContractsOptions, type DeployedTronContracts } from './contracts/deploy.js';
export { isOwnTronAddress } from './tron-service-addresses.js';
