import type { FacilitatorEvmSigner } from '@x402/evm';
import type { PublicClient } from 'viem';

type ReadArgs = Parameters<PublicClient['readContract']>[0];
type VerifyArgs = Parameters<PublicClient['verifyTypedData']>[0];

/**
 * The read side of an x402 facilitator over a node of the network, for `@x402/evm`'s `exact`
 * verification (signature, simulation, nonce and balance diagnosis). Writing is Ivory's relayer's
 * (`sendRelayerCall`): the two write methods throw, so verification can never send anything.
 */
export function readOnlyFacilitatorSigner(client: PublicClient): FacilitatorEvmSigner {
  const refuse = (): never => {
    throw new Error('x402 verification must not send transactions: settlement goes through the relayer');
  };
  return {
    // Only the library's `getSigners` (a facilitator's /supported answer) reads it; verification does not.
    getAddresses: () => [],
    // The library's arguments are viem's with looser static types (`readonly unknown[]` ABIs): same runtime shape.
    readContract: (args) => client.readContract(args as unknown as ReadArgs),
    verifyTypedData: (args) => client.verifyTypedData(args as unknown as VerifyArgs),
    writeContract: refuse,
    sendTransaction: refuse,
    waitForTransactionReceipt: (args) => client.waitForTransactionReceipt(args),
    getCode: (args) => client.getCode(args),
  };
}
