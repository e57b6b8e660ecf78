import os from 'node:os';
import { TronWeb } from 'tronweb';
import { describe, expect, it } from 'vitest';
import { alive, exited, listening, until } from '../support/child-processes.js';
import { devnetHarness, runDevnetPay } from '../support/devnet-harness.js';
import { freePort } from '../support/local-server.js';

// Issue 23 Deliver 8: `npm run devnet -- --family tron` starts the local Tron node with Ivory on
// it and prints how to pay an invoice; Ctrl-C stops everything. Runs `node scripts/devnet.mjs
// --family tron` as `npm run devnet` does after its builds (test/global-setup.ts built dist/;
// dist-devnets/ is built here), with fast blocks, follows what it prints, then sends SIGINT and
// checks that the node and Ivory are gone.

const TRON_ADDRESS = /T[1-9A-HJ-NP-Za-km-z]{33}/.source;

interface Issuance {
  readonly id: string;
  readonly status: string;
  readonly address: string | null;
  readonly received: string;
  readonly payout_tx_hash: string | null;
}

describe('npm run devnet -- --family tron', () => {
  const devnet = devnetHarness('devnet-tron', { buildDevnets: true });
  const { dataDir } = devnet;

  it('starts the Tron node and Ivory, takes a USDT invoice paid with devnet-pay.mjs --family tron to settled, and stops everything on SIGINT', async () => {
    const ivoryPort = await freePort();
    const tronPort = await freePort();
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: os.tmpdir(),
      PORT: String(ivoryPort),
      DEVNET_TRON_PORT: String(tronPort),
      DEVNET_DATA_DIR: dataDir,
    };

    // 1. "Ivory Tron devnet is up", with the API key, the shop, the token, the recipient and both children's pids.
    // Up in about 15 s on an idle machine; 75 s leaves room for the whole suite running beside it.
    const { child, output } = await devnet.start(['--family', 'tron', '--block-ms', '300'], env, 'Ivory Tron devnet is up', 75_000);
    const apiKey = /API key\s+(ivk_\S+)/.exec(output)?.[1];
    const shopId = /\(shop ([0-9a-f-]{36})\)/.exec(output)?.[1];
    const token = new RegExp(`USDT (${TRON_ADDRESS})`).exec(output)?.[1];
    const recipient = new RegExp(`recipient (${TRON_ADDRESS})`).exec(output)?.[1];
    const chainId = Number(/id (\d+), 300 ms blocks/.exec(output)?.[1]);
    const ivoryPid = Number(/Ivory pid (\d+)/.exec(output)?.[1]);
    const nodePid = Number(/Tron node pid (\d+)/.exec(output)?.[1]);
    expect({ apiKey, shopId, token, recipient }, output).toEqual({ apiKey: expect.any(String), shopId: expect.any(String), token: expect.any(String), recipient: expect.any(String) });
    devnet.track(ivoryPid, nodePid);
    expect(alive(ivoryPid) && alive(nodePid)).toBe(true);
    expect(output).toContain(`DEVNET_DATA_DIR=${dataDir} node scripts/devnet-pay.mjs --family tron <address> 25`);

    // 2. The invoice, created exactly as printed: a T… address at once.
    const api = `http://localhost:${ivoryPort}/api/v1/shops/${shopId}`;
    const headers = { authorization: `Bearer ${apiKey}` };
    const created = await fetch(`${api}/invoices`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', 'idempotency-key': `devnet-tron-test-${Date.now()}` },
      body: JSON.stringify({ chain_id: chainId, token, amount: '25000000' }),
    });
    expect(created.status, await created.clone().text()).toBe(202);
    const invoice = (await created.json()) as Issuance;
    const read = async (): Promise<Issuance> => (await (await fetch(`${api}/issuances/${invoice.id}`, { headers })).json()) as Issuance;
    const open = await until('invoice open with an address', async () => {
      const current = await read();
      return current.status === 'open' && current.address !== null ? current : undefined;
    }, 10_000);
    expect(open.address).toMatch(new RegExp(`^${TRON_ADDRESS}$`));

    // 3. Paid from the node's funded payer account with the printed command.
    const { code: payCode, output: payOutput } = await runDevnetPay(['--family', 'tron', open.address ?? '', '25'], env);
    expect(payCode, payOutput).toBe(0);
    expect(payOutput).toContain(`paid 25 USDT to ${open.address}`);

    // 4. Credited at the solidified block, swept, settled when the sweep is solidified.
    const settled = await until('invoice settled', async () => {
      const current = await read();
      return current.status === 'settled' ? current : undefined;
    }, 30_000);
    expect(settled.received).toBe('25000000');
    expect(settled.payout_tx_hash).toMatch(/^[0-9a-f]{64}$/);
    // LEDGER "Invoices": the recipient gets amount − fee (50 bps of 25 USDT = 0.125 USDT), read on chain.
    const tronWeb = new TronWeb({ fullHost: `http://127.0.0.1:${tronPort}` });
    const balance = (await tronWeb.transactionBuilder.triggerConstantContract(token ?? '', 'balanceOf(address)', {}, [{ type: 'address', value: recipient ?? '' }], recipient)) as {
      constant_result?: string[];
    };
    expect(BigInt(`0x${balance.constant_result?.[0] ?? '0'}`)).toBe(24_875_000n);

    // 5. Ctrl-C: devnet stops both children, waits for them and exits 0.
    child.kill('SIGINT');
    expect(await exited(child)).toEqual({ code: 0, signal: null });
    expect(alive(ivoryPid)).toBe(false);
    expect(alive(nodePid)).toBe(false);
    expect(await listening(tronPort)).toBe(false);
    expect(await listening(ivoryPort)).toBe(false);
  }, 150_000);
});
