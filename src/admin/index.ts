export { ADMIN_PREFIX, adminRoutes, type AdminRoutesDeps } from './admin.routes.js';
export type { ListLiveNetworks, LiveNetworkStatus } from './network-status.js';
