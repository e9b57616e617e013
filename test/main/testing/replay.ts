// Replay verification as a library (reference §6, plus the row and prompt checks of §11.7).
export {
  recordReplayContext,
  hashPrompt,
  type ReplayAttributes,
  type ReplayContextInput,
  type ReplayPrompt,
} from '../../../src/main/writer/replay-context'
export {
  verifyReplay,
  entryOf,
  reasonDeterministic,
  REASON_NO_METADATA,
  REASON_NOT_DETERMINISTIC,
} from '../../../src/main/replay/verifier'
export {
  MAX_REPLAY_FILE_BYTES,
  decodeReplayBytes,
  firstInvalidUtf8,
  readReplayFile,
  textInput,
  universalNewlines,
  type ReplayInput,
} from '../../../src/main/replay/text'
export {
  checkReplay,
  checkReplayInput,
  checkPrompt,
  verifyRow,
  replayBodyAt,
  requestInput,
  type PromptCheck,
  type ReplayCheckInput,
  type RowVerification,
} from '../../../src/main/replay/check'
export type {
  ReplayCheck,
  ReplayCheckRequest,
  ReplayResult,
  ReplayTextMode,
} from '../../../src/shared/replay-types'
