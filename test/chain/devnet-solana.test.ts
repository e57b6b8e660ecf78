import os from 'node:os';
import { findAssociatedTokenPda } from '@solana-program/token';
import { address as toAddress, createSolanaRpc } from '@solana/kit';
import { describe, expect, it } from 'vitest';
import { alive, exited, listening, until } from '../support/child-processes.js';
import { devnetHarness, runDevnetPay } from '../support/devnet-harness.js';
import { freePort } from '../support/local-server.js';

// Issue 24 ("What a user can do"): `npm run devnet -- --family solana` starts the local Solana
// node with Ivory on it and prints how to pay an invoice; Ctrl-C stops everything. Runs `node
// scripts/devnet.mjs --family solana` as `npm run devnet` does after its builds
// (test/global-setup.ts built dist/; dist-devnets/ is built here), with fast slots, follows what
// it prints, pays with the printed command, then sends SIGINT and checks that the node and Ivory
// are gone.

const SOLANA_ADDRESS = /[1-9A-HJ-NP-Za-km-z]{32,44}/.source;

interface Issuance {
  readonly id: string;
  readonly status: string;
  readonly address: string | null;
  readonly received: string;
  readonly payout_tx_hash: string | null;
}

describe('npm run devnet -- --family solana', () => {
  const devnet = devnetHarness('devnet-solana', { buildDevnets: true });
  const { dataDir } = devnet;

  it('starts the Solana node and Ivory, takes a USDC invoice paid with devnet-pay.mjs --family solana to settled, and stops everything on SIGINT', async () => {
    const ivoryPort = await freePort();
    const solanaPort = await freePort();
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: os.tmpdir(),
      PORT: String(ivoryPort),
      DEVNET_SOLANA_PORT: String(solanaPort),
      DEVNET_DATA_DIR: dataDir,
    };

    // 1. "Ivory Solana devnet is up", with the API key, the shop, the token, the recipient and both children's pids.
    // Up in about 15 s on an idle machine; 75 s leaves room for the whole suite running beside it.
    const { child, output } = await devnet.start(['--family', 'solana', '--slot-ms', '50', '--finalized-lag', '8'], env, 'Ivory Solana devnet is up', 75_000);
    const apiKey = /API key\s+(ivk_\S+)/.exec(output)?.[1];
    const shopId = /\(shop ([0-9a-f-]{36})\)/.exec(output)?.[1];
    const token = new RegExp(`USDC (${SOLANA_ADDRESS})`).exec(output)?.[1];
    const recipient = new RegExp(`recipient (${SOLANA_ADDRESS})`).exec(output)?.[1];
    const chainId = Number(/chain_id (\d+), 50 ms slots/.exec(output)?.[1]);
    const rpcUrl = /chain\s+(http:\S+)/.exec(output)?.[1];
    const ivoryPid = Number(/Ivory pid (\d+)/.exec(output)?.[1]);
    const nodePid = Number(/Solana node pid (\d+)/.exec(output)?.[1]);
    expect({ apiKey, shopId, token, recipient, rpcUrl }, output).toEqual({ apiKey: expect.any(String), shopId: expect.any(String), token: expect.any(String), recipient: expect.any(String), rpcUrl: `http://127.0.0.1:${solanaPort}` });
    devnet.track(ivoryPid, nodePid);
    expect(alive(ivoryPid) && alive(nodePid)).toBe(true);
    expect(output).toContain(`DEVNET_DATA_DIR=${dataDir} node scripts/devnet-pay.mjs --family solana <address> 25`);

    // 2. The invoice, created exactly as printed: registering, then open with a wallet address once its token account exists.
    const api = `http://localhost:${ivoryPort}/api/v1/shops/${shopId}`;
    const headers = { authorization: `Bearer ${apiKey}` };
    const created = await fetch(`${api}/invoices`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', 'idempotency-key': `devnet-solana-test-${Date.now()}` },
      body: JSON.stringify({ chain_id: chainId, token, amount: '25000000' }),
    });
    expect(created.status, await created.clone().text()).toBe(202);
    const invoice = (await created.json()) as Issuance;
    expect(invoice.status).toBe('registering');
    const read = async (): Promise<Issuance> => (await (await fetch(`${api}/issuances/${invoice.id}`, { headers })).json()) as Issuance;
    const open = await until('invoice open with an address', async () => {
      const current = await read();
      return current.status === 'open' && current.address !== null ? current : undefined;
    }, 10_000);
    expect(open.address).toMatch(new RegExp(`^${SOLANA_ADDRESS}$`));

    // 3. Paid from the node's funded payer account with the printed command.
    const { code: payCode, output: payOutput } = await runDevnetPay(['--family', 'solana', open.address ?? '', '25'], env);
    expect(payCode, payOutput).toBe(0);
    expect(payOutput).toContain(`paid 25 USDC to ${open.address}`);

    // 4. Credited at finalized, swept, settled when the sweep is finalized.
    const settled = await until('invoice settled', async () => {
      const current = await read();
      return current.status === 'settled' ? current : undefined;
    }, 30_000);
    expect(settled.received).toBe('25000000');
    expect(settled.payout_tx_hash).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
    // LEDGER "Invoices": the recipient gets amount − fee (50 bps of 25 USDC = 0.125 USDC), read on chain.
    const rpc = createSolanaRpc(rpcUrl ?? '');
    const [recipientAccount] = await findAssociatedTokenPda({ owner: toAddress(recipient ?? ''), mint: toAddress(token ?? ''), tokenProgram: toAddress('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA') });
    expect((await rpc.getTokenAccountBalance(recipientAccount, { commitment: 'finalized' }).send()).value.amount).toBe('24875000');

    // 5. Ctrl-C: devnet stops both children, waits for them and exits 0.
    child.kill('SIGINT');
    expect(await exited(child)).toEqual({ code: 0, signal: null });
    expect(alive(ivoryPid)).toBe(false);
    expect(alive(nodePid)).toBe(false);
    expect(await listening(solanaPort)).toBe(false);
    expect(await listening(ivoryPort)).toBe(false);
  }, 150_000);
});
