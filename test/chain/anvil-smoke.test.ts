import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnvil, type Anvil } from '../support/anvil.js';

describe('anvil test node', () => {
  let anvil: Anvil;
  beforeAll(async () => {
    anvil = await startAnvil();
  });
  afterAll(async () => {
    await anvil.stop();
  });

  it('answers JSON-RPC and mines on demand', async () => {
    expect(await anvil.client.getChainId()).toBe(31337);
    const before = await anvil.client.getBlockNumber();
    await anvil.client.mine({ blocks: 3 });
    expect(await anvil.client.getBlockNumber()).toBe(before + 3n);
  });
});
