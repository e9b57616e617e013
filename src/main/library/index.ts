/**
 * The library entry (`bijotel-auditor`): the names of Python BIJOTEL's public API in TypeScript
 * style — seal (the writer), verify, analyse integrity, check replays. The subpath entries load less:
 * `bijotel-auditor/writer` only the writer, `/verify`, `/integrity` and `/replay` only their part.
 * This entry re-exports what they do (test/main/library/entries.test.ts holds it to their union),
 * from the modules themselves: an entry that imported another entry would make the bundler give
 * that entry's file extra, renamed exports. Nothing here imports Electron.
 *
 * @module bijotel-auditor
 */

// Writer (`bijotel-auditor/writer`).
export {
  BijotelChainSpanProcessor,
  defaultSpanFilter,
  type ChainSpanProcessorOptions,
  type SpanFilter,
} from '../writer/processor'
export {
  ChainWriter,
  appendEvent,
  type ChainWriterOptions,
  type EventOptions,
  type RowInput,
  type SealResult,
  type WriterMode,
} from '../writer/chain-writer'
export { canonicalize, canonicalBytes, CanonicalizationError } from '../chain/jcs'
export {
  canonicalizeSpan,
  spanToCanonicalDict,
  type CanonicalDict,
  type CanonicalSpan,
  type SpanRecord,
} from '../writer/canonical'
export { GENESIS, MIN_SECRET_BYTES } from '../chain/schema'
export {
  recordReplayContext,
  hashPrompt,
  type ReplayAttributes,
  type ReplayContextInput,
  type ReplayPrompt,
} from '../writer/replay-context'

// Verify (`bijotel-auditor/verify`).
export { verifyChain, type ChainRange, type VerifyChainOptions } from './verify-chain'
export type {
  VerifyVerdict,
  Finding,
  FindingKind,
  KeySegment,
  PriorHead,
  PriorCheck,
  PriorSource,
  VerifyBoundary,
  BoundaryKind,
  VerifyRangeInfo,
  VerifyRangeOptions,
} from '../../shared/verify-types'

export { recoverChain, type RecoverChainOptions } from './verify-chain'
export type {
  RecoveryResult,
  RecoveredRow,
  RecoveredStatus,
  RecoveredLink,
  LivePlace,
  RecoverySummary,
  RecoverySource,
  RecoverySourceKind,
  RecoveryFile,
  SeqOrigin,
} from '../../shared/recovery-types'
export type { RowsDigest, RowsDigestBlock } from '../../shared/custody-types'

// Integrity (`bijotel-auditor/integrity`).
export {
  analyzeChainIntegrity,
  runChainIntegrity,
  ChainIntegrityMonitor,
  type IntegrityOptions,
} from './integrity-monitor'
export { reportJson as integrityReportJson } from '../integrity/report'
export { integrityText } from '../integrity/text'
export { DEFAULT_THRESHOLDS, DEFAULT_WINDOW, MIN_WINDOW, MAX_WINDOW } from '../integrity/thresholds'
export type {
  IntegrityReport,
  IntegrityRun,
  IntegrityThresholds,
  SequenceGap,
  TimestampAnomaly,
  HashAnomaly,
  ProviderShift,
  ProviderShiftEntry,
  SameSpellingShift,
  RateAnomaly,
  RotationBoundary,
} from '../../shared/integrity-types'

// Replay (`bijotel-auditor/replay`; recordReplayContext is with the writer).
export { checkChainReplay, type ChainReplayOptions } from './chain-replay'
export { verifyReplay } from '../replay/verifier'
export type { ReplayResult, ReplayCheck, ReplayTextMode } from '../../shared/replay-types'

// Shared.
export type { ChainSecret, ChainSecrets } from './secrets'
export { AuditError, type AuditErrorCode } from '../base/errors'
