import type { Browser } from 'playwright-core';
import { parseAbi } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANVIL_KEYS } from '../support/anvil.js';
import { launchChromium, openPage, screenshot, seriousViolations } from '../support/browser.js';
import { freePort } from '../support/local-server.js';
import { createLiveInvoice, fundRelayer, liveShop, mineAndSettle, startChainHarness, type ChainHarness } from '../support/evm-chain.js';

// Issue 12: "Pay with browser wallet" on a live EVM shop, through an injected EIP-1193
// provider that forwards JSON-RPC to a real anvil node; then the receipt with the
// transaction hash and the explorer link of the network record.

const PAYER = privateKeyToAccount(ANVIL_KEYS[3]);
const mintAbi = parseAbi(['function mint(address to, uint256 amount)']);

let chain: ChainHarness;
let browser: Browser;
let origin: string;

beforeAll(async () => {
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  chain = await startChainHarness({ confirmations: 2, env: { PUBLIC_URL: origin } });
  await chain.app.server.listen({ host: '127.0.0.1', port });
  await fundRelayer(chain);
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await chain?.close();
});

describe('browser wallet on a live EVM shop (issue 12)', () => {
  it('the injected wallet pays the ERC-20 transfer the page builds; the page follows to a settled receipt with an explorer link', async () => {
    const shop = await liveShop(chain.app, privateKeyToAccount(generatePrivateKey()).address);
    const amount = 25_000_000n;
    const invoice = await createLiveInvoice(chain, shop, amount);
    const client = chain.anvil.client;
    await client.waitForTransactionReceipt({
      hash: await client.writeContract({ account: PAYER, chain: chain.anvil.chain, address: chain.token, abi: mintAbi, functionName: 'mint', args: [PAYER.address, amount] }),
    });

    const watched = await openPage(browser, origin);
    const { page } = watched;
    const rpcUrl = chain.anvil.rpcUrl;
    // anvil's dev accounts are unlocked: eth_sendTransaction from PAYER is signed by the node.
    await page.exposeFunction('anvilRpc', async (body: string) => (await fetch(rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).text());
    await page.addInitScript(`window.ethereum = {
      request: async ({ method, params }) => {
        if (method === 'eth_requestAccounts' || method === 'eth_accounts') return ['${PAYER.address}'];
        if (method === 'wallet_switchEthereumChain') {
          if (params[0].chainId !== '0x${chain.anvil.chainId.toString(16)}') throw new Error('unknown chain ' + params[0].chainId);
          return null;
        }
        const answer = JSON.parse(await window.anvilRpc(JSON.stringify({ jsonrpc: '2.0', id: 1, method, params })));
        if (answer.error) throw new Error(answer.error.message);
        return answer.result;
      },
    };`);
    // The issuance view names its hosted page (SPEC "Issuance": payment_url); the harness types only what it checks.
    await page.goto((invoice as unknown as { payment_url: string }).payment_url);
    const wallet = page.locator('#wallet');
    await wallet.waitFor({ state: 'visible' });
    await wallet.click();
    await expect.poll(() => page.locator('#wallet-result').innerText(), { timeout: 30_000 }).toMatch(/^Transaction sent: 0x[0-9a-f]{64}$/);
    const sent = (await page.locator('#wallet-result').innerText()).split(' ').pop()!;

    for (let round = 0; round < 30; round += 1) {
      await mineAndSettle(chain, 1);
      if ((await page.locator('#status').getAttribute('data-phase')) === 'settled') break;
      await page.waitForTimeout(1000);
    }
    await expect.poll(() => page.locator('#status h2').innerText(), { timeout: 30_000 }).toBe('Payment complete');
    expect(await page.locator('#tx-hash').innerText()).toBe(sent);
    expect(await page.locator('#explorer').getAttribute('href')).toBe(`http://localhost/tx/${sent}`);
    expect(await page.locator('#receipt').innerText()).toContain('25 TUSD');
    expect((await seriousViolations(page)).join('\n')).toBe('');
    expect(watched.problems.join('\n')).toBe('');
    expect(watched.foreignRequests.join('\n')).toBe('');
    process.stdout.write(`payment page screenshot (test-results/): ${await screenshot(page, 'settled-live-wallet')}\n`);
    await watched.context.close();
  });
});
