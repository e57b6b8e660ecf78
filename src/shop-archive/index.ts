/** Archiving a shop (decision 0038): served as a route only. */
export { shopArchiveRoutes } from './shop-archive.routes.js';
