import { it } from 'vitest';
import { createTestApp } from '../support/app.js';
import { createOwnerWithShop } from '../support/factories.js';
import { openInvoice, usdc } from './issuances-helpers.js';
it('bench', async () => {
  const app = await createTestApp();
  const owner = await createOwnerWithShop(app.context.db);
  const inv = await openInvoice(app, owner.key.token, owner.shop.id, usdc(10));
  const run = async (url: string) => { const n = 2000; const t = performance.now(); for (let i = 0; i < n; i++) await app.request({ method: 'GET', url }); return (performance.now() - t) / n; };
  await run('/api/v1/networks'); await run(`/api/v1/checkout/${inv.public_id}`);
  console.warn('networks ms', await run('/api/v1/networks'));
  console.warn('checkout ms', await run(`/api/v1/checkout/${inv.public_id}`));
  console.warn('page ms', await run(`/pay/${inv.public_id}`));
  await app.close();
}, 120000);
