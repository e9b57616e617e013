/**
 * `bijotel-auditor/integrity`: the integrity monitor (reference §5), `analyzeChainIntegrity` and
 * `ChainIntegrityMonitor`, with the report's types and its Python-exact JSON.
 *
 * @module bijotel-auditor/integrity
 */
export {
  analyzeChainIntegrity,
  runChainIntegrity,
  ChainIntegrityMonitor,
  type IntegrityOptions,
} from './integrity-monitor'

/** The report as one line of JSON, byte for byte Python's `integrity --json`. */
export { reportJson as integrityReportJson } from '../integrity/report'
/** The run as `bijotel integrity` prints it. */
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
export type { ChainSecret, ChainSecrets } from './secrets'
export { AuditError, type AuditErrorCode } from '../base/errors'
