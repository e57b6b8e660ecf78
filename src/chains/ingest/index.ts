/**
 * The family-neutral ingest pipeline (ARCHITECTURE "Chains"): a source per
 * family reads transfers; this module keeps the compare-and-set cursor and
 * the transfer inbox with its due flag, and tells the ledger in batches.
 */
export { commitScan, type ScanCommit } from './commit-scan.js';
export {
  confirmTransfers,
  listIssuanceChainTransfers,
  listTransfersAbove,
  markVanished,
  moveTransfer,
  upsertTransfers,
  type WatchedTransfer,
} from './inbox.repository.js';
export type { InboxStatus, IngestTables, LedgerStatus } from './ingest.schema.js';
export { readAhead } from './read-ahead.js';
export { readScanLags } from './scan-lag.repository.js';
export { claimScanCommit, ensureScanCursor, findScanCursor, moveScanCursor, scanStatus, type ScanCursor } from './scan-cursor.repository.js';
export { missingSteps, tellLedger, type TellLedgerDeps } from './tell-ledger.js';
export { instructionPosition, type AddressSignatureSource, type BlockRangeSource, type SourceRange, type TransferSource } from './transfer-source.js';
export { advanceRescan, findRescan, listRescans, type Rescan } from './rescan.repository.js';
export { requestRescan } from './request-rescan.js';
export { BlockRangeScan, type BlockRangeScanDeps } from './block-range-scan.js';
export { addressSignaturePass, type AddressSignatureScanDeps } from './address-signature-scan.js';
