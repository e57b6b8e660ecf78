import { randomUUID } from 'node:crypto';
import { parseAbi, zeroAddress, type Address, type Hash } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { it } from 'vitest';
import {
  deployContracts,
  deployTestStablecoin,
  depositForwarderFactoryAbi,
  invoiceForwarderFactoryAbi,
  issuanceTermsId,
  predictForwarderAddress,
  type ForwarderTerms,
} from '../src/chains/evm/contracts/index.js';
import { ANVIL_KEYS, startAnvil, type Anvil } from '../test/support/anvil.js';

// Issue 22 item 3, docs/decisions/0037: gas of `sweepBatch` against single sweeps, per sweep.
// Run: npx vitest run --config bench/vitest.measure.config.ts bench/sweep-batch-gas.measure.ts
// Worst case for the merchant: every recipient is fresh (its first tokens), the fee wallet
// already holds tokens (as after the operator's first payout); invoices deploy their forwarder
// inside the sweep, deposits are measured on a later sweep (forwarder already deployed).

const SIZES = [1, 2, 5, 10, 20];
const mintAbi = parseAbi(['function mint(address to, uint256 amount)']);
const freshAddress = (): Address => privateKeyToAccount(generatePrivateKey()).address;

it('gas per sweep: single sweep against batches of 2, 5, 10 and 20 (invoices deploying their forwarder; deposits swept again)', async () => {
  const anvil = await startAnvil();
  try {
    const sender = privateKeyToAccount(ANVIL_KEYS[4]);
    const token = await deployTestStablecoin({ rpcUrl: anvil.rpcUrl, privateKey: ANVIL_KEYS[0] });
    const deployed = await deployContracts({ rpcUrl: anvil.rpcUrl, privateKey: ANVIL_KEYS[0], feeWallet: freshAddress() });
    const feeWallet = deployed.feeWallet;
    const mined = async (hash: Promise<Hash>) => {
      const receipt = await anvil.client.waitForTransactionReceipt({ hash: await hash });
      if (receipt.status !== 'success') throw new Error('sweep reverted');
      return receipt.gasUsed;
    };
    const mint = (to: Address, amount: bigint) => mined(anvil.client.writeContract({ account: sender, chain: anvil.chain, address: token, abi: mintAbi, functionName: 'mint', args: [to, amount] }));
    await mint(feeWallet, 1_000_000n);
    const terms = (amount: bigint): ForwarderTerms => ({
      id: issuanceTermsId(randomUUID()),
      token,
      recipient: freshAddress(),
      feeWallet,
      delegate: zeroAddress,
      amount,
      feeMin: 100_000n,
      feeMax: 5_000_000n,
      feeBps: 50,
    });
    const sweepAll = (factory: Address, kind: 'invoice' | 'deposit', batch: readonly ForwarderTerms[]) => {
      const abi = kind === 'invoice' ? invoiceForwarderFactoryAbi : depositForwarderFactoryAbi;
      const [only] = batch;
      return mined(
        batch.length === 1 && only !== undefined
          ? anvil.client.writeContract({ account: sender, chain: anvil.chain, address: factory, abi, functionName: 'sweep', args: [only] })
          : anvil.client.writeContract({ account: sender, chain: anvil.chain, address: factory, abi, functionName: 'sweepBatch', args: [batch] }),
      );
    };
    const fund = async (factory: Address, batch: readonly ForwarderTerms[]) => {
      for (const t of batch) await mint(predictForwarderAddress(factory, t), 100_000_000n);
    };

    const rows: string[] = [];
    let singleInvoice = 0n;
    let singleDeposit = 0n;
    for (const size of SIZES) {
      const invoices = Array.from({ length: size }, () => terms(100_000_000n));
      await fund(deployed.invoiceFactory, invoices);
      const invoiceGas = await sweepAll(deployed.invoiceFactory, 'invoice', invoices);

      // Deposits: a first sweep deploys each forwarder (and pays each fresh recipient's first tokens); measured is the next one.
      const deposits = Array.from({ length: size }, () => terms(0n));
      await fund(deployed.mainFactory, deposits);
      await sweepAll(deployed.mainFactory, 'deposit', deposits);
      await fund(deployed.mainFactory, deposits);
      const depositGas = await sweepAll(deployed.mainFactory, 'deposit', deposits);

      const perInvoice = invoiceGas / BigInt(size);
      const perDeposit = depositGas / BigInt(size);
      if (size === 1) [singleInvoice, singleDeposit] = [perInvoice, perDeposit];
      const saving = (per: bigint, single: bigint) => `${((Number(single - per) / Number(single)) * 100).toFixed(1)} %`;
      rows.push(`| ${size === 1 ? '1 (`sweep`)' : size} | ${invoiceGas} | ${perInvoice} | ${saving(perInvoice, singleInvoice)} | ${depositGas} | ${perDeposit} | ${saving(perDeposit, singleDeposit)} |`);
    }
    console.warn(
      [
        '| sweeps | invoices: transaction gas | per sweep | saved per sweep | deposits (later sweep): transaction gas | per sweep | saved per sweep |',
        '| --- | --- | --- | --- | --- | --- | --- |',
        ...rows,
      ].join('\n'),
    );
  } finally {
    await (anvil as Anvil | undefined)?.stop();
  }
});
