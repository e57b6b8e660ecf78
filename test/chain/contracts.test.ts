import { randomUUID } from 'node:crypto';
import {
  BaseError,
  ContractFunctionRevertedError,
  concat,
  decodeErrorResult,
  keccak256,
  parseEther,
  parseEventLogs,
  parseUnits,
  stringToBytes,
  toFunctionSelector,
  zeroAddress,
  type Abi,
  type Address,
  type Hex,
  type TransactionReceipt,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  depositForwarderFactoryAbi,
  depositForwarderFactoryBytecode,
  deployContracts,
  deployTestStablecoin,
  forwarderImplementationAbi,
  forwarderImplementationAddress,
  forwarderSalt,
  invoiceForwarderFactoryAbi,
  issuanceTermsId,
  predictForwarderAddress,
  readFactoryFeeWallet,
  testStablecoinAbi,
  type DeployedContracts,
  type ForwarderTerms,
} from '../../src/chains/evm/contracts/index.js';
import {
  falseReturnTokenAbi,
  falseReturnTokenBytecode,
  feeOnTransferTokenAbi,
  feeOnTransferTokenBytecode,
  noReturnTokenAbi,
  noReturnTokenBytecode,
  reentrantTokenAbi,
  reentrantTokenBytecode,
} from '../../src/chains/evm/contracts/artifacts.js';
import { ANVIL_KEYS, startAnvil, type Anvil } from '../support/anvil.js';

const operator = privateKeyToAccount(ANVIL_KEYS[0]);
const payer = privateKeyToAccount(ANVIL_KEYS[1]);
const delegate = privateKeyToAccount(ANVIL_KEYS[2]);
const stranger = privateKeyToAccount(ANVIL_KEYS[3]);
const relayer = privateKeyToAccount(ANVIL_KEYS[4]);

/** Every custom error of every contract, to name the reverts bubbled up through the factory. */
const ERRORS = [
  ...new Map(
    [
      invoiceForwarderFactoryAbi,
      depositForwarderFactoryAbi,
      forwarderImplementationAbi,
      testStablecoinAbi,
      reentrantTokenAbi,
    ]
      .flat()
      .filter((item) => item.type === 'error')
      .map((item) => [item.name, item]),
  ).values(),
] as Abi;

const usdc = (amount: string): bigint => parseUnits(amount, 6);
/** LEDGER "Fees": 18-decimal bounds to base units of a 6-decimal token, rounding down. */
const toTokenUnits = (amount18: bigint): bigint => amount18 / 10n ** 12n;
const freshAddress = (): Address => privateKeyToAccount(generatePrivateKey()).address;

describe('forwarder contracts', () => {
  let anvil: Anvil;
  let deployed: DeployedContracts;
  let invoiceFactory: Address;
  let depositFactory: Address;
  let token: Address;

  beforeAll(async () => {
    anvil = await startAnvil();
    token = await deployTestStablecoin({ rpcUrl: anvil.rpcUrl, privateKey: ANVIL_KEYS[0] });
    deployed = await deployContracts({ rpcUrl: anvil.rpcUrl, privateKey: ANVIL_KEYS[0], feeWallet: freshAddress() });
    invoiceFactory = deployed.invoiceFactory;
    depositFactory = deployed.mainFactory;
  });
  afterAll(async () => {
    await anvil?.stop();
  });

  // ---- helpers ---------------------------------------------------------------------------

  /** LEDGER terms 50 bps / 0.1 / 5 (18-dec) with a fresh recipient and fee wallet. */
  function terms(overrides: Partial<ForwarderTerms> = {}): ForwarderTerms {
    return {
      id: issuanceTermsId(randomUUID()),
      token,
      recipient: freshAddress(),
      feeWallet: freshAddress(),
      delegate: zeroAddress,
      amount: 0n,
      feeMin: toTokenUnits(parseEther('0.1')),
      feeMax: toTokenUnits(parseEther('5')),
      feeBps: 50,
      ...overrides,
    };
  }

  async function mined(request: Promise<Hex>): Promise<TransactionReceipt> {
    const receipt = await anvil.client.waitForTransactionReceipt({ hash: await request, pollingInterval: 50 });
    expect(receipt.status).toBe('success');
    return receipt;
  }

  /** The custom error a call reverts with (decoded against every contract's errors). */
  async function revertOf(call: Promise<unknown>): Promise<string> {
    return (await revertWith(call)).errorName;
  }

  /** The custom error a call reverts with, and its arguments. */
  async function revertWith(call: Promise<unknown>): Promise<{ errorName: string; args: readonly unknown[] }> {
    try {
      await call;
    } catch (error) {
      const reverted = error instanceof BaseError ? error.walk((e) => e instanceof ContractFunctionRevertedError) : null;
      if (reverted instanceof ContractFunctionRevertedError) {
        if (reverted.raw !== undefined) {
          const decoded = decodeErrorResult({ abi: ERRORS, data: reverted.raw });
          return { errorName: decoded.errorName, args: decoded.args ?? [] };
        }
        if (reverted.data?.errorName !== undefined) return { errorName: reverted.data.errorName, args: reverted.data.args ?? [] };
      }
      throw error;
    }
    throw new Error('the call did not revert');
  }

  async function deployToken(abi: Abi, bytecode: Hex): Promise<Address> {
    const receipt = await mined(anvil.client.deployContract({ account: operator, abi, bytecode }));
    return receipt.contractAddress as Address;
  }

  async function balanceOf(asset: Address, account: Address): Promise<bigint> {
    return await anvil.client.readContract({ address: asset, abi: testStablecoinAbi, functionName: 'balanceOf', args: [account] });
  }

  /** A payer's real ERC-20 transfer (minted to the payer first). */
  async function pay(to: Address, amount: bigint, asset: Address = token): Promise<void> {
    await mined(anvil.client.writeContract({ account: payer, address: asset, abi: testStablecoinAbi, functionName: 'mint', args: [payer.address, amount] }));
    await mined(anvil.client.writeContract({ account: payer, address: asset, abi: testStablecoinAbi, functionName: 'transfer', args: [to, amount] }));
  }

  function sweep(factory: Address, t: ForwarderTerms, account = relayer) {
    return anvil.client.writeContract({ account, address: factory, abi: invoiceForwarderFactoryAbi, functionName: 'sweep', args: [t] });
  }

  function simulateSweep(factory: Address, t: ForwarderTerms, account = relayer) {
    return anvil.client.simulateContract({ account, address: factory, abi: invoiceForwarderFactoryAbi, functionName: 'sweep', args: [t] });
  }

  function recover(factory: Address, t: ForwarderTerms, asset: Address, account = operator) {
    return anvil.client.writeContract({ account, address: factory, abi: invoiceForwarderFactoryAbi, functionName: 'recover', args: [t, asset] });
  }

  function simulateRecover(factory: Address, t: ForwarderTerms, asset: Address, account = operator) {
    return anvil.client.simulateContract({ account, address: factory, abi: invoiceForwarderFactoryAbi, functionName: 'recover', args: [t, asset] });
  }

  async function settled(forwarder: Address): Promise<boolean> {
    return await anvil.client.readContract({ address: invoiceFactory, abi: invoiceForwarderFactoryAbi, functionName: 'settled', args: [forwarder] });
  }

  // ---- deployment and addresses ------------------------------------------------------------

  describe('deployment and address prediction', () => {
    it('deployContracts returns the catalogue fields; the owner defaults to the deployer', async () => {
      expect(deployed.chainId).toBe(31337);
      expect(deployed.owner).toBe(operator.address);
      expect(deployed.mainFactory).not.toBe(deployed.invoiceFactory);
      const receiptBlock = await anvil.client.getBlockNumber();
      expect(deployed.startBlock).toBeGreaterThan(0);
      expect(deployed.startBlock).toBeLessThanOrEqual(Number(receiptBlock));
      for (const factory of [depositFactory, invoiceFactory]) {
        const owner = await anvil.client.readContract({ address: factory, abi: depositForwarderFactoryAbi, functionName: 'owner' });
        expect(owner).toBe(operator.address);
        // The implementation is the factory's first creation, so TypeScript needs no RPC for it.
        const implementation = await anvil.client.readContract({ address: factory, abi: depositForwarderFactoryAbi, functionName: 'implementation' });
        expect(implementation).toBe(forwarderImplementationAddress(factory));
        const code = await anvil.client.getCode({ address: implementation });
        expect(code?.length ?? 0).toBeGreaterThan(2);
      }
    });

    it('both factories answer the fee wallet given to deployContracts, for the terms of new forwarders', async () => {
      const feeWallet = freshAddress();
      const other = await deployContracts({ rpcUrl: anvil.rpcUrl, privateKey: ANVIL_KEYS[0], feeWallet: feeWallet.toLowerCase() });
      expect(other.feeWallet).toBe(feeWallet);
      for (const factory of [other.mainFactory, other.invoiceFactory]) {
        expect(await readFactoryFeeWallet(anvil.client, factory)).toBe(feeWallet);
      }
      for (const factory of [depositFactory, invoiceFactory]) {
        expect(await readFactoryFeeWallet(anvil.client, factory)).toBe(deployed.feeWallet);
      }
      // A factory without a fee wallet cannot be deployed, even bypassing deployContracts.
      const zero = anvil.client.deployContract({ account: operator, abi: depositForwarderFactoryAbi, bytecode: depositForwarderFactoryBytecode, args: [operator.address, zeroAddress] });
      // A reverted deployment carries no ABI to decode with: match the error's selector.
      await expect(zero).rejects.toThrow(toFunctionSelector('ZeroFeeWallet()'));
    });

    it('deployContracts takes an explicit owner and refuses a zero fee wallet', async () => {
      const other = await deployContracts({ rpcUrl: anvil.rpcUrl, privateKey: ANVIL_KEYS[0], feeWallet: freshAddress(), owner: delegate.address.toLowerCase() });
      expect(other.owner).toBe(delegate.address);
      const owner = await anvil.client.readContract({ address: other.invoiceFactory, abi: invoiceForwarderFactoryAbi, functionName: 'owner' });
      expect(owner).toBe(delegate.address);
      await expect(deployContracts({ rpcUrl: anvil.rpcUrl, privateKey: ANVIL_KEYS[0], feeWallet: zeroAddress })).rejects.toThrow(/feeWallet/);
    });

    it('the TypeScript prediction equals predict() on chain and the deployed clone', async () => {
      const issuanceId = randomUUID();
      expect(issuanceTermsId(issuanceId)).toBe(keccak256(stringToBytes(issuanceId)));
      const t = terms({ id: issuanceTermsId(issuanceId), amount: usdc('100') });
      for (const factory of [depositFactory, invoiceFactory]) {
        const onChain = await anvil.client.readContract({ address: factory, abi: invoiceForwarderFactoryAbi, functionName: 'predict', args: [t] });
        expect(onChain).toBe(predictForwarderAddress(factory, t));
      }
      const forwarder = predictForwarderAddress(invoiceFactory, t);
      expect(await anvil.client.getCode({ address: forwarder })).toBeUndefined();
      await pay(forwarder, usdc('100'));
      const receipt = await mined(sweep(invoiceFactory, t));
      // The clone is the EIP-1167 runtime pointing at the implementation.
      expect(await anvil.client.getCode({ address: forwarder })).toBe(
        concat(['0x363d3d373d3d3d363d73', forwarderImplementationAddress(invoiceFactory).toLowerCase() as Hex, '0x5af43d82803e903d91602b57fd5bf3']),
      );
      const [swept] = parseEventLogs({ abi: invoiceForwarderFactoryAbi, eventName: 'Swept', logs: receipt.logs });
      expect(swept?.args).toEqual({ forwarder, token, toRecipient: usdc('99.5'), toOperator: usdc('0.5') });
    });

    it('every committed field changes the address: the same id with another recipient holds nothing', async () => {
      const t = terms({ amount: usdc('100') });
      const forwarder = predictForwarderAddress(invoiceFactory, t);
      await pay(forwarder, usdc('100'));
      const attackerTerms = { ...t, recipient: stranger.address };
      const attackerForwarder = predictForwarderAddress(invoiceFactory, attackerTerms);
      expect(attackerForwarder).not.toBe(forwarder);
      expect(await balanceOf(token, attackerForwarder)).toBe(0n);
      expect(await revertOf(simulateSweep(invoiceFactory, attackerTerms, stranger))).toBe('Underfunded');
      expect(await revertOf(simulateSweep(depositFactory, { ...attackerTerms, amount: 0n }, stranger))).toBe('NothingToSweep');
      const variants: Partial<ForwarderTerms>[] = [
        { feeWallet: stranger.address },
        { delegate: stranger.address },
        { amount: usdc('1') },
        { feeMin: 0n },
        { feeMax: 0n },
        { feeBps: 49 },
        { token: stranger.address },
      ];
      for (const variant of variants) {
        expect(forwarderSalt({ ...t, ...variant })).not.toBe(forwarderSalt(t));
        expect(predictForwarderAddress(invoiceFactory, { ...t, ...variant })).not.toBe(forwarder);
      }
      expect(await balanceOf(token, forwarder)).toBe(usdc('100'));
    });

    it('the forwarder moves funds only for its factory: a stranger calling it directly is refused', async () => {
      const t = terms({ amount: usdc('10') });
      const forwarder = predictForwarderAddress(invoiceFactory, t);
      await pay(forwarder, usdc('20'));
      await mined(sweep(invoiceFactory, t));
      await pay(forwarder, usdc('5'));
      const steal = anvil.client.simulateContract({ account: stranger, address: forwarder, abi: forwarderImplementationAbi, functionName: 'transferToken', args: [token, stranger.address, usdc('5')] });
      expect(await revertOf(steal)).toBe('OnlyFactory');
      const stealNative = anvil.client.simulateContract({ account: stranger, address: forwarder, abi: forwarderImplementationAbi, functionName: 'transferNative', args: [stranger.address, 0n] });
      expect(await revertOf(stealNative)).toBe('OnlyFactory');
      const implementation = forwarderImplementationAddress(invoiceFactory);
      const direct = anvil.client.simulateContract({ account: stranger, address: implementation, abi: forwarderImplementationAbi, functionName: 'transferToken', args: [token, stranger.address, 0n] });
      expect(await revertOf(direct)).toBe('OnlyFactory');
      expect(await balanceOf(token, forwarder)).toBe(usdc('5'));
    });
  });

  // ---- invoices ---------------------------------------------------------------------------------

  describe('invoices (LEDGER "Invoices")', () => {
    it('paid in two transfers (40, 60): recipient 99.5, operator 0.5, settled', async () => {
      const t = terms({ amount: usdc('100') });
      const forwarder = predictForwarderAddress(invoiceFactory, t);
      await pay(forwarder, usdc('40'));
      expect(await revertOf(simulateSweep(invoiceFactory, t))).toBe('Underfunded');
      await pay(forwarder, usdc('60'));
      const { result } = await simulateSweep(invoiceFactory, t);
      expect(result).toEqual([usdc('99.5'), usdc('0.5')]);
      await mined(sweep(invoiceFactory, t));
      expect(await balanceOf(token, t.recipient)).toBe(usdc('99.5'));
      expect(await balanceOf(token, t.feeWallet)).toBe(usdc('0.5'));
      expect(await balanceOf(token, forwarder)).toBe(0n);
      expect(await settled(forwarder)).toBe(true);
    });

    it('overpaid (130): the recipient gets exactly A − fee(A), the operator fee plus excess', async () => {
      const t = terms({ amount: usdc('100') });
      const forwarder = predictForwarderAddress(invoiceFactory, t);
      await pay(forwarder, usdc('130'));
      await mined(sweep(invoiceFactory, t, stranger));
      expect(await balanceOf(token, t.recipient)).toBe(usdc('99.5'));
      expect(await balanceOf(token, t.feeWallet)).toBe(usdc('30.5'));
      expect(await balanceOf(token, forwarder)).toBe(0n);
    });

    it('underfunded (40 of 100): the sweep reverts, nothing moves and no clone is left behind', async () => {
      const t = terms({ amount: usdc('100') });
      const forwarder = predictForwarderAddress(invoiceFactory, t);
      await pay(forwarder, usdc('40'));
      expect(await revertOf(sweep(invoiceFactory, t))).toBe('Underfunded');
      expect(await balanceOf(token, forwarder)).toBe(usdc('40'));
      expect(await anvil.client.getCode({ address: forwarder })).toBeUndefined();
      expect(await settled(forwarder)).toBe(false);
    });

    it('a settled invoice cannot be swept again, even after a late transfer', async () => {
      const t = terms({ amount: usdc('100') });
      const forwarder = predictForwarderAddress(invoiceFactory, t);
      await pay(forwarder, usdc('100'));
      await mined(sweep(invoiceFactory, t));
      await pay(forwarder, usdc('100'));
      expect(await revertOf(simulateSweep(invoiceFactory, t))).toBe('AlreadySettled');
      expect(await balanceOf(token, forwarder)).toBe(usdc('100'));
    });

    it('an invoice of amount 0 is refused', async () => {
      const t = terms({ amount: 0n });
      expect(await revertOf(simulateSweep(invoiceFactory, t))).toBe('ZeroAmount');
    });

    // LEDGER "Fees": each row is a test vector, checked on chain.
    it.each([
      { bps: 50, min: parseEther('0.1'), max: parseEther('5'), amount: '100', fee: '0.5', recipient: '99.5' },
      { bps: 50, min: parseEther('0.1'), max: parseEther('5'), amount: '10', fee: '0.1', recipient: '9.9' },
      { bps: 50, min: parseEther('0.1'), max: parseEther('5'), amount: '2000', fee: '5', recipient: '1995' },
      { bps: 33, min: 0n, max: 10n ** 30n, amount: '1.000001', fee: '0.0033', recipient: '0.996701' },
    ])('fee vector: $bps bps, A = $amount → fee $fee, recipient $recipient', async (row) => {
      const t = terms({ amount: usdc(row.amount), feeBps: row.bps, feeMin: toTokenUnits(row.min), feeMax: toTokenUnits(row.max) });
      const forwarder = predictForwarderAddress(invoiceFactory, t);
      await pay(forwarder, usdc(row.amount));
      await mined(sweep(invoiceFactory, t));
      expect(await balanceOf(token, t.recipient)).toBe(usdc(row.recipient));
      expect(await balanceOf(token, t.feeWallet)).toBe(usdc(row.fee));
    });

    it('the fee never exceeds the amount (0.05 USDC deposit against a 0.1 minimum)', async () => {
      const t = terms();
      const forwarder = predictForwarderAddress(depositFactory, t);
      await pay(forwarder, usdc('0.05'));
      await mined(sweep(depositFactory, t));
      expect(await balanceOf(token, t.recipient)).toBe(0n);
      expect(await balanceOf(token, t.feeWallet)).toBe(usdc('0.05'));
    });
  });

  // ---- deposits -----------------------------------------------------------------------------------

  describe('deposits (LEDGER "Deposits")', () => {
    it('several top-ups and two sweeps, each on the balance of the moment', async () => {
      const t = terms();
      const forwarder = predictForwarderAddress(depositFactory, t);
      expect(await revertOf(simulateSweep(depositFactory, t))).toBe('NothingToSweep');
      await pay(forwarder, usdc('30'));
      await pay(forwarder, usdc('20'));
      await mined(sweep(depositFactory, t));
      // B = 50: fee = max(0.25, 0.1) = 0.25.
      expect(await balanceOf(token, t.recipient)).toBe(usdc('49.75'));
      expect(await balanceOf(token, t.feeWallet)).toBe(usdc('0.25'));
      expect(await revertOf(simulateSweep(depositFactory, t))).toBe('NothingToSweep');
      await pay(forwarder, usdc('5'));
      await pay(forwarder, usdc('2000'));
      await mined(sweep(depositFactory, t, delegate));
      // B = 2005: fee = min(10.025, 5) = 5.
      expect(await balanceOf(token, t.recipient)).toBe(usdc('49.75') + usdc('2000'));
      expect(await balanceOf(token, t.feeWallet)).toBe(usdc('0.25') + usdc('5'));
      expect(await balanceOf(token, forwarder)).toBe(0n);
    });

    it('a committed minimum sweep (amount = 5): below it nobody can sweep, at or above it anybody can', async () => {
      const t = terms({ amount: usdc('5'), delegate: delegate.address });
      const forwarder = predictForwarderAddress(depositFactory, t);
      expect(await revertOf(simulateSweep(depositFactory, t))).toBe('NothingToSweep');
      await pay(forwarder, usdc('4.999999'));
      // Neither a stranger griefing with fees, nor the relayer, the delegate or the owner.
      for (const account of [stranger, relayer, delegate, operator]) {
        expect(await revertOf(simulateSweep(depositFactory, t, account))).toBe('BelowMinimumSweep');
      }
      expect(await revertWith(sweep(depositFactory, t, stranger))).toEqual({ errorName: 'BelowMinimumSweep', args: [usdc('4.999999'), usdc('5')] });
      expect(await balanceOf(token, forwarder)).toBe(usdc('4.999999'));
      expect(await anvil.client.getCode({ address: forwarder })).toBeUndefined();
      // Exactly the minimum: a stranger's sweep pays the merchant along the split.
      await pay(forwarder, usdc('0.000001'));
      await mined(sweep(depositFactory, t, stranger));
      expect(await balanceOf(token, t.recipient)).toBe(usdc('4.9'));
      expect(await balanceOf(token, t.feeWallet)).toBe(usdc('0.1'));
      // The minimum applies to every sweep of the deposit, not only the first.
      await pay(forwarder, usdc('1'));
      expect(await revertOf(simulateSweep(depositFactory, t, relayer))).toBe('BelowMinimumSweep');
      await pay(forwarder, usdc('9'));
      await mined(sweep(depositFactory, t, relayer));
      // B = 10: fee = max(0.05, 0.1) = 0.1.
      expect(await balanceOf(token, t.recipient)).toBe(usdc('4.9') + usdc('9.9'));
      expect(await balanceOf(token, t.feeWallet)).toBe(usdc('0.1') + usdc('0.1'));
      expect(await balanceOf(token, forwarder)).toBe(0n);
    });

    it('the minimum sweep is committed: other minimums name other, empty addresses', async () => {
      const t = terms({ amount: usdc('5') });
      const forwarder = predictForwarderAddress(depositFactory, t);
      await pay(forwarder, usdc('1'));
      const lowered = { ...t, amount: usdc('1') };
      expect(predictForwarderAddress(depositFactory, lowered)).not.toBe(forwarder);
      expect(await revertOf(simulateSweep(depositFactory, lowered, stranger))).toBe('NothingToSweep');
      expect(await revertOf(simulateSweep(depositFactory, t, stranger))).toBe('BelowMinimumSweep');
      expect(await balanceOf(token, forwarder)).toBe(usdc('1'));
    });
  });

  // ---- batches ------------------------------------------------------------------------------------

  describe('sweepBatch', () => {
    it('sweeps several invoices in one transaction', async () => {
      const batch = [terms({ amount: usdc('100') }), terms({ amount: usdc('10') }), terms({ amount: usdc('2000') })];
      for (const t of batch) await pay(predictForwarderAddress(invoiceFactory, t), t.amount);
      const receipt = await mined(
        anvil.client.writeContract({ account: relayer, address: invoiceFactory, abi: invoiceForwarderFactoryAbi, functionName: 'sweepBatch', args: [batch] }),
      );
      expect(parseEventLogs({ abi: invoiceForwarderFactoryAbi, eventName: 'Swept', logs: receipt.logs })).toHaveLength(3);
      expect(await Promise.all(batch.map((t) => balanceOf(token, t.recipient)))).toEqual([usdc('99.5'), usdc('9.9'), usdc('1995')]);
      expect(await Promise.all(batch.map((t) => settled(predictForwarderAddress(invoiceFactory, t))))).toEqual([true, true, true]);
    });

    it('is all-or-nothing: one underfunded invoice reverts the whole batch', async () => {
      const funded = terms({ amount: usdc('100') });
      const short = terms({ amount: usdc('100') });
      await pay(predictForwarderAddress(invoiceFactory, funded), usdc('100'));
      await pay(predictForwarderAddress(invoiceFactory, short), usdc('99'));
      const batch = anvil.client.writeContract({ account: relayer, address: invoiceFactory, abi: invoiceForwarderFactoryAbi, functionName: 'sweepBatch', args: [[funded, short]] });
      expect(await revertOf(batch)).toBe('Underfunded');
      expect(await balanceOf(token, funded.recipient)).toBe(0n);
      expect(await settled(predictForwarderAddress(invoiceFactory, funded))).toBe(false);
    });
  });

  // ---- recover ------------------------------------------------------------------------------------

  describe('recover', () => {
    it('a late transfer to a settled invoice: refused for a stranger, split by the owner', async () => {
      const t = terms({ amount: usdc('100') });
      const forwarder = predictForwarderAddress(invoiceFactory, t);
      await pay(forwarder, usdc('100'));
      await mined(sweep(invoiceFactory, t));
      await pay(forwarder, usdc('5'));
      expect(await revertOf(simulateRecover(invoiceFactory, t, token, stranger))).toBe('NotAuthorized');
      expect(await revertOf(simulateRecover(invoiceFactory, t, token, delegate))).toBe('NotAuthorized');
      const receipt = await mined(recover(invoiceFactory, t, token));
      // fee(5) = max(0.025, 0.1): the token's minimum applies.
      expect(await balanceOf(token, t.recipient)).toBe(usdc('99.5') + usdc('4.9'));
      expect(await balanceOf(token, t.feeWallet)).toBe(usdc('0.5') + usdc('0.1'));
      const [recovered] = parseEventLogs({ abi: invoiceForwarderFactoryAbi, eventName: 'Recovered', logs: receipt.logs });
      expect(recovered?.args).toEqual({ forwarder, asset: token, toRecipient: usdc('4.9'), toOperator: usdc('0.1') });
      expect(await revertOf(simulateRecover(invoiceFactory, t, token))).toBe('NothingToRecover');
    });

    it("the merchant's delegate can recover a late transfer without Ivory", async () => {
      const t = terms({ amount: usdc('100'), delegate: delegate.address });
      const forwarder = predictForwarderAddress(invoiceFactory, t);
      await pay(forwarder, usdc('100'));
      await mined(sweep(invoiceFactory, t, delegate));
      await pay(forwarder, usdc('50'));
      await mined(recover(invoiceFactory, t, token, delegate));
      expect(await balanceOf(token, t.recipient)).toBe(usdc('99.5') + usdc('49.75'));
      expect(await balanceOf(token, t.feeWallet)).toBe(usdc('0.5') + usdc('0.25'));
    });

    it('cannot bypass the invoice rule: the invoice token before settlement needs sweep', async () => {
      const t = terms({ amount: usdc('100'), delegate: delegate.address });
      const forwarder = predictForwarderAddress(invoiceFactory, t);
      await pay(forwarder, usdc('40'));
      expect(await revertOf(simulateRecover(invoiceFactory, t, token))).toBe('UseSweep');
      expect(await revertOf(simulateRecover(invoiceFactory, t, token, delegate))).toBe('UseSweep');
      await pay(forwarder, usdc('100'));
      expect(await revertOf(simulateRecover(invoiceFactory, t, token))).toBe('UseSweep');
    });

    it('native coin sent before the forwarder exists: owner and delegate recover it, a stranger cannot', async () => {
      const t = terms({ amount: usdc('100'), delegate: delegate.address });
      const forwarder = predictForwarderAddress(invoiceFactory, t);
      await mined(anvil.client.sendTransaction({ account: payer, to: forwarder, value: parseEther('1') }));
      expect(await revertOf(simulateRecover(invoiceFactory, t, zeroAddress, stranger))).toBe('NotAuthorized');
      await mined(recover(invoiceFactory, t, zeroAddress));
      // Native coin: bps only, the token's minimum and maximum are in other units.
      expect(await anvil.client.getBalance({ address: t.recipient })).toBe(parseEther('0.995'));
      expect(await anvil.client.getBalance({ address: t.feeWallet })).toBe(parseEther('0.005'));
      // Now deployed, the forwarder's receive() takes coin sent to it; the delegate recovers it.
      await mined(anvil.client.sendTransaction({ account: payer, to: forwarder, value: parseEther('2') }));
      await mined(recover(invoiceFactory, t, zeroAddress, delegate));
      expect(await anvil.client.getBalance({ address: t.recipient })).toBe(parseEther('0.995') + parseEther('1.99'));
      expect(await anvil.client.getBalance({ address: forwarder })).toBe(0n);
    });

    it('another token sent by mistake is split by bps only, without the minimum', async () => {
      const other = await deployToken(noReturnTokenAbi, noReturnTokenBytecode);
      const t = terms({ amount: usdc('100') });
      const forwarder = predictForwarderAddress(invoiceFactory, t);
      await mined(anvil.client.writeContract({ account: payer, address: other, abi: noReturnTokenAbi, functionName: 'mint', args: [forwarder, usdc('10')] }));
      await mined(recover(invoiceFactory, t, other));
      expect(await balanceOf(other, t.recipient)).toBe(usdc('9.95'));
      expect(await balanceOf(other, t.feeWallet)).toBe(usdc('0.05'));
      expect(await settled(forwarder)).toBe(false);
    });

    it('a deposit forwarder recovers its own token with min/max; the owner can hand over ownership', async () => {
      const fresh = await deployContracts({ rpcUrl: anvil.rpcUrl, privateKey: ANVIL_KEYS[0], feeWallet: freshAddress() });
      const t = terms();
      await pay(predictForwarderAddress(fresh.mainFactory, t), usdc('10'));
      const handOver = anvil.client.simulateContract({ account: stranger, address: fresh.mainFactory, abi: depositForwarderFactoryAbi, functionName: 'transferOwnership', args: [stranger.address] });
      expect(await revertOf(handOver)).toBe('NotOwner');
      await mined(anvil.client.writeContract({ account: operator, address: fresh.mainFactory, abi: depositForwarderFactoryAbi, functionName: 'transferOwnership', args: [delegate.address] }));
      expect(await revertOf(simulateRecover(fresh.mainFactory, t, token, operator))).toBe('NotAuthorized');
      await mined(recover(fresh.mainFactory, t, token, delegate));
      expect(await balanceOf(token, t.recipient)).toBe(usdc('9.9'));
      expect(await balanceOf(token, t.feeWallet)).toBe(usdc('0.1'));
    });
  });

  // ---- hostile and non-standard tokens ----------------------------------------------------------

  describe('hostile and non-standard tokens', () => {
    it('a re-entrant token cannot sweep an invoice twice', async () => {
      const reentrant = await deployToken(reentrantTokenAbi, reentrantTokenBytecode);
      const t = terms({ token: reentrant, amount: usdc('100') });
      const forwarder = predictForwarderAddress(invoiceFactory, t);
      await pay(forwarder, usdc('200'), reentrant);
      await mined(anvil.client.writeContract({ account: stranger, address: reentrant, abi: reentrantTokenAbi, functionName: 'arm', args: [invoiceFactory, 1, t] }));
      const receipt = await mined(sweep(invoiceFactory, t, stranger));
      expect(await anvil.client.readContract({ address: reentrant, abi: reentrantTokenAbi, functionName: 'attempted' })).toBe(true);
      expect(await anvil.client.readContract({ address: reentrant, abi: reentrantTokenAbi, functionName: 'reentrySucceeded' })).toBe(false);
      const data = await anvil.client.readContract({ address: reentrant, abi: reentrantTokenAbi, functionName: 'reentryRevertData' });
      expect(decodeErrorResult({ abi: ERRORS, data }).errorName).toBe('ReentrantCall');
      expect(parseEventLogs({ abi: invoiceForwarderFactoryAbi, eventName: 'Swept', logs: receipt.logs })).toHaveLength(1);
      expect(await balanceOf(reentrant, t.recipient)).toBe(usdc('99.5'));
      expect(await balanceOf(reentrant, t.feeWallet)).toBe(usdc('100.5'));
    });

    it('a re-entrant token cannot re-enter recover during a sweep, even as the delegate', async () => {
      const reentrant = await deployToken(reentrantTokenAbi, reentrantTokenBytecode);
      const t = terms({ token: reentrant, delegate: reentrant });
      const forwarder = predictForwarderAddress(depositFactory, t);
      await pay(forwarder, usdc('100'), reentrant);
      await mined(anvil.client.writeContract({ account: stranger, address: reentrant, abi: reentrantTokenAbi, functionName: 'arm', args: [depositFactory, 2, t] }));
      await mined(sweep(depositFactory, t, stranger));
      expect(await anvil.client.readContract({ address: reentrant, abi: reentrantTokenAbi, functionName: 'reentrySucceeded' })).toBe(false);
      const data = await anvil.client.readContract({ address: reentrant, abi: reentrantTokenAbi, functionName: 'reentryRevertData' });
      expect(decodeErrorResult({ abi: ERRORS, data }).errorName).toBe('ReentrantCall');
      expect(await balanceOf(reentrant, t.recipient)).toBe(usdc('99.5'));
      expect(await balanceOf(reentrant, t.feeWallet)).toBe(usdc('0.5'));
    });

    it('fee-on-transfer token: deposits sweep what arrived; an invoice paid in full arrives short', async () => {
      const burning = await deployToken(feeOnTransferTokenAbi, feeOnTransferTokenBytecode);
      const deposit = terms({ token: burning });
      const depositForwarder = predictForwarderAddress(depositFactory, deposit);
      await pay(depositForwarder, usdc('100'), burning);
      expect(await balanceOf(burning, depositForwarder)).toBe(usdc('99'));
      await mined(sweep(depositFactory, deposit));
      // Sent: 99 − 0.495 and 0.495; each arrives 1% short.
      expect(await balanceOf(burning, deposit.recipient)).toBe(usdc('98.505') - usdc('98.505') / 100n);
      expect(await balanceOf(burning, deposit.feeWallet)).toBe(usdc('0.495') - usdc('0.495') / 100n);
      expect(await balanceOf(burning, depositForwarder)).toBe(0n);

      const invoice = terms({ token: burning, amount: usdc('100') });
      await pay(predictForwarderAddress(invoiceFactory, invoice), usdc('100'), burning);
      expect(await revertOf(simulateSweep(invoiceFactory, invoice))).toBe('Underfunded');
    });

    it('a token whose transfer returns nothing (USDT style) is swept', async () => {
      const noReturn = await deployToken(noReturnTokenAbi, noReturnTokenBytecode);
      const t = terms({ token: noReturn, amount: usdc('100') });
      const forwarder = predictForwarderAddress(invoiceFactory, t);
      await mined(anvil.client.writeContract({ account: payer, address: noReturn, abi: noReturnTokenAbi, functionName: 'mint', args: [forwarder, usdc('100')] }));
      await mined(sweep(invoiceFactory, t));
      expect(await balanceOf(noReturn, t.recipient)).toBe(usdc('99.5'));
      expect(await balanceOf(noReturn, t.feeWallet)).toBe(usdc('0.5'));
    });

    it('a token whose transfer returns false makes the sweep revert, moving nothing', async () => {
      const falseReturn = await deployToken(falseReturnTokenAbi, falseReturnTokenBytecode);
      const t = terms({ token: falseReturn, amount: usdc('100') });
      const forwarder = predictForwarderAddress(invoiceFactory, t);
      await mined(anvil.client.writeContract({ account: payer, address: falseReturn, abi: falseReturnTokenAbi, functionName: 'mint', args: [forwarder, usdc('100')] }));
      await mined(anvil.client.writeContract({ account: payer, address: falseReturn, abi: falseReturnTokenAbi, functionName: 'setFrozen', args: [true] }));
      expect(await revertOf(sweep(invoiceFactory, t))).toBe('TokenTransferFailed');
      expect(await balanceOf(falseReturn, forwarder)).toBe(usdc('100'));
      expect(await settled(forwarder)).toBe(false);
      await mined(anvil.client.writeContract({ account: payer, address: falseReturn, abi: falseReturnTokenAbi, functionName: 'setFrozen', args: [false] }));
      await mined(sweep(invoiceFactory, t));
      expect(await balanceOf(falseReturn, t.recipient)).toBe(usdc('99.5'));
    });
  });

  // ---- gas ----------------------------------------------------------------------------------------

  // Worst case for the forwarder and the merchant (clone deployed, recipient's first tokens);
  // the operator's fee wallet already holds tokens, as it does after its first payout.
  describe('gas', () => {
    let feeWallet: Address;
    beforeAll(async () => {
      feeWallet = deployed.feeWallet;
      await pay(feeWallet, usdc('1'));
    });

    it('a single invoice sweep, deploying its forwarder', async ({ annotate }) => {
      const t = terms({ amount: usdc('100'), feeWallet });
      await pay(predictForwarderAddress(invoiceFactory, t), usdc('100'));
      const { gasUsed } = await mined(sweep(invoiceFactory, t));
      await annotate(`single invoice sweep with clone deployment: ${gasUsed} gas`, 'gas');
      expect(gasUsed).toBeLessThan(160_000n);
    });

    it('a batch of 10 invoice sweeps, each deploying its forwarder', async ({ annotate }) => {
      const batch = Array.from({ length: 10 }, () => terms({ amount: usdc('100'), feeWallet }));
      for (const t of batch) await pay(predictForwarderAddress(invoiceFactory, t), usdc('100'));
      const { gasUsed } = await mined(
        anvil.client.writeContract({ account: relayer, address: invoiceFactory, abi: invoiceForwarderFactoryAbi, functionName: 'sweepBatch', args: [batch] }),
      );
      await annotate(`batch of 10 invoice sweeps: ${gasUsed} gas, ${gasUsed / 10n} per sweep`, 'gas');
      expect(gasUsed / 10n).toBeLessThan(125_000n);
    });

    it('a deposit sweep at its committed minimum: the first deploys the forwarder, the next does not', async ({ annotate }) => {
      const t = terms({ amount: usdc('5'), feeWallet });
      const forwarder = predictForwarderAddress(depositFactory, t);
      await pay(forwarder, usdc('100'));
      const first = (await mined(sweep(depositFactory, t))).gasUsed;
      await pay(forwarder, usdc('100'));
      const next = (await mined(sweep(depositFactory, t))).gasUsed;
      await annotate(`deposit sweep: ${first} gas with clone deployment, ${next} gas afterwards`, 'gas');
      expect(first).toBeLessThan(160_000n);
      expect(next).toBeLessThan(80_000n);
    });
  });
});
