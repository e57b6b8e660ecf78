import { ed25519 } from '@noble/curves/ed25519';
import { describe, expect, it } from 'vitest';
import { derivePath, deriveDepositKey, hardenedChild, masterKey } from '../../src/chains/solana/deposit-keys.js';

// Issue 24 item 1: a deposit key per issuance, SLIP-0010 ed25519 (hardened) from the deposit
// seed, at m/44'/501'/<index>'/0'. The vectors are SLIP-0010's own for ed25519.

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const bytes = (text: string) => Uint8Array.from(Buffer.from(text, 'hex'));

const VECTORS = [
  {
    name: 'test vector 1 for ed25519',
    seed: '000102030405060708090a0b0c0d0e0f',
    masterPublicKey: 'a4b2856bfec510abab89753fac1ac0e1112364e7d250545963f135f2a33188ed',
    chains: [
      { path: [], chainCode: '90046a93de5380a72b5e45010748567d5ea02bbf6522f979e05c0d8d8ca9fffb', privateKey: '2b4be7f19ee27bbf30c667b642d5f4aa69fd169872f8fc3059c08ebae2eb19e7' },
      { path: [0], chainCode: '8b59aa11380b624e81507a27fedda59fea6d0b779a778918a2fd3590e16e9c69', privateKey: '68e0fe46dfb67e368c75379acec591dad19df3cde26e63b93a8e704f1dade7a3' },
      { path: [0, 1], chainCode: 'a320425f77d1b5c2505a6b1b27382b37368ee640e3557c315416801243552f14', privateKey: 'b1d0bad404bf35da785a64ca1ac54b2617211d2777696fbffaf208f746ae84f2' },
      { path: [0, 1, 2], chainCode: '2e69929e00b5ab250f49c3fb1c12f252de4fed2c1db88387094a0f8c4c9ccd6c', privateKey: '92a5b23c0b8a99e37d07df3fb9966917f5d06e02ddbd909c7e184371463e9fc9' },
      { path: [0, 1, 2, 2], chainCode: '8f6d87f93d750e0efccda017d662a1b31a266e4a6f5993b15f5c1f07f74dd5cc', privateKey: '30d1dc7e5fc04c31219ab25a27ae00b50f6fd66622f6e9c913253d6511d1e662' },
      { path: [0, 1, 2, 2, 1000000000], chainCode: '68789923a0cac2cd5a29172a475fe9e0fb14cd6adb5ad98a3fa70333e7afa230', privateKey: '8f94d394a8e8fd6b1bc2f3f49f5c47e385281d5c17e65324b0f62483e37e8793' },
    ],
  },
  {
    name: 'test vector 2 for ed25519',
    seed: 'fffcf9f6f3f0edeae7e4e1dedbd8d5d2cfccc9c6c3c0bdbab7b4b1aeaba8a5a29f9c999693908d8a8784817e7b7875726f6c696663605d5a5754514e4b484542',
    masterPublicKey: '8fe9693f8fa62a4305a140b9764c5ee01e455963744fe18204b4fb948249308a',
    chains: [
      { path: [], chainCode: 'ef70a74db9c3a5af931b5fe73ed8e1a53464133654fd55e7a66f8570b8e33c3b', privateKey: '171cb88b1b3c1db25add599712e36245d75bc65a1a5c9e18d76f9f2b1eab4012' },
      { path: [0], chainCode: '0b78a3226f915c082bf118f83618a618ab6dec793752624cbeb622acb562862d', privateKey: '1559eb2bbec5790b0c65d8693e4d0875b1747f4970ae8b650486ed7470845635' },
      { path: [0, 2147483647], chainCode: '138f0b2551bcafeca6ff2aa88ba8ed0ed8de070841f0c4ef0165df8181eaad7f', privateKey: 'ea4f5bfe8694d8bb74b7b59404632fd5968b774ed545e810de9c32a4fb4192f4' },
      { path: [0, 2147483647, 1], chainCode: '73bd9fff1cfbde33a1b846c27085f711c0fe2d66fd32e139d3ebc28e5a4a6b90', privateKey: '3757c7577170179c7868353ada796c839135b3d30554bbb74a4b1e4a5a58505c' },
      { path: [0, 2147483647, 1, 2147483646], chainCode: '0902fe8a29f9140480a00ef244bd183e8a13288e4412d8389d140aac1794825a', privateKey: '5837736c89570de861ebc173b1086da4f505d4adb387c6a1b1342d5e4ac9ec72' },
      { path: [0, 2147483647, 1, 2147483646, 2], chainCode: '5d70af781f3a37b829f0d060924d5e960bdc02e85423494afc0b1a41bbe196d4', privateKey: '551d333177df541ad876a60ea71f00447931c0a9da16f227c11ea080d7391b8d' },
    ],
  },
];

describe('SLIP-0010 ed25519 derivation', () => {
  for (const vector of VECTORS) {
    it.each(vector.chains.map((chain) => [`m${chain.path.map((index) => `/${index}'`).join('')}`, chain] as const))(`${vector.name}: %s`, (_path, chain) => {
      const key = derivePath(bytes(vector.seed), chain.path);
      expect(hex(key.chainCode)).toBe(chain.chainCode);
      expect(hex(key.privateKey)).toBe(chain.privateKey);
    });

    it(`${vector.name}: the master public key`, () => {
      expect(hex(ed25519.getPublicKey(masterKey(bytes(vector.seed)).privateKey))).toBe(vector.masterPublicKey);
    });
  }

  it('refuses a seed outside 16–64 bytes and an index at or past 2^31 (those are bugs, not outcomes)', () => {
    expect(() => masterKey(new Uint8Array(15))).toThrow(RangeError);
    expect(() => masterKey(new Uint8Array(65))).toThrow(RangeError);
    expect(() => hardenedChild(masterKey(new Uint8Array(32)), 2 ** 31)).toThrow(RangeError);
    expect(() => hardenedChild(masterKey(new Uint8Array(32)), -1)).toThrow(RangeError);
  });
});

describe('deposit keys', () => {
  const seed = bytes('000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f');

  it("derive at m/44'/501'/<index>'/0', the Solana wallet path, and name the base58 public key", () => {
    const key = deriveDepositKey(seed, 7);
    expect(key.privateKey).toEqual(derivePath(seed, [44, 501, 7, 0]).privateKey);
    expect(key.publicKey).toEqual(ed25519.getPublicKey(key.privateKey));
    expect(key.address).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    const message = new TextEncoder().encode('sweep');
    expect(ed25519.verify(ed25519.sign(message, key.privateKey), message, key.publicKey)).toBe(true);
  });

  it('give each index its own key, the same one every time, and a 64-byte seed works as well', () => {
    const addresses = [0, 1, 2, 1000].map((index) => deriveDepositKey(seed, index).address);
    expect(new Set(addresses).size).toBe(4);
    expect(deriveDepositKey(seed, 1).address).toBe(addresses[1]);
    const long = new Uint8Array(64).fill(9);
    expect(deriveDepositKey(long, 0).address).not.toBe(deriveDepositKey(long.subarray(0, 32), 0).address);
  });
});
