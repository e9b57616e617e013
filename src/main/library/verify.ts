/**
 * `bijotel-auditor/verify`: `verifyChain(path, { secrets, range })`, Python BIJOTEL's `verify_chain`
 * (reference §3.3) as the Auditor does it, and the verdict's types.
 *
 * @module bijotel-auditor/verify
 */
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
export type { ChainSecret, ChainSecrets } from './secrets'
export { AuditError, type AuditErrorCode } from '../base/errors'
