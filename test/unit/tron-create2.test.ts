import { keccak256, numberToHex, type Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import { tronHexAddress, tvmCreate2Address, tvmCreate2TronAddress } from '../../src/chains/tron/tron-create2.js';
import { addressCodec } from '../../src/chains/index.js';

// Issue 23 item 1: the TVM's CREATE2 address, computed off chain. The vectors are java-tron's
// Create2Test (framework/src/test/java/org/tron/common/runtime/vm/Create2Test.java): its
// `TestConstract` init code deployed by a factory with salt 100, the expected address being
// `WalletUtil.generateContractAddress2(deployer, DataWord(salt), code)` =
// keccak256(0x41-prefixed deployer ‖ 32-byte salt ‖ keccak256(code)), last 20 bytes.

const TEST_CONTRACT_CODE: Hex = ('0x' +
  '608060405234801561001057600080fd5b50d3801561001d57600080fd5b50d2801561002a57' +
  '600080fd5b5060d7806100396000396000f3fe608060405260043610602c5760003560e01c63ffffffff1680' +
  '6368e5c066146031578063e5aa3d5814606d575b600080fd5b348015603c57600080fd5b50d3801560485760' +
  '0080fd5b50d28015605457600080fd5b50605b6097565b60408051918252519081900360200190f35b348015' +
  '607857600080fd5b50d38015608457600080fd5b50d28015609057600080fd5b50605b60a5565b6000805460' +
  '01019081905590565b6000548156fea165627a7a72305820c637cddbfa24b6530000f2e54d90e0f6c1590783' +
  '5674109287f64303446f9afb0029') as Hex;
const SALT_100 = numberToHex(100n, { size: 32 });
/** A deployer (factory) account, as java-tron's tests write owners: 0x41 and 20 bytes. */
const FACTORY_HEX = '41abd4b9367799eaa3197fecb144eb71de1e049abc';

/** java-tron's rule, spelled out byte by byte from the hex strings: the independent reference. */
function generateContractAddress2(addressHex: string, saltHex: string, code: Hex): string {
  const merged = `0x${addressHex}${saltHex.slice(2)}${keccak256(code).slice(2)}` as Hex;
  return keccak256(merged).slice(-40);
}

describe('TVM CREATE2 addresses (issue 23 item 1, java-tron Create2Test)', () => {
  const factory = Buffer.from(FACTORY_HEX.slice(2), 'hex');
  const factoryT = addressCodec('tron').spellAddress(factory);

  it('salt 100, TestConstract: keccak256(0x41 ‖ factory ‖ salt ‖ keccak256(code)), last 20 bytes', () => {
    const computed = Buffer.from(tvmCreate2Address(factory, SALT_100, TEST_CONTRACT_CODE)).toString('hex');
    expect(computed).toBe(generateContractAddress2(FACTORY_HEX, SALT_100, TEST_CONTRACT_CODE));
  });

  it('differs from the EVM rule (0xff prefix) for the same inputs', () => {
    const evm = keccak256(`0xff${FACTORY_HEX.slice(2)}${SALT_100.slice(2)}${keccak256(TEST_CONTRACT_CODE).slice(2)}` as Hex).slice(-40);
    expect(Buffer.from(tvmCreate2Address(factory, SALT_100, TEST_CONTRACT_CODE)).toString('hex')).not.toBe(evm);
  });

  it('another salt or another code gives another address', () => {
    const base = tvmCreate2TronAddress(factoryT, SALT_100, TEST_CONTRACT_CODE);
    expect(tvmCreate2TronAddress(factoryT, numberToHex(101n, { size: 32 }), TEST_CONTRACT_CODE)).not.toBe(base);
    expect(tvmCreate2TronAddress(factoryT, SALT_100, `${TEST_CONTRACT_CODE}00` as Hex)).not.toBe(base);
  });

  it('shows as Base58Check with the 0x41 prefix (T…), and reads back to the same hex', () => {
    const address = tvmCreate2TronAddress(factoryT, SALT_100, TEST_CONTRACT_CODE);
    expect(address).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
    expect(addressCodec('tron').contractProblem(address)).toBeUndefined();
    expect(tronHexAddress(address)).toBe(`41${generateContractAddress2(FACTORY_HEX, SALT_100, TEST_CONTRACT_CODE)}`);
    expect(tronHexAddress(factoryT)).toBe(FACTORY_HEX);
  });

  it('refuses a deployer or salt of the wrong size', () => {
    expect(() => tvmCreate2Address(factory.subarray(1), SALT_100, TEST_CONTRACT_CODE)).toThrow(/20 bytes/);
    expect(() => tvmCreate2Address(factory, '0x64', TEST_CONTRACT_CODE)).toThrow(/32 bytes/);
  });
});
