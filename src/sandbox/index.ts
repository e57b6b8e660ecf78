/** The sandbox: simulate and reset, reaching the ledger only through `issuances/` and `payouts/` (ARCHITECTURE rule 2). */
export { sandboxRoutes } from './sandbox.routes.js';
export { SIMULATION_KINDS, type SimulationKind } from './simulate-sandbox-event.js';
