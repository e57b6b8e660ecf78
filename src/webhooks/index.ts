/** What other modules may use of webhooks: endpoints and the delivery log, served as routes. The engine is `webhook-delivery/`. */
export { webhooksRoutes } from './webhooks.routes.js';
