// `bijotel report`: builds the audit report and writes it atomically. Loaded only when the command runs.
import { jsonDocumentPrintable, printable } from '../../../shared/printable'
import { readSegments } from '../../audit/segments'
import { renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tempBeside } from '../../base/temp-name'
import type { ReplayBatchItem, ReplayCheck } from '../../../shared/replay-types'
import { KeptChecks } from '../../replay/kept-checks'
import type { OpenedChain } from '../../chain/source/opened-chain'
import { loadPrivateKey } from '../../custody/ed25519'
import { renderReportHtml } from '../../custody/html/render'
import { signReport } from '../../custody/sign'
import { writeTarget } from '../../base/client-file'
import { refuseInputTarget } from '../../base/inputs'
import { checkOutputTarget } from '../../export/output-file'
import { AuditError, CHAIN_FILE_ERRORS, oneLine } from '../../base/errors'
import { checkReplayInput } from '../../replay/check'
import { readReplayFile } from '../../replay/text'
import { buildAuditReport } from '../../audit/build-report'
import { parseSecrets, type KeyMaterial } from '../../chain/keys'
import { parse, requireString, UsageError, type Values } from '../args'
import type { Run } from '../command'
import { SECRET_OPTIONS, secretInputsFrom } from '../secret-sources'
import { EXIT } from './report-info'
import { INTEGRITY_OPTIONS, integrityOptionsFromFlags } from './integrity-options'
import { openChainForCli } from './open-chain'
import { progressLine } from './progress-line'

/**
 * Refuse an output path that is the evidence or one of its side files — by name, through links, or
 * as a hard link of one (export/output-file.ts) — or any file read as input so far (base/inputs.ts;
 * checked again just before the rename, when every input has been read).
 */
export function checkOutputPath(out: string, db: string): void {
  const target = writeTarget(out)
  const evidence = writeTarget(db)
  for (const suffix of ['', '-wal', '-shm', '-journal']) {
    if (target === evidence + suffix) {
      throw new AuditError(
        'bad_argument',
        `refusing to write the report over the evidence${suffix ? ` ${suffix} file` : ''}: ${out}`,
      )
    }
  }
  try {
    if (statSync(target).isDirectory())
      throw new AuditError('bad_argument', `-o ${out} is a directory; give a file name`)
  } catch (e) {
    if (e instanceof AuditError) throw e
  }
  checkOutputTarget(out, db, 'the report')
  refuseInputTarget(target, out, 'the report')
}

/** Write via a temporary file in the same folder, so a failed run never leaves half a report. */
function writeAtomically(path: string, text: string): void {
  // The very name checkOutputPath checked (the kernel's, not a lexical one).
  const target = writeTarget(path)
  const tmp = tempBeside(target, String(process.pid))
  refuseInputTarget(target, path, 'the report')
  try {
    writeFileSync(tmp, text, { flag: 'wx', mode: 0o644 })
    renameSync(tmp, target)
  } catch (e) {
    // Removing what may not exist must not replace the one-line refusal with its own error.
    try {
      rmSync(tmp, { force: true })
    } catch {
      /* the write's error below is the one to report */
    }
    throw new AuditError('bad_argument', `cannot write the report to ${path}: ${oneLine(e)}`)
  }
}

/** `--replay SEQ=FILE`: the seq and the replayed output's file (read as replay's --output-file). */
function replaySpecs(values: Values): { seq: number; path: string }[] {
  const given = values['replay']
  const list = Array.isArray(given) ? given : typeof given === 'string' ? [given] : []
  return list.map((v) => {
    const m = typeof v === 'string' ? /^(-?\d+)=(.+)$/s.exec(v) : null
    if (!m || !Number.isSafeInteger(Number(m[1])))
      throw new UsageError(`argument --replay: expected SEQ=FILE, got '${String(v)}'`)
    return { seq: Number(m[1]), path: m[2]! }
  })
}

async function replayChecksFor(
  chain: OpenedChain,
  keys: KeyMaterial[],
  specs: { seq: number; path: string }[],
): Promise<ReplayCheck[]> {
  const checks: ReplayCheck[] = []
  for (const { seq, path } of specs) {
    try {
      const output = readReplayFile(path, 'python', '--replay')
      checks.push(await chain.read((source) => checkReplayInput(source, keys, { seq, output })))
    } catch (e) {
      // A replay file or seq that is not there is an argument error here, not an unreadable chain.
      if (e instanceof AuditError && !CHAIN_FILE_ERRORS.has(e.code))
        throw new AuditError('bad_argument', `--replay ${seq}=${path}: ${e.message}`)
      throw e
    }
  }
  return checks
}

/**
 * `--replay-batch FILE|FOLDER`: every line's check (as `replay --batch` decides it) goes into the
 * report. A report names every check it was asked for: a line that cannot be checked (bad line, seq
 * missing) is an argument error, not a check silently left out.
 */
async function replayBatchChecksFor(
  chain: OpenedChain,
  keys: KeyMaterial[],
  batch: string,
): Promise<KeptChecks> {
  const { batchLinesFrom } = await import('./replay-batch')
  const { collectBatch, decideBatch } = await import('../../replay/batch')
  // As the session keeps a batch (handlers/engine.ts): the first REPLAY_BATCH_KEEP checks listed,
  // the rest counted in the report's replay_batches.
  const kept = new KeptChecks()
  const refuse = (item: ReplayBatchItem): void => {
    if (item.check) kept.add(item.check)
    else
      throw new AuditError(
        'bad_argument',
        `--replay-batch ${batch}: line ${item.line} (${item.name}): ${item.reason ?? item.status}`,
      )
  }
  let entries
  try {
    entries = await collectBatch(batchLinesFrom(batch, false), refuse)
  } catch (e) {
    if (e instanceof AuditError && e.code !== 'bad_argument')
      throw new AuditError('bad_argument', `--replay-batch ${batch}: ${e.message}`)
    throw e
  }
  const done = new Set<number>()
  await chain.read((source) =>
    decideBatch(
      source,
      keys,
      entries,
      (item) => {
        done.add(item.line)
        refuse(item)
      },
      { skip: done },
    ),
  )
  return kept
}

export const run: Run = async (argv, io) => {
  // `bijotel report verify REPORT …`: check an exported report again (issue 25 item 4).
  if (argv[0] === 'verify') return (await import('./report-verify')).run(argv.slice(1), io)
  const { values } = parse(argv, {
    db: { type: 'string' },
    output: { type: 'string', short: 'o' },
    format: { type: 'string' },
    'sign-key': { type: 'string' },
    replay: { type: 'string', multiple: true },
    segment: { type: 'string', multiple: true },
    'replay-batch': { type: 'string' },
    ...SECRET_OPTIONS,
    ...INTEGRITY_OPTIONS,
  })
  const db = requireString(values, 'db')
  const out = values['output']
  if (typeof out !== 'string' || out === '')
    throw new UsageError('the following arguments are required: -o/--output')
  const format = values['format'] ?? 'json'
  if (format !== 'json' && format !== 'html')
    throw new UsageError(
      `argument --format: invalid choice: '${String(format)}' (choose from 'json', 'html')`,
    )
  const integrityOptions = integrityOptionsFromFlags(values)
  const keys = parseSecrets(await secretInputsFrom(values, io, { useEnv: true }))
  const specs = replaySpecs(values)
  // The signing key is read before the long work: a wrong path fails at once.
  const signKey = typeof values['sign-key'] === 'string' ? loadPrivateKey(values['sign-key']) : null
  if (out !== '-') checkOutputPath(out, db)
  const segmentPaths = Array.isArray(values['segment']) ? values['segment'].map(String) : []
  const segments = segmentPaths.length > 0 ? await readSegments(segmentPaths, io.env) : undefined
  const chain = await openChainForCli(db, io)
  try {
    const singles = await replayChecksFor(chain, keys, specs)
    const batch =
      typeof values['replay-batch'] === 'string'
        ? await replayBatchChecksFor(chain, keys, values['replay-batch'])
        : null
    const built = await buildAuditReport({
      chain,
      keys,
      integrityOptions,
      replayChecks: [...singles, ...(batch?.checks ?? [])],
      replayBatches: batch ? [batch.record(singles.length)] : [],
      onProgress: progressLine(io),
      ...(segments ? { segments } : {}),
    })
    io.progress(null)
    const report = signKey ? signReport(built, signKey) : built
    const text = format === 'html' ? renderReportHtml(report) : jsonDocumentPrintable(report) + '\n'
    if (out === '-') io.out(text)
    else {
      writeAtomically(out, text)
      io.err(`report written to ${printable(out)}\n`)
    }
    return EXIT.ok
  } finally {
    chain.close()
  }
}
