import { mcpRoutes } from './agents/index.js';
import { allocationJobs } from './allocation/index.js';
import { catalogueRoutes } from './catalogue/index.js';
import { checkoutPageRoutes, checkoutRoutes } from './checkout/index.js';
import { dashboardRoutes } from './dashboard/index.js';
import { issuanceJobs, issuancesRoutes } from './issuances/index.js';
import { keysRoutes } from './keys/index.js';
import { merchantsRoutes } from './merchants/index.js';
import { paymentsRoutes } from './payments/index.js';
import { payoutJobs } from './payouts/index.js';
import { sandboxRoutes } from './sandbox/index.js';
import { shopArchiveRoutes } from './shop-archive/index.js';
import { teamRoutes } from './team/index.js';
import { accountsRoutes, resolvePrincipal } from './accounts/index.js';
import { factorsRoutes } from './factors/index.js';
import { identityProviderRoutes } from './identity-provider/index.js';
import type { AppContext } from './app-context.js';
import type { Job } from './platform/jobs.js';
import type { PrincipalResolver } from './platform/http/principal.js';
import type { IvoryServer } from './platform/http/server.js';
import { webhookDeliveryJobs } from './webhook-delivery/index.js';
import { webhooksRoutes } from './webhooks/index.js';
import { x402Routes } from './x402/index.js';

/** What a module contributes to the app. Routes are registered under `/api/v1`. */
export interface IvoryModule {
  readonly name: string;
  readonly routes?: (api: IvoryServer, context: AppContext) => Promise<void>;
  /** Routes outside `/api/v1`, on the server root (the hosted payment page). */
  readonly rootRoutes?: (server: IvoryServer, context: AppContext) => Promise<void>;
  readonly jobs?: (context: AppContext) => Job[];
  /** Exactly one module (accounts) resolves bearer tokens. */
  readonly resolvePrincipal?: (context: AppContext) => PrincipalResolver;
}

export const modules: readonly IvoryModule[] = [
  { name: 'accounts', routes: accountsRoutes, resolvePrincipal },
  { name: 'factors', routes: factorsRoutes },
  { name: 'identity-provider', routes: identityProviderRoutes },
  { name: 'catalogue', routes: catalogueRoutes },
  { name: 'merchants', routes: merchantsRoutes },
  { name: 'shop-archive', routes: shopArchiveRoutes },
  { name: 'team', routes: teamRoutes },
  { name: 'keys', routes: keysRoutes },
  { name: 'webhooks', routes: webhooksRoutes },
  { name: 'webhook-delivery', jobs: webhookDeliveryJobs },
  { name: 'issuances', routes: issuancesRoutes, jobs: issuanceJobs },
  { name: 'allocation', jobs: allocationJobs },
  { name: 'payouts', jobs: payoutJobs },
  { name: 'sandbox', routes: sandboxRoutes },
  { name: 'payments', routes: paymentsRoutes },
  { name: 'checkout', routes: checkoutRoutes, rootRoutes: checkoutPageRoutes },
  { name: 'agents', routes: mcpRoutes },
  { name: 'x402', rootRoutes: x402Routes },
  { name: 'dashboard', rootRoutes: dashboardRoutes },
];
