// Test kit: the files of a plain Node project that uses the packed bijotel-auditor as a TypeScript
// service would (pack-install.test.ts installs the tarball and the OpenTelemetry SDK into it). Kept
// as text here, not as files of the repo: they import the installed package, which only exists in
// that temporary project.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'

/** Spans sealed by seal.mjs (each with replay context), and one that the filter must skip. */
export const SEALED_SPANS = 6

/**
 * seal.mjs CHAIN SECRET_HEX OUT_JSON — ESM, the writer-only subpath: spans ended on a
 * BasicTracerProvider with the processor and recordReplayContext's attributes; writes
 * `{ outputs: { seq: output } }` for the independent checker.
 */
const SEAL = `
import { writeFileSync } from 'node:fs'
import { SpanKind, SpanStatusCode } from '@opentelemetry/api'
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base'
import { BijotelChainSpanProcessor, recordReplayContext } from 'bijotel-auditor/writer'

const [db, secretHex, outJson] = process.argv.slice(2)
const sealed = []
const processor = new BijotelChainSpanProcessor({
  dbPath: db,
  secret: Buffer.from(secretHex, 'hex'),
  onSealed: (r, span) => sealed.push({ seq: r.seq, name: span.name }),
})
const provider = new BasicTracerProvider({ spanProcessors: [processor] })
const tracer = provider.getTracer('consumer')
const outputs = {}
const bySpan = new Map()
for (let i = 0; i < ${SEALED_SPANS}; i++) {
  const output = 'answer ' + i + ' \\u00e9\\u2014\\u{1F600} "quoted"\\n'
  const span = tracer.startSpan('chat model-' + i, {
    kind: SpanKind.CLIENT,
    attributes: {
      'gen_ai.system': i % 2 ? 'openai' : 'anthropic',
      'gen_ai.request.model': 'model-' + i,
      'gen_ai.usage.input_tokens': 10 + i,
      'gen_ai.input.messages': JSON.stringify([{ role: 'user', content: 'q' + i }]),
      ...recordReplayContext({
        prompt: [{ role: 'user', content: 'q' + i }],
        output,
        model: 'model-' + i,
        seed: i % 3 === 0 ? undefined : i,
        temperature: 0.7,
        topP: i === 2 ? 0.95 : undefined,
      }),
    },
  })
  span.setStatus({ code: SpanStatusCode.OK })
  bySpan.set(span.name, output)
  span.end()
}
// Not a GenAI span: the default filter leaves it out of the chain.
tracer.startSpan('http GET /health').end()
await provider.shutdown()
for (const s of sealed) outputs[s.seq] = bySpan.get(s.name)
writeFileSync(outJson, JSON.stringify({ outputs }))
`

/**
 * check.cjs CHAIN SECRET_HEX SEQ OUTPUT — CommonJS, the root entry: appends an audit event, then
 * verifies, analyses and checks a replay; prints one JSON object.
 */
const CHECK = `
const { appendEvent, verifyChain, analyzeChainIntegrity, integrityReportJson, checkChainReplay,
  ChainIntegrityMonitor, verifyReplay, AuditError } = require('bijotel-auditor')
const { verifyChain: verifyFromSubpath } = require('bijotel-auditor/verify')

async function main() {
  const [db, secretHex, seq, output] = process.argv.slice(2)
  const event = appendEvent(db, Buffer.from(secretHex, 'hex'), { action: 'config.change', by: 'ops' })
  const verdict = await verifyChain(db, { secrets: secretHex })
  const sameVerdict = await verifyFromSubpath(db, { secrets: [Buffer.from(secretHex, 'hex')] })
  const report = await analyzeChainIntegrity(db, { window: 100 })
  const monitorReport = await new ChainIntegrityMonitor(db, { window: 100 }).analyze()
  const replay = await checkChainReplay(db, { seq: Number(seq), output, secrets: secretHex })
  let refused = null
  try {
    await verifyChain(db, { secrets: 'not hex' })
  } catch (e) {
    refused = { isAuditError: e instanceof AuditError, code: e.code, message: e.message }
  }
  const drift = verifyReplay({}, 'x')
  process.stdout.write(JSON.stringify({
    event, verdict, sameVerdict, reportJson: integrityReportJson(report),
    monitorSame: integrityReportJson(monitorReport) === integrityReportJson(report),
    replay, refused, drift,
  }))
}
main().catch((e) => { process.stderr.write(String(e && e.stack || e)); process.exit(1) })
`

/** Type use of every entry, compiled under --strict as ESM (.mts) and as CommonJS (.cts). */
const TYPES = `
import {
  verifyChain, analyzeChainIntegrity, ChainIntegrityMonitor, recordReplayContext, verifyReplay,
  BijotelChainSpanProcessor, appendEvent, ChainWriter, AuditError, integrityReportJson,
  type VerifyVerdict, type IntegrityReport, type ReplayResult, type SealResult, type Finding,
} from 'bijotel-auditor'
import { BijotelChainSpanProcessor as WriterProcessor, type ReplayAttributes } from 'bijotel-auditor/writer'
import { verifyChain as verifyOnly } from 'bijotel-auditor/verify'
import { analyzeChainIntegrity as integrityOnly, type IntegrityThresholds } from 'bijotel-auditor/integrity'
import { verifyReplay as replayOnly, checkChainReplay } from 'bijotel-auditor/replay'
import { BasicTracerProvider, type SpanProcessor } from '@opentelemetry/sdk-trace-base'

export async function use(path: string): Promise<string[]> {
  const secret = new Uint8Array(32)
  const processor: SpanProcessor = new BijotelChainSpanProcessor({ dbPath: path, secret })
  const other: SpanProcessor = new WriterProcessor({ dbPath: path, secret, filter: (s) => s.name !== 'x' })
  const provider = new BasicTracerProvider({ spanProcessors: [processor, other] })
  const attrs: ReplayAttributes = recordReplayContext({ prompt: 'p', output: 'o', model: 'm', seed: 1 })
  provider.getTracer('t').startSpan('chat', { attributes: { ...attrs } }).end()
  const sealed: SealResult = appendEvent(path, secret, { a: 1 })
  const writer = ChainWriter.open(path, secret)
  writer.close()
  const verdict: VerifyVerdict = await verifyChain(path, { secrets: ['00ff'], range: { lastN: 5 } })
  const again: VerifyVerdict = await verifyOnly(path, { secrets: { text: 'raw' }, prior: verdict.last_seq === null ? undefined : { last_seq: verdict.last_seq, head_hmac: verdict.head_hmac ?? '' } })
  const findings: Finding[] = again.findings
  const t: Partial<IntegrityThresholds> = { burst_threshold: 20 }
  const report: IntegrityReport = await analyzeChainIntegrity(path, { window: 50, thresholds: t })
  const report2: IntegrityReport = await integrityOnly(path, { all: true })
  const monitor = new ChainIntegrityMonitor(path, { window: 100 })
  const report3: IntegrityReport = await monitor.analyze()
  const replay: ReplayResult = verifyReplay({ attributes: attrs }, 'o')
  const replay2: ReplayResult = replayOnly({}, new Uint8Array([1]))
  const check = await checkChainReplay(path, { seq: 1, output: 'o' })
  // @ts-expect-error a misspelt option is refused by the types
  await verifyChain(path, { secret: 'aa' })
  try {
    await verifyChain(path, { secrets: [] })
  } catch (e) {
    if (e instanceof AuditError) return [e.code, e.message]
  }
  return [String(sealed.seq), String(findings.length), integrityReportJson(report), String(report2.clean),
    String(report3.window), String(replay.match && replay2.match), String(check.row_verified), String(t)]
}
`

const TSCONFIG = {
  compilerOptions: {
    strict: true,
    module: 'nodenext',
    moduleResolution: 'nodenext',
    target: 'es2022',
    noEmit: true,
    skipLibCheck: false,
    types: ['node'],
  },
  files: ['types.mts', 'types.cts'],
}

/** The same under TypeScript's older resolution (`node10`: no `exports`; `types`/`typesVersions`). */
const TSCONFIG_NODE10 = {
  compilerOptions: { ...TSCONFIG.compilerOptions, module: 'commonjs', moduleResolution: 'node10' },
  files: ['types.ts'],
}

/** Writes package.json, seal.mjs, check.cjs, the types files and their tsconfigs into `dir`. */
export function writeConsumerProject(dir: string): void {
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }, null, 2),
  )
  writeFileSync(join(dir, 'seal.mjs'), SEAL)
  writeFileSync(join(dir, 'check.cjs'), CHECK)
  writeFileSync(join(dir, 'types.mts'), TYPES)
  writeFileSync(join(dir, 'types.cts'), TYPES)
  writeFileSync(join(dir, 'types.ts'), TYPES)
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2))
  writeFileSync(join(dir, 'tsconfig.node10.json'), JSON.stringify(TSCONFIG_NODE10, null, 2))
}
