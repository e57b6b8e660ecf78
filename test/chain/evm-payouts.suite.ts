import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decodeFunctionData, encodeAbiParameters, keccak256, parseEventLogs, toHex, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type IvoryApp } from '../../src/app.js';
import type { ChainAdapter } from '../../src/chains/index.js';
import { deployContracts, deployTestStablecoin, depositForwarderFactoryAbi, invoiceForwarderFactoryAbi, testStablecoinAbi } from '../../src/chains/evm/contracts/index.js';
import { createEvmChainAdapter, type EvmChainAdapter, type EvmChainAdapterDeps } from '../../src/chains/evm/evm-adapter.js';
import type { EvmNetwork } from '../../src/chains/evm/evm-network.js';
import { findForwarder } from '../../src/chains/evm/forwarders/index.js';
import type { SweepLedger } from '../../src/chains/ledger-ports.js';
import { listPayoutTransactions } from '../../src/chains/evm/payouts/index.js';
import { ensureRelayer, importRelayerKey, relayerStatus } from '../../src/chains/evm/relayer/index.js';
import { loadCatalogue } from '../../src/catalogue/index.js';
import { recordTransfer } from '../../src/issuances/index.js';
import { confirmPayout, recordFailedSweep, revertPayout, wakeWaitingGasPayouts } from '../../src/payouts/index.js';
import { ManualClock } from '../../src/platform/clock.js';
import { loadConfig } from '../../src/platform/config.js';
import { inTransaction, type DatabaseHandle } from '../../src/platform/database/database.js';
import { ledgerPorts } from '../../src/ledger-ports.js';
import { ANVIL_KEYS, startAnvil, type Anvil } from '../support/anvil.js';
import { TEST_SECRET_KEY } from '../support/app.js';
import { freshDatabase } from '../support/database.js';
import { startFaultyRpc } from '../support/faulty-rpc.js';
import { createOwnerWithShop } from '../support/factories.js';
import { authed, newIdempotencyKey } from '../support/app.js';

// Issue 9 items 2, 3 and 5 on a real anvil chain: the relayer's key, CREATE2
// allocation, and crash-safe sweeps (LEDGER "Invoices": recipient amount − fee,
// operator fee + overpayment), through the real payout worker and ledger.
//
// One suite, run on two kinds of network: EIP-1559 (anvil's default rules) and
// legacy gas (`hardfork: 'berlin'`: blocks without `baseFeePerGas`, issue 22
// item 3), by evm-payouts.test.ts and evm-payouts-legacy-gas.test.ts.

export function evmPayoutSuite(options: { readonly hardfork?: string; readonly transactionType: 'eip1559' | 'legacy' }): void {

  const CONFIRMATIONS = 2;
  // viem picks type 2 for anvil's chain whatever the node's rules; a legacy network's payers send legacy transactions.
  const payerTxType = options.transactionType === 'legacy' ? { type: 'legacy' as const } : {};
  const USDC = (tokens: number) => BigInt(Math.round(tokens * 1_000_000));
  const silent = process.env.EVM_TEST_LOG ? { info: (...a: unknown[]) => console.warn('INFO', ...a), warn: (...a: unknown[]) => console.warn('WARN', ...a), error: (...a: unknown[]) => console.warn('ERROR', ...a) } : { info: () => undefined, warn: () => undefined, error: () => undefined };

  let anvil: Anvil;
  let database: DatabaseHandle;
  let app: IvoryApp;
  let clock: ManualClock;
  let network: EvmNetwork;
  let token: Address;
  let relayer: Address;
  let catalogueDir: string;
  const liveAdapters = new Map<number, ChainAdapter>();
  const ledgerCalls: { call: string; payoutId: string; txHash?: string }[] = [];

  /** The real payouts ledger behind the port, with the calls it received recorded. */
  const ledger: SweepLedger = {
    async confirmPayout(trx, now, payout) {
      ledgerCalls.push({ call: 'confirm', ...payout });
      await confirmPayout(trx, { now, ledger: ledgerPorts }, payout);
    },
    async revertPayout(trx, now, payout) {
      ledgerCalls.push({ call: 'revert', ...payout });
      await revertPayout(trx, { now, ledger: ledgerPorts }, payout);
    },
    async sweepFailed(trx, now, payout) {
      ledgerCalls.push({ call: 'sweepFailed', ...payout });
      await recordFailedSweep(trx, { now, ledger: ledgerPorts }, payout);
    },
    async relayerFunded(trx, now, network) {
      return wakeWaitingGasPayouts(trx, network.chainId, now);
    },
  };

  function adapterDeps(extra: Partial<EvmChainAdapterDeps> = {}): EvmChainAdapterDeps {
    return { db: database.db, secrets: app.context.secrets, clock, network, log: silent, ledger, tuning: { bumpAfterMs: 60_000 }, ...extra };
  }


  /** Serves the network with `adapter` from now on: a process restart, as far as the chain and the database can tell. */
  function serveWith(adapter: EvmChainAdapter): EvmChainAdapter {
    liveAdapters.set(network.chainId, adapter);
    return adapter;
  }

  beforeAll(async () => {
    anvil = await startAnvil(options.hardfork === undefined ? {} : { hardfork: options.hardfork });
    const feeWallet = privateKeyToAccount(generatePrivateKey()).address;
    const deployed = await deployContracts({ rpcUrl: anvil.rpcUrl, privateKey: ANVIL_KEYS[0], feeWallet });
    token = await deployTestStablecoin({ rpcUrl: anvil.rpcUrl, privateKey: ANVIL_KEYS[0] });
    network = {
      chainId: anvil.chainId,
      rpcUrl: anvil.rpcUrl,
      confirmations: CONFIRMATIONS,
      mainFactory: deployed.mainFactory,
      invoiceFactory: deployed.invoiceFactory,
      startBlock: BigInt(deployed.startBlock),
      feeWallet,
      tokens: [{ address: token, symbol: 'USDC', decimals: 6, minimumSweep: 0n }],
      pollIntervalMs: 1_000,
      maxBlockRange: 1_000,
      useFinalizedTag: false,
    };
    catalogueDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ivory-evm-payouts-'));
    const catalogueFile = path.join(catalogueDir, 'networks.json');
    fs.writeFileSync(catalogueFile, JSON.stringify({ networks: [catalogueEntry(anvil.chainId, token)] }));
    clock = new ManualClock(new Date());
    database = await freshDatabase();
    const config = loadConfig({ SECRET_KEY: TEST_SECRET_KEY, LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_WRITES_PER_MINUTE: '0', PUBLIC_URL: 'http://ivory.test', DATA_DIR: '/nonexistent-ivory-test-dir' });
    app = await buildApp({ config, database, clock, runJobs: false, catalogue: loadCatalogue(catalogueFile), liveChainAdapters: liveAdapters });
    serveWith(createEvmChainAdapter(adapterDeps()));
    relayer = (await ensureRelayer(database.db, app.context.secrets, anvil.chainId)).address;
    await anvil.client.setBalance({ address: relayer, value: 10n ** 19n });
  });

  afterAll(async () => {
    await app?.close();
    await database?.close();
    await anvil?.stop();
    if (catalogueDir !== undefined) fs.rmSync(catalogueDir, { recursive: true, force: true });
  });

  function catalogueEntry(chainId: number, tokenAddress: Address) {
    return {
      chain_id: chainId,
      name: 'Anvil',
      family: 'evm',
      native_symbol: 'ETH',
      explorer_url: 'https://explorer.invalid',
      main_factory: '',
      invoice_factory: '',
      start_block: 0,
      enabled: true,
      minimum_payment: '1',
      terms: {
        invoice: { bps: 50, minimum: '100000000000000000', maximum: '5000000000000000000' },
        deposit: { bps: 50, minimum: '100000000000000000', maximum: '5000000000000000000' },
        sweep_threshold: '10',
        minimum_sweep: '5',
        maximum_sweep: '100000',
      },
      tokens: [{ address: tokenAddress, symbol: 'USDC', decimals: 6, status: 'ready' }],
    };
  }

  /** A live shop with a fresh recipient, and its open invoice of `tokens` USDC with a forwarder address. */
  async function openInvoice(tokens: number) {
    const owner = await createOwnerWithShop(database.db, { sandbox: false });
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    await database.db.updateTable('shops').set({ recipient }).where('id', '=', owner.shop.id).execute();
    const created = await app.server.inject({
      method: 'POST',
      url: `/api/v1/shops/${owner.shop.id}/invoices`,
      headers: authed(owner.key.token, newIdempotencyKey()),
      payload: { chain_id: anvil.chainId, token, amount: USDC(tokens).toString() },
    });
    if (created.statusCode !== 202) throw new Error(`create invoice: ${created.statusCode} ${created.body}`);
    await app.jobs.drain();
    const id = created.json().id as string;
    const row = await database.db.selectFrom('issuances').select(['address', 'status']).where('id', '=', id).executeTakeFirstOrThrow();
    if (row.address === null) throw new Error('invoice got no address');
    return { id, address: row.address as Address, recipient, amount: USDC(tokens) };
  }

  /** A live shop's open deposit with a forwarder address (sweep threshold 10 USDC, minimum sweep 5, from the catalogue). */
  async function openDeposit() {
    const owner = await createOwnerWithShop(database.db, { sandbox: false });
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    await database.db.updateTable('shops').set({ recipient }).where('id', '=', owner.shop.id).execute();
    const created = await app.server.inject({
      method: 'POST',
      url: `/api/v1/shops/${owner.shop.id}/deposits`,
      headers: authed(owner.key.token, newIdempotencyKey()),
      payload: { chain_id: anvil.chainId, token },
    });
    if (created.statusCode !== 202) throw new Error(`create deposit: ${created.statusCode} ${created.body}`);
    await app.jobs.drain();
    const id = created.json().id as string;
    const row = await database.db.selectFrom('issuances').select(['address']).where('id', '=', id).executeTakeFirstOrThrow();
    if (row.address === null) throw new Error('deposit got no address');
    return { id, address: row.address as Address, recipient };
  }

  /** The payer's transfer on chain, then recorded confirmed as the watcher records it. */
  async function pay(invoice: { id: string; address: Address }, amount: bigint) {
    const payer = privateKeyToAccount(ANVIL_KEYS[1]);
    await anvil.client.writeContract({ ...payerTxType, account: payer, chain: anvil.chain, address: token, abi: testStablecoinAbi, functionName: 'mint', args: [payer.address, amount] });
    const hash = await anvil.client.writeContract({ ...payerTxType, account: payer, chain: anvil.chain, address: token, abi: testStablecoinAbi, functionName: 'transfer', args: [invoice.address, amount] });
    await anvil.client.waitForTransactionReceipt({ hash });
    clock.advance(1_000);
    await inTransaction(database.db, (trx) =>
      recordTransfer(trx, { now: clock.now(), ledger: ledgerPorts }, {
        issuanceId: invoice.id,
        chainId: anvil.chainId,
        txHash: hash,
        logIndex: 0,
        fromAddress: payer.address,
        toAddress: invoice.address,
        amount,
        status: 'confirmed',
      }),
    );
  }

  const balanceOf = (address: Address) => anvil.client.readContract({ address: token, abi: testStablecoinAbi, functionName: 'balanceOf', args: [address] });

  async function payoutOf(issuanceId: string) {
    return database.db.selectFrom('payouts').selectAll().where('issuance_id', '=', issuanceId).executeTakeFirstOrThrow();
  }

  /** `Swept` events of the factories for one forwarder, over the whole chain. */
  async function sweepsOf(forwarder: Address) {
    const logs = await anvil.client.getLogs({ address: [network.invoiceFactory, network.mainFactory], fromBlock: 0n, toBlock: 'latest' });
    return parseEventLogs({ abi: invoiceForwarderFactoryAbi, logs, eventName: 'Swept' }).filter((log) => log.args.forwarder.toLowerCase() === forwarder.toLowerCase());
  }

  async function mine(blocks: number) {
    await anvil.client.mine({ blocks });
  }

  /** Runs the tracker until nothing changes. */
  async function track(adapter: EvmChainAdapter) {
    for (let round = 0; round < 10; round += 1) if ((await adapter.payoutTracker.run()) === 0) return;
  }

  /** The forwarder's token balance slot in TestStablecoin (`balanceOf` is its fourth slot). */
  function balanceSlot(holder: Address): Hex {
    return keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [holder, 3n]));
  }

  describe('relayer keys (issue 9 item 2)', () => {
    it('one key per network, generated once, sealed at rest; status reads the balance (null when the node is down); an operator key can be imported', async () => {
      const again = await Promise.all([1, 2, 3].map(() => ensureRelayer(database.db, app.context.secrets, 999)));
      expect(new Set(again.map((entry) => entry.address)).size).toBe(1);
      const stored = await database.db.selectFrom('evm_relayers' as never).selectAll().where('chain_id' as never, '=', 999 as never).executeTakeFirstOrThrow();
      expect(JSON.stringify(stored)).not.toMatch(/[0-9a-f]{64}/i);

      const status = await relayerStatus(database.db, network);
      expect(status).toEqual({ chainId: anvil.chainId, address: relayer, balance: await anvil.client.getBalance({ address: relayer }) });
      expect(await relayerStatus(database.db, { chainId: 999, rpcUrl: 'http://127.0.0.1:9' })).toMatchObject({ balance: null });

      const imported = await importRelayerKey(database.db, app.context.secrets, clock, 999, ANVIL_KEYS[4]);
      expect(imported).toEqual({ outcome: 'imported', relayer: { chainId: 999, address: privateKeyToAccount(ANVIL_KEYS[4]).address } });
    });
  });

  describe('allocation (issue 9 item 3)', () => {
    it('the address is the CREATE2 prediction the factory itself answers, stored with its terms, the same when asked again', async () => {
      const invoice = await openInvoice(100);
      const forwarder = await findForwarder(database.db, invoice.id);
      expect(forwarder).toBeDefined();
      if (forwarder === undefined) return;
      expect(forwarder.terms).toMatchObject({ recipient: invoice.recipient, amount: USDC(100), feeBps: 50, feeMin: USDC(0.1), feeMax: USDC(5), feeWallet: network.feeWallet });
      const onChain = await anvil.client.readContract({ address: network.invoiceFactory, abi: invoiceForwarderFactoryAbi, functionName: 'predict', args: [forwarder.terms] });
      expect(onChain).toBe(invoice.address);

      const adapter = createEvmChainAdapter(adapterDeps());
      const request = { issuanceId: invoice.id, chainId: anvil.chainId, family: 'evm' as const, kind: 'invoice' as const, token, recipient: '0x000000000000000000000000000000000000bEEF', feeBps: 1, feeMinimum: 0n, feeMaximum: 0n, tokenDecimals: 6, amount: 1n };
      expect(await adapter.allocateAddress(request)).toBe(invoice.address);
    });

    it('a deposit forwarder is predicted on the deposit factory, its minimum sweep committed as the amount', async () => {
      const adapter = createEvmChainAdapter(adapterDeps());
      const issuanceId = '6c1a4f7e-0d2b-4c55-9a61-1f0e2d3c4b5a';
      const address = await adapter.allocateAddress({ issuanceId, chainId: anvil.chainId, family: 'evm', kind: 'deposit', token, recipient: relayer, delegate: null, amount: USDC(5), tokenDecimals: 6, feeBps: 50, feeMinimum: 10n ** 17n, feeMaximum: 5n * 10n ** 18n });
      const forwarder = await findForwarder(database.db, issuanceId);
      expect(forwarder?.terms.amount).toBe(USDC(5));
      const onChain = await anvil.client.readContract({ address: network.mainFactory, abi: depositForwarderFactoryAbi, functionName: 'predict', args: [forwarder!.terms] });
      expect(address).toBe(onChain);
    });
  });

  describe('payouts (issue 9 item 5)', () => {
    it('a funded invoice is swept with LEDGER\'s split on chain and confirmed at depth', async () => {
      const adapter = serveWith(createEvmChainAdapter(adapterDeps()));
      const invoice = await openInvoice(100);
      const feeBefore = await balanceOf(network.feeWallet);
      await pay(invoice, USDC(40));
      await pay(invoice, USDC(90));
      await app.jobs.drain();
      const sent = await payoutOf(invoice.id);
      expect(sent.status).toBe('sent');

      await track(adapter);
      expect((await payoutOf(invoice.id)).status).toBe('sent'); // not at depth yet
      await mine(CONFIRMATIONS);
      await track(adapter);
      const confirmed = await payoutOf(invoice.id);
      expect(confirmed).toMatchObject({ status: 'confirmed', tx_hash: sent.tx_hash });

      expect(await balanceOf(invoice.recipient)).toBe(USDC(99.5));
      expect((await balanceOf(network.feeWallet)) - feeBefore).toBe(USDC(30.5));
      expect(await balanceOf(invoice.address)).toBe(0n);
      const sweeps = await sweepsOf(invoice.address);
      expect(sweeps).toHaveLength(1);
      expect(sweeps[0]?.transactionHash).toBe(sent.tx_hash);
      // The network's kind of transaction: type 2 where blocks carry a base fee, legacy where they do not.
      expect((await anvil.client.getBlock()).baseFeePerGas ?? null).toSatisfy((fee) => (options.transactionType === 'legacy' ? fee === null : typeof fee === 'bigint'));
      expect((await anvil.client.getTransaction({ hash: sent.tx_hash as Hex })).type).toBe(options.transactionType);
      const receipt = await anvil.client.getTransactionReceipt({ hash: sent.tx_hash as Hex });
      console.warn(`[gas] first sweep of an invoice forwarder (deploys the clone): ${receipt.gasUsed}`);
    });

    it('killed after signing, before the commit: nothing was stored; the restarted process sweeps exactly once', async () => {
      const crashing = serveWith(createEvmChainAdapter(adapterDeps({ hooks: { afterSign: () => { throw new Error('killed after sign'); } } })));
      const invoice = await openInvoice(10);
      await pay(invoice, USDC(10));
      await app.jobs.drain();
      const payout = await payoutOf(invoice.id);
      expect(payout).toMatchObject({ status: 'scheduled', attempts: 1 });
      expect(await listPayoutTransactions(database.db, anvil.chainId, payout.id)).toEqual([]);
      void crashing;

      const restarted = serveWith(createEvmChainAdapter(adapterDeps()));
      clock.advance(60_000);
      await app.jobs.drain();
      await mine(CONFIRMATIONS);
      await track(restarted);
      expect(await payoutOf(invoice.id)).toMatchObject({ status: 'confirmed' });
      expect(await sweepsOf(invoice.address)).toHaveLength(1);
      expect(await listPayoutTransactions(database.db, anvil.chainId, payout.id)).toHaveLength(1);
    });

    it('killed after the commit, before the broadcast: the restarted process broadcasts the stored transaction, exactly one sweep', async () => {
      serveWith(createEvmChainAdapter(adapterDeps({ hooks: { afterCommit: () => { throw new Error('killed after commit'); } } })));
      const invoice = await openInvoice(10);
      await pay(invoice, USDC(10));
      await app.jobs.drain();
      const payout = await payoutOf(invoice.id);
      const [stored] = await listPayoutTransactions(database.db, anvil.chainId, payout.id);
      expect(stored).toMatchObject({ status: 'pending', broadcastAt: null });
      expect(await sweepsOf(invoice.address)).toHaveLength(0);

      const restarted = serveWith(createEvmChainAdapter(adapterDeps()));
      clock.advance(60_000);
      await app.jobs.drain();
      expect(await payoutOf(invoice.id)).toMatchObject({ status: 'sent', tx_hash: stored?.txHash });
      await mine(CONFIRMATIONS);
      await track(restarted);
      expect(await payoutOf(invoice.id)).toMatchObject({ status: 'confirmed', tx_hash: stored?.txHash });
      expect(await sweepsOf(invoice.address)).toHaveLength(1);
      expect(await listPayoutTransactions(database.db, anvil.chainId, payout.id)).toHaveLength(1);
    });

    it('a relayer without gas parks the payout in gas.wait; once funded it is paid', async () => {
      const adapter = serveWith(createEvmChainAdapter(adapterDeps()));
      const invoice = await openInvoice(10);
      const funded = await anvil.client.getBalance({ address: relayer });
      await anvil.client.setBalance({ address: relayer, value: 0n });
      await pay(invoice, USDC(10));
      await app.jobs.drain();
      const payout = await payoutOf(invoice.id);
      expect(payout).toMatchObject({ status: 'waiting_gas', tx_hash: null });
      expect(await listPayoutTransactions(database.db, anvil.chainId, payout.id)).toEqual([]);

      // A poll of the tracker with the relayer still dry changes nothing.
      await track(adapter);
      await app.jobs.drain();
      expect(await payoutOf(invoice.id)).toMatchObject({ status: 'waiting_gas' });

      // Funded: the next poll makes the payout due at once (issue 22 item 2), not after the two-minute gas retry.
      await anvil.client.setBalance({ address: relayer, value: funded });
      await track(adapter);
      await app.jobs.drain();
      expect(await payoutOf(invoice.id)).toMatchObject({ status: 'sent' });
      await mine(CONFIRMATIONS);
      await track(adapter);
      expect(await payoutOf(invoice.id)).toMatchObject({ status: 'confirmed' });
      expect(await sweepsOf(invoice.address)).toHaveLength(1);
    });

    it('a sweep that reverts on chain (the invoice underfunded at inclusion) is sweep.failed, then redone with a new nonce: one sweep', async () => {
      const adapter = serveWith(createEvmChainAdapter(adapterDeps()));
      const invoice = await openInvoice(10);
      await pay(invoice, USDC(10));
      await anvil.client.setAutomine(false);
      try {
        await app.jobs.drain();
        const first = await payoutOf(invoice.id);
        expect(first.status).toBe('sent');
        // Between broadcast and inclusion the forwarder loses a unit: the sweep reverts `Underfunded`.
        await anvil.client.setStorageAt({ address: token, index: balanceSlot(invoice.address), value: toHex(USDC(10) - 1n, { size: 32 }) });
        await mine(1);
      } finally {
        await anvil.client.setAutomine(true);
      }
      const failedHash = (await payoutOf(invoice.id)).tx_hash as Hex;
      expect((await anvil.client.getTransactionReceipt({ hash: failedHash })).status).toBe('reverted');
      await mine(CONFIRMATIONS);
      await track(adapter);
      expect(ledgerCalls).toContainEqual({ call: 'sweepFailed', payoutId: (await payoutOf(invoice.id)).id, txHash: failedHash });
      expect(await payoutOf(invoice.id)).toMatchObject({ status: 'scheduled', tx_hash: null });

      // Still underfunded: nothing is signed (a throw; the worker backs off).
      await app.jobs.drain();
      expect((await payoutOf(invoice.id)).status).toBe('scheduled');
      await anvil.client.setStorageAt({ address: token, index: balanceSlot(invoice.address), value: toHex(USDC(10), { size: 32 }) });
      clock.advance(60 * 60_000);
      await app.jobs.drain();
      await mine(CONFIRMATIONS);
      await track(adapter);
      const payout = await payoutOf(invoice.id);
      expect(payout.status).toBe('confirmed');
      const transactions = await listPayoutTransactions(database.db, anvil.chainId, payout.id);
      expect(transactions.map((row) => row.status)).toEqual(['confirmed', 'failed']);
      expect(transactions[0]!.nonce).toBe(transactions[1]!.nonce + 1n);
      expect(await sweepsOf(invoice.address)).toHaveLength(1);
      expect(await balanceOf(invoice.recipient)).toBe(USDC(9.9));
    });

    it('a stuck transaction is fee-bumped with the same nonce; the replacement mines and confirms the payout', async () => {
      const adapter = serveWith(createEvmChainAdapter(adapterDeps()));
      const invoice = await openInvoice(10);
      await pay(invoice, USDC(10));
      await anvil.client.setAutomine(false);
      let payoutId: string;
      try {
        await app.jobs.drain();
        const sent = await payoutOf(invoice.id);
        payoutId = sent.id;
        await track(adapter); // too early to bump
        expect(await listPayoutTransactions(database.db, anvil.chainId, payoutId)).toHaveLength(1);
        clock.advance(61_000);
        await adapter.payoutTracker.run();
        const [bump, original] = await listPayoutTransactions(database.db, anvil.chainId, payoutId);
        expect(bump).toMatchObject({ nonce: original?.nonce, replacement: 1, status: 'pending' });
        expect(bump!.maxFeePerGas * 8n).toBeGreaterThanOrEqual(original!.maxFeePerGas * 9n);
        expect(bump!.maxPriorityFeePerGas * 8n).toBeGreaterThanOrEqual(original!.maxPriorityFeePerGas * 9n);
        await mine(1);
      } finally {
        await anvil.client.setAutomine(true);
      }
      await mine(CONFIRMATIONS);
      await track(adapter);
      const [bump, original] = await listPayoutTransactions(database.db, anvil.chainId, payoutId);
      expect(bump?.status).toBe('confirmed');
      expect(original?.status).toBe('replaced');
      expect(await payoutOf(invoice.id)).toMatchObject({ status: 'confirmed', tx_hash: bump?.txHash });
      expect(await sweepsOf(invoice.address)).toHaveLength(1);
    });

    it('two workers racing on one payout sign one transaction: one sweep, both answer its hash', async () => {
      serveWith(createEvmChainAdapter(adapterDeps()));
      const invoice = await openInvoice(10);
      await pay(invoice, USDC(10));
      const payout = await payoutOf(invoice.id);
      const first = createEvmChainAdapter(adapterDeps());
      const second = createEvmChainAdapter(adapterDeps());
      const request = {
        payoutId: payout.id,
        issuanceId: invoice.id,
        chainId: anvil.chainId,
        family: 'evm' as const,
        token,
        tokenDecimals: 6,
        fromAddress: invoice.address,
        recipient: invoice.recipient,
        toRecipient: BigInt(payout.to_recipient),
        toOperator: BigInt(payout.to_operator),
      };
      const answers = await Promise.all([first.sendPayout(request), second.sendPayout(request), first.sendPayout(request)]);
      const transactions = await listPayoutTransactions(database.db, anvil.chainId, payout.id);
      expect(transactions).toHaveLength(1);
      expect(answers).toEqual(answers.map(() => ({ kind: 'broadcast', txHash: transactions[0]?.txHash })));
      await mine(CONFIRMATIONS);
      await track(second);
      expect(await payoutOf(invoice.id)).toMatchObject({ status: 'confirmed', tx_hash: transactions[0]?.txHash });
      expect(await sweepsOf(invoice.address)).toHaveLength(1);
    });

    it('a reorg before confirmation puts the sweep back in the pool; after confirmation it gives payout.reverted and the same transaction is redone', async () => {
      const adapter = serveWith(createEvmChainAdapter(adapterDeps()));
      const invoice = await openInvoice(10);
      await pay(invoice, USDC(10));
      const snapshot = await anvil.client.snapshot();
      await app.jobs.drain();
      const payout = await payoutOf(invoice.id);
      await track(adapter);
      expect((await listPayoutTransactions(database.db, anvil.chainId, payout.id))[0]?.status).toBe('mined');

      // Before depth: the block with the sweep is gone.
      await anvil.client.revert({ id: snapshot });
      expect(await sweepsOf(invoice.address)).toHaveLength(0);
      await track(adapter);
      // The node is below the sweep's block now, as a lagging node would be: the tracker sends the same
      // signed transaction again (mined at once by automine), or the node still holds it from the dropped
      // block and mines it with the next one. Either way: one sweep, the same transaction.
      await mine(1);
      await track(adapter);
      expect(await sweepsOf(invoice.address)).toHaveLength(1);
      await mine(CONFIRMATIONS);
      await track(adapter);
      expect(await payoutOf(invoice.id)).toMatchObject({ status: 'confirmed', tx_hash: payout.tx_hash });

      // Past depth: a deeper reorg removes the confirmed sweep. Right after the rollback the
      // node's head is below the sweep's block, which a lagging node also shows: nothing is
      // decided yet (decision 0025). Once the new chain is past that block without the sweep, it is gone.
      const sweepBlock = (await anvil.client.getTransactionReceipt({ hash: payout.tx_hash as Hex })).blockNumber;
      const depth = (await anvil.client.getBlockNumber()) - sweepBlock + 1n;
      await anvil.client.request({ method: 'anvil_rollback' as never, params: [Number(depth)] as never });
      await anvil.client.request({ method: 'anvil_dropAllTransactions' as never, params: [] as never });
      await track(adapter);
      expect(ledgerCalls.filter((call) => call.payoutId === payout.id).map((call) => call.call)).toEqual(['confirm']);
      expect((await payoutOf(invoice.id)).status).toBe('confirmed');
      await mine(2);
      expect(await sweepsOf(invoice.address)).toHaveLength(0);
      await track(adapter);
      expect(ledgerCalls).toContainEqual({ call: 'revert', payoutId: payout.id });
      // The ledger redoes it (decision 0008): payout.reverted, and the payout is `sent` again.
      expect((await payoutOf(invoice.id)).status).toBe('sent');
      await mine(1); // the rebroadcast (or the node's own pool) brings the same transaction back
      await mine(CONFIRMATIONS);
      await track(adapter);
      expect(await sweepsOf(invoice.address)).toHaveLength(1);
      const [transaction, ...others] = await listPayoutTransactions(database.db, anvil.chainId, payout.id);
      expect(others).toEqual([]);
      expect(transaction).toMatchObject({ txHash: payout.tx_hash, status: 'confirmed' });
      expect(ledgerCalls.filter((call) => call.payoutId === payout.id).map((call) => call.call)).toEqual(['confirm', 'revert', 'confirm']);
    });
  });

  describe('batched sweeps (issue 22 item 3, docs/decisions/0037)', () => {
    /** `count` open invoices, all paid before the payout worker runs: their payouts are due in the same pass. */
    async function paidTogether(count: number) {
      const invoices = [];
      for (let index = 0; index < count; index += 1) invoices.push(await openInvoice(10 + index));
      for (const invoice of invoices) await pay(invoice, invoice.amount);
      return invoices;
    }

    const fee = (amount: bigint) => (amount / 200n > USDC(0.1) ? amount / 200n : USDC(0.1));

    async function payoutTypes(issuanceId: string) {
      const rows = await database.db.selectFrom('events').select('type').where('issuance_id', '=', issuanceId).orderBy('sequence').execute();
      return rows.map((row) => row.type).filter((type) => type.startsWith('payout.') || type === 'invoice.closed');
    }

    async function expectSweptOnceEach(invoices: readonly { address: Address; recipient: Address; amount: bigint }[]) {
      for (const invoice of invoices) {
        expect(await sweepsOf(invoice.address)).toHaveLength(1);
        expect(await balanceOf(invoice.recipient)).toBe(invoice.amount - fee(invoice.amount));
        expect(await balanceOf(invoice.address)).toBe(0n);
      }
    }

    it('payouts due together go out as ONE sweepBatch transaction: each forwarder swept once with LEDGER\'s split, every member confirmed with its own events', async () => {
      const adapter = serveWith(createEvmChainAdapter(adapterDeps()));
      const invoices = await paidTogether(3);
      await app.jobs.drain();
      const sent = await Promise.all(invoices.map((invoice) => payoutOf(invoice.id)));
      expect(sent.map((payout) => payout.status)).toEqual(['sent', 'sent', 'sent']);
      const txHash = sent[0]!.tx_hash as Hex;
      expect(sent.map((payout) => payout.tx_hash)).toEqual([txHash, txHash, txHash]);
      const [transaction, ...others] = await listPayoutTransactions(database.db, anvil.chainId, sent[1]!.id);
      expect(others).toEqual([]);
      expect(transaction).toMatchObject({ txHash, payoutIds: sent.map((payout) => payout.id), status: 'pending' });
      const onChain = await anvil.client.getTransaction({ hash: txHash });
      expect(decodeFunctionData({ abi: invoiceForwarderFactoryAbi, data: onChain.input }).functionName).toBe('sweepBatch');
      expect(onChain.type).toBe(options.transactionType);

      await track(adapter);
      expect((await payoutOf(invoices[0]!.id)).status).toBe('sent'); // not at depth yet
      await mine(CONFIRMATIONS);
      await track(adapter);
      for (const [index, invoice] of invoices.entries()) {
        expect(await payoutOf(invoice.id)).toMatchObject({ status: 'confirmed', tx_hash: txHash });
        expect(ledgerCalls.filter((call) => call.payoutId === sent[index]!.id).map((call) => call.call)).toEqual(['confirm']);
        expect(await payoutTypes(invoice.id)).toEqual(['payout.sent', 'payout.confirmed', 'invoice.closed']);
        expect((await sweepsOf(invoice.address))[0]?.transactionHash).toBe(txHash);
      }
      await expectSweptOnceEach(invoices);
      expect((await listPayoutTransactions(database.db, anvil.chainId, sent[2]!.id))[0]?.status).toBe('confirmed');
    });

    it('batches are per factory: deposits due with an invoice go in their own sweepBatch on the deposit factory, the invoice alone', async () => {
      const adapter = serveWith(createEvmChainAdapter(adapterDeps()));
      const invoice = await openInvoice(10);
      const deposits = [await openDeposit(), await openDeposit()];
      await pay(invoice, invoice.amount);
      for (const deposit of deposits) await pay(deposit, USDC(10));
      await app.jobs.drain();
      const invoiceSent = await payoutOf(invoice.id);
      const depositSent = await Promise.all(deposits.map((deposit) => payoutOf(deposit.id)));
      expect([invoiceSent, ...depositSent].map((payout) => payout.status)).toEqual(['sent', 'sent', 'sent']);
      expect(depositSent[0]!.tx_hash).toBe(depositSent[1]!.tx_hash);
      expect(invoiceSent.tx_hash).not.toBe(depositSent[0]!.tx_hash);
      const batch = await anvil.client.getTransaction({ hash: depositSent[0]!.tx_hash as Hex });
      expect(batch.to?.toLowerCase()).toBe(network.mainFactory.toLowerCase());
      expect(decodeFunctionData({ abi: depositForwarderFactoryAbi, data: batch.input }).functionName).toBe('sweepBatch');
      const alone = await anvil.client.getTransaction({ hash: invoiceSent.tx_hash as Hex });
      expect(alone.to?.toLowerCase()).toBe(network.invoiceFactory.toLowerCase());
      expect(decodeFunctionData({ abi: invoiceForwarderFactoryAbi, data: alone.input }).functionName).toBe('sweep');
      await mine(CONFIRMATIONS);
      await track(adapter);
      for (const issuance of [invoice, ...deposits]) expect((await payoutOf(issuance.id)).status).toBe('confirmed');
      for (const deposit of deposits) {
        expect(await sweepsOf(deposit.address)).toHaveLength(1);
        expect(await balanceOf(deposit.recipient)).toBe(USDC(10) - fee(USDC(10)));
      }
      await expectSweptOnceEach([invoice]);
    });

    it('a relayer that cannot pay for the batch parks every member in gas.wait; funded, they go out as one batch', async () => {
      const adapter = serveWith(createEvmChainAdapter(adapterDeps()));
      const invoices = await paidTogether(2);
      const funded = await anvil.client.getBalance({ address: relayer });
      await anvil.client.setBalance({ address: relayer, value: 0n });
      await app.jobs.drain();
      for (const invoice of invoices) expect(await payoutOf(invoice.id)).toMatchObject({ status: 'waiting_gas', tx_hash: null });
      await anvil.client.setBalance({ address: relayer, value: funded });
      await track(adapter);
      await app.jobs.drain();
      const sent = await Promise.all(invoices.map((invoice) => payoutOf(invoice.id)));
      expect(sent.map((payout) => payout.status)).toEqual(['sent', 'sent']);
      expect(sent[0]!.tx_hash).toBe(sent[1]!.tx_hash);
      await mine(CONFIRMATIONS);
      await track(adapter);
      for (const invoice of invoices) expect((await payoutOf(invoice.id)).status).toBe('confirmed');
      await expectSweptOnceEach(invoices);
    });

    it('the batch size is capped by the network\'s sweepBatchMax (catalogue sweep_batch_max); a batch of one is a plain sweep', async () => {
      const adapter = serveWith(createEvmChainAdapter(adapterDeps({ network: { ...network, sweepBatchMax: 2 } })));
      const invoices = await paidTogether(3);
      await app.jobs.drain();
      const sent = await Promise.all(invoices.map((invoice) => payoutOf(invoice.id)));
      expect(sent.map((payout) => payout.status)).toEqual(['sent', 'sent', 'sent']);
      expect(sent[0]!.tx_hash).toBe(sent[1]!.tx_hash);
      expect(sent[2]!.tx_hash).not.toBe(sent[0]!.tx_hash);
      const alone = await anvil.client.getTransaction({ hash: sent[2]!.tx_hash as Hex });
      expect(decodeFunctionData({ abi: invoiceForwarderFactoryAbi, data: alone.input }).functionName).toBe('sweep');
      await mine(CONFIRMATIONS);
      await track(adapter);
      for (const invoice of invoices) expect((await payoutOf(invoice.id)).status).toBe('confirmed');
      await expectSweptOnceEach(invoices);
    });

    it('killed after signing a batch, before the commit: nothing stored, no nonce taken; the restarted process sweeps each exactly once', async () => {
      serveWith(createEvmChainAdapter(adapterDeps({ hooks: { afterSign: () => { throw new Error('killed after sign'); } } })));
      const invoices = await paidTogether(2);
      await app.jobs.drain();
      const payouts = await Promise.all(invoices.map((invoice) => payoutOf(invoice.id)));
      for (const payout of payouts) {
        expect(payout).toMatchObject({ status: 'scheduled', attempts: 1 });
        expect(await listPayoutTransactions(database.db, anvil.chainId, payout.id)).toEqual([]);
      }

      const restarted = serveWith(createEvmChainAdapter(adapterDeps()));
      clock.advance(60_000);
      await app.jobs.drain();
      await mine(CONFIRMATIONS);
      await track(restarted);
      for (const payout of payouts) {
        expect((await payoutOf(payout.issuance_id)).status).toBe('confirmed');
        expect(await listPayoutTransactions(database.db, anvil.chainId, payout.id)).toHaveLength(1);
      }
      expect((await payoutOf(invoices[0]!.id)).tx_hash).toBe((await payoutOf(invoices[1]!.id)).tx_hash);
      await expectSweptOnceEach(invoices);
    });

    it('killed after the batch\'s commit, before its broadcast: the restarted process broadcasts the STORED batch; one sweep each', async () => {
      serveWith(createEvmChainAdapter(adapterDeps({ hooks: { afterCommit: () => { throw new Error('killed after commit'); } } })));
      const invoices = await paidTogether(2);
      await app.jobs.drain();
      const payouts = await Promise.all(invoices.map((invoice) => payoutOf(invoice.id)));
      const [stored, ...more] = await listPayoutTransactions(database.db, anvil.chainId, payouts[0]!.id);
      expect(more).toEqual([]);
      expect(stored).toMatchObject({ status: 'pending', broadcastAt: null, payoutIds: payouts.map((payout) => payout.id) });
      for (const invoice of invoices) expect(await sweepsOf(invoice.address)).toHaveLength(0);

      const restarted = serveWith(createEvmChainAdapter(adapterDeps()));
      clock.advance(60_000);
      await app.jobs.drain();
      for (const invoice of invoices) expect(await payoutOf(invoice.id)).toMatchObject({ status: 'sent', tx_hash: stored?.txHash });
      await mine(CONFIRMATIONS);
      await track(restarted);
      for (const [index, invoice] of invoices.entries()) {
        expect(await payoutOf(invoice.id)).toMatchObject({ status: 'confirmed', tx_hash: stored?.txHash });
        expect(await listPayoutTransactions(database.db, anvil.chainId, payouts[index]!.id)).toHaveLength(1);
      }
      await expectSweptOnceEach(invoices);
    });

    it('killed after the broadcast, before the answers were recorded: asked again, the adapter answers the batch it sent; no second transaction', async () => {
      const adapter = serveWith(createEvmChainAdapter(adapterDeps()));
      const invoices = await paidTogether(2);
      const payouts = await Promise.all(invoices.map((invoice) => payoutOf(invoice.id)));
      const requests = invoices.map((invoice, index) => ({
        payoutId: payouts[index]!.id,
        issuanceId: invoice.id,
        chainId: anvil.chainId,
        family: 'evm' as const,
        token,
        tokenDecimals: 6,
        fromAddress: invoice.address,
        recipient: invoice.recipient,
        toRecipient: BigInt(payouts[index]!.to_recipient),
        toOperator: BigInt(payouts[index]!.to_operator),
      }));
      // A worker that broadcast and died: its answers never reached the payouts.
      const lost = await createEvmChainAdapter(adapterDeps()).sendPayouts(requests);
      const txHash = (await listPayoutTransactions(database.db, anvil.chainId, payouts[0]!.id))[0]?.txHash;
      expect(lost).toEqual(requests.map(() => ({ status: 'fulfilled', value: { kind: 'broadcast', txHash } })));
      expect((await payoutOf(invoices[0]!.id)).status).toBe('scheduled');

      await app.jobs.drain();
      for (const invoice of invoices) expect(await payoutOf(invoice.id)).toMatchObject({ status: 'sent', tx_hash: txHash });
      await mine(CONFIRMATIONS);
      await track(adapter);
      for (const [index, invoice] of invoices.entries()) {
        expect((await payoutOf(invoice.id)).status).toBe('confirmed');
        expect(await listPayoutTransactions(database.db, anvil.chainId, payouts[index]!.id)).toHaveLength(1);
      }
      await expectSweptOnceEach(invoices);
    });

    it('a batch whose simulation fails (the node refuses its gas estimate) is sent as single sweeps: nobody waits', async () => {
      const proxy = await startFaultyRpc(anvil.rpcUrl);
      try {
        let refused = 0;
        proxy.fault = { kind: 'rpc_error', code: 3, message: 'execution reverted' };
        // The pass's first gas estimate is the batch's (each forwarder alone is simulated with eth_call).
        proxy.hits = (method) => method === 'eth_estimateGas' && refused++ === 0;
        const adapter = serveWith(createEvmChainAdapter(adapterDeps({ network: { ...network, rpcUrl: proxy.url, rpcUrls: [proxy.url] } })));
        const invoices = await paidTogether(2);
        await app.jobs.drain();
        expect(proxy.faulted.get('eth_estimateGas')).toBe(1);
        const sent = await Promise.all(invoices.map((invoice) => payoutOf(invoice.id)));
        expect(sent.map((payout) => payout.status)).toEqual(['sent', 'sent']);
        expect(sent[0]!.tx_hash).not.toBe(sent[1]!.tx_hash);
        for (const payout of sent) expect((await listPayoutTransactions(database.db, anvil.chainId, payout.id))[0]?.payoutIds).toEqual([payout.id]);
        await mine(CONFIRMATIONS);
        await track(adapter);
        for (const invoice of invoices) expect((await payoutOf(invoice.id)).status).toBe('confirmed');
        await expectSweptOnceEach(invoices);
      } finally {
        await proxy.close();
      }
    });

    it('a batch that reverts on chain (one forwarder underfunded at inclusion) is sweep.failed for every member; next time each goes alone, so the bad sweep blocks nobody', async () => {
      const adapter = serveWith(createEvmChainAdapter(adapterDeps()));
      const [good, bad] = await paidTogether(2);
      await anvil.client.setAutomine(false);
      try {
        await app.jobs.drain();
        // Between broadcast and inclusion one forwarder loses a unit: the whole batch reverts `Underfunded`.
        await anvil.client.setStorageAt({ address: token, index: balanceSlot(bad!.address), value: toHex(bad!.amount - 1n, { size: 32 }) });
        await mine(1);
      } finally {
        await anvil.client.setAutomine(true);
      }
      const goodPayout = await payoutOf(good!.id);
      const badPayout = await payoutOf(bad!.id);
      const failedHash = goodPayout.tx_hash as Hex;
      expect(badPayout.tx_hash).toBe(failedHash);
      expect((await anvil.client.getTransactionReceipt({ hash: failedHash })).status).toBe('reverted');
      await mine(CONFIRMATIONS);
      await track(adapter);
      for (const payout of [goodPayout, badPayout]) {
        expect(ledgerCalls).toContainEqual({ call: 'sweepFailed', payoutId: payout.id, txHash: failedHash });
        expect(await payoutOf(payout.issuance_id)).toMatchObject({ status: 'scheduled', tx_hash: null });
      }

      // Next pass (after the failed attempt's back-off): each alone. The good one is swept; the bad one has nothing to sweep yet (a throw, backed off).
      clock.advance(60_000);
      await app.jobs.drain();
      expect((await payoutOf(good!.id)).status).toBe('sent');
      expect((await payoutOf(bad!.id)).status).toBe('scheduled');
      const single = await listPayoutTransactions(database.db, anvil.chainId, goodPayout.id);
      expect(single.map((row) => [row.status, row.payoutIds.length])).toEqual([['pending', 1], ['failed', 2]]);
      await mine(CONFIRMATIONS);
      await track(adapter);
      expect((await payoutOf(good!.id)).status).toBe('confirmed');
      expect(await sweepsOf(good!.address)).toHaveLength(1);
      expect(await balanceOf(good!.recipient)).toBe(good!.amount - fee(good!.amount));

      // Once the bad forwarder holds its amount again, it is swept too, alone.
      await anvil.client.setStorageAt({ address: token, index: balanceSlot(bad!.address), value: toHex(bad!.amount, { size: 32 }) });
      clock.advance(60 * 60_000);
      await app.jobs.drain();
      await mine(CONFIRMATIONS);
      await track(adapter);
      expect((await payoutOf(bad!.id)).status).toBe('confirmed');
      const badTransactions = await listPayoutTransactions(database.db, anvil.chainId, badPayout.id);
      expect(badTransactions.map((row) => [row.status, row.payoutIds.length])).toEqual([['confirmed', 1], ['failed', 2]]);
      await expectSweptOnceEach([good!, bad!]);
    });

    it('a reorg that drops a confirmed batch gives payout.reverted for every member; the same batch transaction is redone and confirms each again', async () => {
      const adapter = serveWith(createEvmChainAdapter(adapterDeps()));
      const invoices = await paidTogether(2);
      await app.jobs.drain();
      const payouts = await Promise.all(invoices.map((invoice) => payoutOf(invoice.id)));
      const txHash = payouts[0]!.tx_hash as Hex;
      await mine(CONFIRMATIONS);
      await track(adapter);
      for (const invoice of invoices) expect((await payoutOf(invoice.id)).status).toBe('confirmed');

      const sweepBlock = (await anvil.client.getTransactionReceipt({ hash: txHash })).blockNumber;
      const depth = (await anvil.client.getBlockNumber()) - sweepBlock + 1n;
      await anvil.client.request({ method: 'anvil_rollback' as never, params: [Number(depth)] as never });
      await anvil.client.request({ method: 'anvil_dropAllTransactions' as never, params: [] as never });
      await track(adapter); // the node is below the batch's block: nothing decided yet (decision 0025)
      for (const invoice of invoices) expect((await payoutOf(invoice.id)).status).toBe('confirmed');
      await mine(2);
      for (const invoice of invoices) expect(await sweepsOf(invoice.address)).toHaveLength(0);
      await track(adapter);
      for (const payout of payouts) {
        expect(ledgerCalls.filter((call) => call.payoutId === payout.id).map((call) => call.call)).toEqual(['confirm', 'revert']);
        expect((await payoutOf(payout.issuance_id)).status).toBe('sent');
        expect(await payoutTypes(payout.issuance_id)).toEqual(['payout.sent', 'payout.confirmed', 'invoice.closed', 'payout.reverted']);
      }
      await mine(1);
      await mine(CONFIRMATIONS);
      await track(adapter);
      for (const payout of payouts) {
        expect(await payoutOf(payout.issuance_id)).toMatchObject({ status: 'confirmed', tx_hash: txHash });
        expect(ledgerCalls.filter((call) => call.payoutId === payout.id).map((call) => call.call)).toEqual(['confirm', 'revert', 'confirm']);
        expect(await listPayoutTransactions(database.db, anvil.chainId, payout.id)).toMatchObject([{ txHash, status: 'confirmed' }]);
      }
      await expectSweptOnceEach(invoices);
    });
  });
}
