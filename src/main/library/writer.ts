/**
 * The writer-only entry (`bijotel-auditor/writer`): what a service needs to seal its LLM calls into
 * a BIJOTEL chain, as Python's HmacChainSpanProcessor and `append_event` do (reference §1–2), and
 * the replay attributes to put on each call's span (§6.1). It loads the writer, JCS and SQLite
 * driver only — not the reading layer, the verifier's workers, React or the app — so a service pays
 * nothing for the auditor's side.
 *
 * @module bijotel-auditor/writer
 */
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
export { AuditError, type AuditErrorCode } from '../base/errors'
