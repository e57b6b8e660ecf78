import type { IvoryServer } from './server.js';

/** `GET /healthz`, outside the versioned path (SPEC "Public"). */
export async function healthRoutes(app: IvoryServer): Promise<void> {
  app.get('/healthz', { config: { auth: 'none' }, schema: { hide: true } }, async () => ({ status: 'ok' }));
}
