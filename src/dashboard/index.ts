/** What other modules may use of the dashboard: its routes on the server root, and where they live. */
export { dashboardRoutes, DASHBOARD_PATH } from './dashboard.routes.js';
