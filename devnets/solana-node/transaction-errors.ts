// litesvm's transaction errors in the JSON shape Solana's RPC gives them (serde of
// `TransactionError`): a bare string for a fieldless error, `{ "InstructionError": [index,
// "InvalidArgument" | { "Custom": code }] }`, `{ "InsufficientFundsForRent": { "account_index": i } }`.

import type { FailedTransactionMetadata } from 'litesvm';

export type SolanaTransactionError = string | Record<string, unknown>;

// The order of litesvm's `TransactionErrorFieldless` and `InstructionErrorFieldless` const enums (1.5.0).
const TRANSACTION_ERRORS = [
  'AccountInUse', 'AccountLoadedTwice', 'AccountNotFound', 'ProgramAccountNotFound', 'InsufficientFundsForFee',
  'InvalidAccountForFee', 'AlreadyProcessed', 'BlockhashNotFound', 'CallChainTooDeep', 'MissingSignatureForFee',
  'InvalidAccountIndex', 'SignatureFailure', 'InvalidProgramForExecution', 'SanitizeFailure', 'ClusterMaintenance',
  'AccountBorrowOutstanding', 'WouldExceedMaxBlockCostLimit', 'UnsupportedVersion', 'InvalidWritableAccount',
  'WouldExceedMaxAccountCostLimit', 'WouldExceedAccountDataBlockLimit', 'TooManyAccountLocks',
  'AddressLookupTableNotFound', 'InvalidAddressLookupTableOwner', 'InvalidAddressLookupTableData',
  'InvalidAddressLookupTableIndex', 'InvalidRentPayingAccount', 'WouldExceedMaxVoteCostLimit',
  'WouldExceedAccountDataTotalLimit', 'MaxLoadedAccountsDataSizeExceeded', 'ResanitizationNeeded',
  'InvalidLoadedAccountsDataSizeLimit', 'UnbalancedTransaction', 'ProgramCacheHitMaxLimit', 'CommitCancelled',
];
const INSTRUCTION_ERRORS = [
  'GenericError', 'InvalidArgument', 'InvalidInstructionData', 'InvalidAccountData', 'AccountDataTooSmall',
  'InsufficientFunds', 'IncorrectProgramId', 'MissingRequiredSignature', 'AccountAlreadyInitialized',
  'UninitializedAccount', 'UnbalancedInstruction', 'ModifiedProgramId', 'ExternalAccountLamportSpend',
  'ExternalAccountDataModified', 'ReadonlyLamportChange', 'ReadonlyDataModified', 'DuplicateAccountIndex',
  'ExecutableModified', 'RentEpochModified', 'NotEnoughAccountKeys', 'AccountDataSizeChanged', 'AccountNotExecutable',
  'AccountBorrowFailed', 'AccountBorrowOutstanding', 'DuplicateAccountOutOfSync', 'InvalidError',
  'ExecutableDataModified', 'ExecutableLamportChange', 'ExecutableAccountNotRentExempt', 'UnsupportedProgramId',
  'CallDepth', 'MissingAccount', 'ReentrancyNotAllowed', 'MaxSeedLengthExceeded', 'InvalidSeeds', 'InvalidRealloc',
  'ComputationalBudgetExceeded', 'PrivilegeEscalation', 'ProgramEnvironmentSetupFailure', 'ProgramFailedToComplete',
  'ProgramFailedToCompile', 'Immutable', 'IncorrectAuthority', 'AccountNotRentExempt', 'InvalidAccountOwner',
  'ArithmeticOverflow', 'UnsupportedSysvar', 'IllegalOwner', 'MaxAccountsDataAllocationsExceeded',
  'MaxAccountsExceeded', 'MaxInstructionTraceLengthExceeded', 'BuiltinProgramsMustConsumeComputeUnits',
];

// Solana's Display texts for the errors a client of this node meets; the rest fall back to their names.
const TRANSACTION_ERROR_TEXTS: Record<string, string> = {
  AccountNotFound: 'Attempt to debit an account but found no record of a prior credit.',
  InsufficientFundsForFee: 'Insufficient funds for fee',
  AlreadyProcessed: 'This transaction has already been processed',
  BlockhashNotFound: 'Blockhash not found',
  SignatureFailure: 'Transaction did not pass signature verification',
};

type LitesvmError = ReturnType<FailedTransactionMetadata['err']>;

function instructionError(error: unknown): unknown {
  if (typeof error === 'number') return INSTRUCTION_ERRORS[error] ?? 'GenericError';
  if (typeof error === 'object' && error !== null && 'code' in error) return { Custom: Number(error.code) };
  if (typeof error === 'object' && error !== null && 'msg' in error) return { BorshIoError: String(error.msg) };
  return 'GenericError';
}

export function toSolanaError(error: LitesvmError): SolanaTransactionError {
  if (typeof error === 'number') return TRANSACTION_ERRORS[error] ?? 'SanitizeFailure';
  const kind = error.constructor.name;
  if ('err' in error && typeof error.err === 'function') return { InstructionError: [error.index, instructionError(error.err())] };
  if (kind.endsWith('DuplicateInstruction') && 'index' in error) return { DuplicateInstruction: error.index };
  if ('accountIndex' in error) {
    const name = kind.endsWith('ProgramExecutionTemporarilyRestricted') ? 'ProgramExecutionTemporarilyRestricted' : 'InsufficientFundsForRent';
    return { [name]: { account_index: error.accountIndex } };
  }
  return 'SanitizeFailure';
}

/** A transaction error as Solana words it in a failed preflight's message. */
export function describeError(error: SolanaTransactionError): string {
  if (typeof error === 'string') return TRANSACTION_ERROR_TEXTS[error] ?? error;
  const instruction = error.InstructionError;
  if (Array.isArray(instruction)) {
    const [index, cause] = instruction as [number, unknown];
    const text = typeof cause === 'object' && cause !== null && 'Custom' in cause
      ? `custom program error: 0x${Number((cause as { Custom: number }).Custom).toString(16)}`
      : String(cause);
    return `Error processing Instruction ${index}: ${text}`;
  }
  return JSON.stringify(error);
}

/** Errors that stop a transaction before it is charged: it never lands in a block. */
export function landsWith(error: SolanaTransactionError): boolean {
  return typeof error !== 'string';
}
