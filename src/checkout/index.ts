/** What other modules may use of checkout: its routes (the API view and the hosted page). */
export { checkoutRoutes } from './checkout.routes.js';
export { checkoutPageRoutes } from './checkout-page.routes.js';
export type { Checkout, CheckoutGroup, CheckoutOption } from './checkout.js';
