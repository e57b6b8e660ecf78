import { TronWeb, utils } from 'tronweb';
import { describe, expect, it } from 'vitest';
import { broadcastBody, checkTrigger, decodeTrigger, signTransactionId, transactionId, TronTransactionRefused } from '../../src/chains/tron/tron-transaction.js';

// Issue 23 item 3: a transaction built by the node is decoded and checked against what Ivory
// asked for before it is signed; the vectors are encoded by the official SDK (tronweb).

const PRIVATE_KEY = '4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318';
const OWNER = TronWeb.address.toHex(TronWeb.address.fromPrivateKey(PRIVATE_KEY) as string).toLowerCase();
const CONTRACT = `41${'bb'.repeat(20)}`;
const DATA = `4340dc15${'00'.repeat(64)}`;
const NOW = 1_700_000_000_000n;

type ContractJson = { parameter: { value: Record<string, unknown>; type_url: string }; type: string; Permission_id?: number };

function transaction(overrides: { value?: Record<string, unknown>; raw?: Record<string, unknown>; contract?: Partial<ContractJson>; twoContracts?: boolean } = {}) {
  const contract: ContractJson = {
    parameter: { value: { data: DATA, owner_address: OWNER, contract_address: CONTRACT, ...overrides.value }, type_url: 'type.googleapis.com/protocol.TriggerSmartContract' },
    type: 'TriggerSmartContract',
    ...overrides.contract,
  };
  const raw_data = {
    contract: [contract],
    ref_block_bytes: '1234',
    ref_block_hash: '0011223344556677',
    expiration: Number(NOW + 60_000n),
    fee_limit: 100_000_000,
    timestamp: Number(NOW),
    ...overrides.raw,
  };
  const pb = utils.transaction.txJsonToPb({ visible: false, raw_data } as never);
  let rawDataHex = utils.transaction.txPbToRawDataHex(pb).toLowerCase();
  if (overrides.twoContracts === true) {
    // The SDK encodes only the first contract; a raw data of nothing but the contract is its field's bytes.
    rawDataHex += utils.transaction.txPbToRawDataHex(utils.transaction.txJsonToPb({ visible: false, raw_data: { contract: [contract] } } as never)).toLowerCase();
  }
  return { raw_data, rawDataHex, txId: utils.transaction.txPbToTxID(pb).replace(/^0x/, '') };
}

const request = { owner: OWNER, contract: CONTRACT, data: `0x${DATA}`, feeLimit: 100_000_000n };

describe('Tron transactions built by the node (issue 23 item 3)', () => {
  it('decodes the SDK-encoded raw data and computes its transaction id', () => {
    const { rawDataHex, txId } = transaction();
    expect(transactionId(rawDataHex)).toBe(txId);
    expect(decodeTrigger(rawDataHex)).toEqual({
      refBlockBytes: '1234',
      refBlockHash: '0011223344556677',
      expiration: NOW + 60_000n,
      timestamp: NOW,
      feeLimit: 100_000_000n,
      owner: OWNER,
      contract: CONTRACT,
      data: DATA,
    });
    expect(checkTrigger(rawDataHex, request, NOW).owner).toBe(OWNER);
  });

  it.each([
    ['another owner (a lying node)', { value: { owner_address: `41${'cc'.repeat(20)}` } }],
    ['another contract', { value: { contract_address: `41${'cc'.repeat(20)}` } }],
    ['other call data', { value: { data: `a9059cbb${'00'.repeat(64)}` } }],
    ['TRX sent along', { value: { call_value: 1 } }],
    ['a TRC-10 token sent along', { value: { call_token_value: 5, token_id: 1000001 } }],
    ['another fee limit', { raw: { fee_limit: 15_000_000_000 } }],
    ['an expired transaction', { raw: { expiration: Number(NOW - 1n) } }],
    ['an expiration more than a day ahead', { raw: { expiration: Number(NOW + 86_400_001n) } }],
    ['two calls in one transaction', { twoContracts: true }],
    ['another permission (a multi-signature account)', { contract: { Permission_id: 2 } }],
    ['a memo', { raw: { data: '6869' } }],
    ['a TRX transfer instead of a call', { contract: { type: 'TransferContract', parameter: { value: { owner_address: OWNER, to_address: CONTRACT, amount: 1 }, type_url: 'type.googleapis.com/protocol.TransferContract' } } }],
  ])('refuses %s', (_name, overrides) => {
    const { rawDataHex } = transaction(overrides as Parameters<typeof transaction>[0]);
    expect(() => checkTrigger(rawDataHex, request, NOW)).toThrow(TronTransactionRefused);
  });

  it('refuses bytes that are not a transaction', () => {
    expect(() => decodeTrigger('zz')).toThrow(TronTransactionRefused);
    expect(() => decodeTrigger('0a05')).toThrow(TronTransactionRefused);
  });

  it('signs the transaction id as tronweb does, and broadcasts JSON that encodes to the signed bytes', async () => {
    const { raw_data, rawDataHex, txId } = transaction();
    const tronWeb = new TronWeb({ fullHost: 'http://127.0.0.1:9' });
    const signed = (await tronWeb.trx.sign({ visible: false, txID: txId, raw_data, raw_data_hex: rawDataHex } as never, PRIVATE_KEY, false, false)) as unknown as { signature: string[] };
    const ours = signTransactionId(txId, PRIVATE_KEY);
    expect(ours).toBe(signed.signature[0]?.toLowerCase());

    const body = broadcastBody(rawDataHex, ours) as { txID: string; raw_data: object; signature: string[] };
    expect(body.txID).toBe(txId);
    expect(body.signature).toEqual([ours]);
    const reencoded = utils.transaction.txPbToRawDataHex(utils.transaction.txJsonToPb({ visible: false, raw_data: body.raw_data } as never)).toLowerCase();
    expect(reencoded).toBe(rawDataHex);
  });
});
