// The BIJOTEL chain writer as a library: JCS, canonical span bodies, sealing, the OTel processor and
// the demo generator.
export { canonicalize, canonicalBytes, CanonicalizationError } from '../../../src/main/chain/jcs'
export {
  spanToCanonicalDict,
  spanToSemanticDict,
  semanticOfCanonical,
  canonicalizeSpan,
  semanticBodyHash,
  spanRecordOf,
  hrTimeToNs,
  parseIfJsonAttr,
  JSON_STRINGIFIED_ATTRS,
  SEMANTIC_EXCLUDE_ATTRS,
  SEMANTIC_EXCLUDE_TOP_LEVEL,
  type CanonicalDict,
  type CanonicalSpan,
  type SemanticDict,
  type SpanRecord,
} from '../../../src/main/writer/canonical'
export {
  ChainWriter,
  appendEvent,
  checkSecret,
  nowNs,
  type ChainWriterOptions,
  type EventOptions,
  type RowInput,
  type SealResult,
  type WriterMode,
} from '../../../src/main/writer/chain-writer'
export {
  BijotelChainSpanProcessor,
  defaultSpanFilter,
  type ChainSpanProcessorOptions,
  type SpanFilter,
} from '../../../src/main/writer/processor'
export {
  CHAIN_TABLE_DDL,
  STORED_SCHEMA,
  GENESIS,
  BUSY_TIMEOUT_MS,
  DB_FILE_MODE,
  MIN_SECRET_BYTES,
  initChainSchema,
} from '../../../src/main/chain/schema'
export {
  pyJsonLoads,
  pyJsonDumpsSorted,
  pyFloatRepr,
  compareCodePoints,
  PyJsonDecodeError,
} from '../../../src/main/python/pyformat'
export { pyRepr, pyReprStr } from '../../../src/main/python/repr'
export {
  writeDemoChain,
  DemoGenerator,
  demoBodies,
  Prng,
  DEMO_SECRET_HEX,
  DEMO_ROTATED_SECRET_HEX,
  DEMO_DEFAULT_SEED,
  DEMO_START_NS,
  type DemoOptions,
  type DemoResult,
  type DemoRow,
  type DemoRowInfo,
} from '../../../src/main/writer/demo'
