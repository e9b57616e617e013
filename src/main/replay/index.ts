// Replay verification as a library (reference §6, plus the row and prompt checks of §11.7).
export {
  recordReplayContext,
  hashPrompt,
  type ReplayAttributes,
  type ReplayContextInput,
  type ReplayPrompt,
} from '../writer/replay-context'
export {
  verifyReplay,
  entryOf,
  reasonDeterministic,
  REASON_NO_METADATA,
  REASON_NOT_DETERMINISTIC,
} from './verifier'
export {
  MAX_REPLAY_FILE_BYTES,
  decodeReplayBytes,
  firstInvalidUtf8,
  readReplayFile,
  textInput,
  universalNewlines,
  type ReplayInput,
} from './text'
export {
  checkReplay,
  checkReplayInput,
  checkPrompt,
  verifyRow,
  readBody,
  requestInput,
  type PromptCheck,
  type ReplayCheckInput,
  type RowVerification,
} from './check'
export type { ReplayCheck, ReplayCheckRequest, ReplayResult, ReplayTextMode } from '../../shared/replay-types'
