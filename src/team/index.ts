/** What other modules may use of team: its routes (invitations, the team list, removal). */
export { teamRoutes } from './team.routes.js';
