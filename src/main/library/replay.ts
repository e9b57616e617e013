/**
 * `bijotel-auditor/replay`: replay verification (reference §6) — `recordReplayContext`,
 * `verifyReplay`, `ReplayResult` — and `checkChainReplay` for a row of a chain.db.
 *
 * @module bijotel-auditor/replay
 */
export { checkChainReplay, type ChainReplayOptions } from './chain-replay'

export {
  recordReplayContext,
  hashPrompt,
  type ReplayAttributes,
  type ReplayContextInput,
  type ReplayPrompt,
} from '../writer/replay-context'
export { verifyReplay } from '../replay/verifier'
export type { ReplayResult, ReplayCheck, ReplayTextMode } from '../../shared/replay-types'
export type { ChainSecret, ChainSecrets } from './secrets'
export { AuditError, type AuditErrorCode } from '../base/errors'
