import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { createPublicClient, erc20Abi, getAddress, http, type Address, type Hex } from 'viem';
import { alive, exited, listening, until } from '../support/child-processes.js';
import { devnetHarness, runDevnetPay } from '../support/devnet-harness.js';
import { freePort } from '../support/local-server.js';

// Issue 9 Deliver 7: `npm run devnet` lets a newcomer pay an invoice locally, and Ctrl-C stops
// everything. Runs `node scripts/devnet.mjs` as `npm run devnet` does after its build
// (test/global-setup.ts built dist/; the script itself never builds), follows what it prints,
// then sends SIGINT and checks that anvil and Ivory are gone.

const RECIPIENT: Address = '0x90F79bf6EB2c4f870365E785982E1f101E93b906'; // anvil account #3, as devnet.mjs uses

interface Issuance {
  readonly id: string;
  readonly status: string;
  readonly address: string | null;
  readonly received: string;
  readonly payout_tx_hash: string | null;
}

describe('npm run devnet', () => {
  const devnet = devnetHarness('devnet');
  const { dataDir } = devnet;

  it('starts anvil and Ivory, takes an invoice paid with devnet-pay.mjs to settled, and stops everything on SIGINT', async () => {
    const ivoryPort = await freePort();
    const anvilPort = await freePort();
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: os.tmpdir(),
      PORT: String(ivoryPort),
      DEVNET_ANVIL_PORT: String(anvilPort),
      DEVNET_DATA_DIR: dataDir,
    };

    // 1. "Ivory devnet is up", with the API key, the shop, the token and both children's pids.
    const { child, output } = await devnet.start([], env, 'Ivory devnet is up', 45_000);
    const apiKey = /API key\s+(ivk_\S+)/.exec(output)?.[1];
    const shopId = /\(shop ([0-9a-f-]{36})\)/.exec(output)?.[1];
    const token = /TUSD (0x[0-9a-fA-F]{40})/.exec(output)?.[1];
    const ivoryPid = Number(/Ivory pid (\d+)/.exec(output)?.[1]);
    const anvilPid = Number(/anvil pid (\d+)/.exec(output)?.[1]);
    expect({ apiKey, shopId, token }, output).toEqual({ apiKey: expect.any(String), shopId: expect.any(String), token: expect.any(String) });
    devnet.track(ivoryPid, anvilPid);
    expect(alive(ivoryPid) && alive(anvilPid)).toBe(true);
    expect(output).toContain(`DEVNET_DATA_DIR=${dataDir} node scripts/devnet-pay.mjs <address> 25`);

    // 2. The invoice, created exactly as printed.
    const api = `http://localhost:${ivoryPort}/api/v1/shops/${shopId}`;
    const headers = { authorization: `Bearer ${apiKey}` };
    const created = await fetch(`${api}/invoices`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', 'idempotency-key': `devnet-test-${Date.now()}` },
      body: JSON.stringify({ chain_id: 31337, token, amount: '25000000' }),
    });
    expect(created.status, await created.clone().text()).toBe(202);
    const invoice = (await created.json()) as Issuance;
    expect(invoice.status).toBe('registering');
    const read = async (): Promise<Issuance> => (await (await fetch(`${api}/issuances/${invoice.id}`, { headers })).json()) as Issuance;
    const open = await until('invoice open with an address', async () => {
      const current = await read();
      return current.status === 'open' && current.address !== null ? current : undefined;
    }, 10_000);

    // 3. Paid from the funded test account with the printed command.
    const { code: payCode, output: payOutput } = await runDevnetPay([open.address ?? '', '25'], env);
    expect(payCode, payOutput).toBe(0);
    expect(payOutput).toContain(`paid 25 TUSD to ${open.address}`);

    // 4. funded → settled with the sweep's hash, within seconds (2 confirmations of 1-second blocks).
    const settled = await until('invoice settled', async () => {
      const current = await read();
      return current.status === 'settled' ? current : undefined;
    }, 15_000);
    expect(settled.received).toBe('25000000');
    expect(settled.payout_tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    const chain = createPublicClient({ transport: http(`http://127.0.0.1:${anvilPort}`) });
    const receipt = await chain.getTransactionReceipt({ hash: settled.payout_tx_hash as Hex });
    expect(receipt.status).toBe('success');
    // LEDGER "Invoices": the recipient gets amount − fee (50 bps of 25 TUSD = 0.125 TUSD).
    const paid = await chain.readContract({ address: getAddress(token ?? ''), abi: erc20Abi, functionName: 'balanceOf', args: [RECIPIENT] });
    expect(paid).toBe(24_875_000n);

    // 5. Ctrl-C: devnet stops both children, waits for them and exits 0.
    child.kill('SIGINT');
    expect(await exited(child)).toEqual({ code: 0, signal: null });
    expect(alive(ivoryPid)).toBe(false);
    expect(alive(anvilPid)).toBe(false);
    expect(await listening(anvilPort)).toBe(false); // the anvil binary under its npm wrapper too
    expect(await listening(ivoryPort)).toBe(false);
  }, 75_000);
});
