import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { privateKeyToAccount, generatePrivateKey } from 'viem/accounts';
import { authed } from '../support/app.js';
import { createLiveInvoice, liveShop, startChainHarness, type ChainHarness } from '../support/evm-chain.js';

// Issue 20 item 3, decision 0023: a network the catalogue file gives a node (rpc_url) and both
// factories is `live: true` on GET /networks and GET /merchants/{id}/networks, on a real anvil
// node through the real app, and a live invoice on it is accepted and gets its address.

describe('a live EVM network on anvil', () => {
  let chain: ChainHarness;
  beforeAll(async () => {
    chain = await startChainHarness({ confirmations: 0 });
  }, 60_000);
  afterAll(async () => {
    await chain?.close();
  });

  it('is live: true on both lists, and a live invoice on it is accepted', async () => {
    const shop = await liveShop(chain.app, privateKeyToAccount(generatePrivateKey()).address);
    const listed = (await chain.app.request({ method: 'GET', url: '/api/v1/networks' })).json<{ chain_id: number; live: boolean }[]>();
    expect(listed.map(({ chain_id, live }) => ({ chain_id, live }))).toEqual([{ chain_id: chain.anvil.chainId, live: true }]);
    const merchant = await chain.app.request({ method: 'GET', url: `/api/v1/merchants/${shop.merchantId}/networks`, headers: authed(shop.session.token) });
    expect(merchant.json()).toEqual(listed);

    const invoice = await createLiveInvoice(chain, shop, 25_000_000n);
    expect(invoice.status).toBe('open');
    expect(invoice.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
  });
});
