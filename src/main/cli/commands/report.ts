// `bijotel report`: builds the audit report and writes it atomically. Loaded only when the command runs.
import { realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
import { AuditError, oneLine } from '../../errors'
import { buildAuditReport } from '../../report/build'
import { parseSecrets } from '../../verify/secrets'
import { parse, requireString, UsageError } from '../args'
import type { Run } from '../command'
import { SECRET_OPTIONS, secretInputsFrom } from '../secret-sources'
import { EXIT } from './report-info'
import { INTEGRITY_OPTIONS, integrityOptionsFrom } from './integrity-options'
import { openChainForCli } from './open-chain'
import { progressLine } from './progress-line'

function realOrResolved(p: string): string {
  try {
    return realpathSync(p)
  } catch {
    // Not there yet: its folder may still be a symlink.
    try {
      return join(realpathSync(dirname(resolve(p))), basename(p))
    } catch {
      return resolve(p)
    }
  }
}

/** Refuse an output path that is the evidence or one of its side files. */
export function checkOutputPath(out: string, db: string): void {
  const target = realOrResolved(out)
  const evidence = realOrResolved(db)
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
}

/** Write via a temporary file in the same folder, so a failed run never leaves half a report. */
function writeAtomically(path: string, text: string): void {
  const tmp = join(dirname(resolve(path)), `.${basename(path)}.${process.pid}.tmp`)
  try {
    writeFileSync(tmp, text, { flag: 'wx', mode: 0o644 })
    renameSync(tmp, path)
  } catch (e) {
    rmSync(tmp, { force: true })
    throw new AuditError('bad_argument', `cannot write the report to ${path}: ${oneLine(e)}`)
  }
}

export const run: Run = async (argv, io) => {
  const { values } = parse(argv, {
    db: { type: 'string' },
    output: { type: 'string', short: 'o' },
    ...SECRET_OPTIONS,
    ...INTEGRITY_OPTIONS,
  })
  const db = requireString(values, 'db')
  const out = values['output']
  if (typeof out !== 'string' || out === '')
    throw new UsageError('the following arguments are required: -o/--output')
  const integrityOptions = integrityOptionsFrom(values)
  const keys = parseSecrets(await secretInputsFrom(values, io, { useEnv: true }))
  if (out !== '-') checkOutputPath(out, db)
  const chain = await openChainForCli(db, io)
  try {
    const report = await buildAuditReport({
      chain,
      keys,
      integrityOptions,
      replayChecks: [],
      onProgress: progressLine(io),
    })
    io.progress(null)
    const text = JSON.stringify(report, null, 2) + '\n'
    if (out === '-') io.out(text)
    else {
      writeAtomically(out, text)
      io.err(`report written to ${out}\n`)
    }
    return EXIT.ok
  } finally {
    chain.close()
  }
}
