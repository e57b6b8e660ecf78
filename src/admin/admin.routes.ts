import { Type } from 'typebox';
import type { IvoryServer } from '../platform/http/server.js';
import { requireOperator } from './admin-auth.js';
import type { ListLiveNetworks } from './network-status.js';

/** Mounted at `{root_url}/admin/v1`. */
export const ADMIN_PREFIX = '/admin/v1';

const NetworkStatusSchema = Type.Object({
  chain_id: Type.Integer(),
  name: Type.String(),
  relayer_address: Type.String(),
  relayer_balance: Type.Union([Type.String(), Type.Null()]),
  payouts_waiting_gas: Type.Integer(),
  head_block: Type.Union([Type.Integer(), Type.Null()]),
  last_scanned_block: Type.Union([Type.Integer(), Type.Null()]),
  confirmations: Type.Integer(),
});

export interface AdminRoutesDeps {
  readonly adminToken: string | undefined;
  readonly listLiveNetworks: ListLiveNetworks;
}

/** The operator API. Authentication is its own (the operator token), not a user session or key. */
export async function adminRoutes(admin: IvoryServer, deps: AdminRoutesDeps): Promise<void> {
  admin.addHook('onRequest', async (request) => requireOperator(deps.adminToken, request));
  admin.get(
    '/networks',
    { config: { auth: 'none' }, schema: { hide: true, response: { 200: Type.Array(NetworkStatusSchema) } } },
    async () => deps.listLiveNetworks(),
  );
}
