import type { IntegrityOptions, IntegrityRun, IntegrityThresholds } from '../../../shared/integrity-types'
import { ChainFile } from '../../chain/reader'
import { AuditError } from '../../errors'
import { withDirect } from '../../chain/direct/open'
import { runIntegrity } from '../../integrity/analyze'
import { directSource } from '../../integrity/direct'
import { reportJson } from '../../integrity/report'
import { integrityText } from '../../integrity/text'
import { checkWindow, DEFAULT_WINDOW, resolveThresholds } from '../../integrity/thresholds'
import { parseSecrets } from '../../verify/secrets'
import { parse, requireString, SECRET_OPTIONS, secretInputsFrom, UsageError, type Options } from '../args'
import type { Command } from '../command'
import type { CliIO } from '../io'
import { throttle } from '../io'

export const EXIT = { clean: 0, anomalies: 1, unreadable: 2, usage: 2 } as const

/** Options shared by `integrity` and `report`. */
export const INTEGRITY_OPTIONS: Options = {
  window: { type: 'string' },
  all: { type: 'boolean' },
  'burst-threshold': { type: 'string' },
  'large-gap-sec': { type: 'string' },
  'provider-shift-pct': { type: 'string' },
  'rate-tol': { type: 'string' },
  'min-split-size': { type: 'string' },
}

export const INTEGRITY_OPTIONS_HELP = `  --window N           analyse the last N rows by seq, 2..10000 (default ${DEFAULT_WINDOW})
  --all                analyse the whole chain in one streaming pass (no size limit)
  --burst-threshold N  rows in one epoch second above which a burst is reported (default 10)
  --large-gap-sec S    seconds between rows above which a large gap is reported (default 3600)
  --provider-shift-pct P  share change in points above which a provider shift is reported (default 20.0)
  --rate-tol R         |second-half rate / first-half rate - 1| above which a rate change is reported (default 0.5)
  --min-split-size N   rows each half needs for the provider and rate detectors (default 10)`

type Values = Record<string, string | boolean | (string | boolean)[] | undefined>

const INT = /^[+-]?\d+$/
const FLOAT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/

function num(values: Values, flag: string, integer: boolean): number | undefined {
  const v = values[flag]
  if (typeof v !== 'string') return undefined
  const t = v.trim()
  if (!(integer ? INT : FLOAT).test(t)) {
    throw new AuditError(
      'bad_argument',
      `--${flag} must be ${integer ? 'an integer' : 'a number'}, got '${v}'`,
    )
  }
  return Number(t)
}

/** --window/--all and the threshold flags as IntegrityOptions, validated (AuditError bad_argument). */
export function integrityOptionsFrom(values: Values): IntegrityOptions {
  const all = values['all'] === true
  const window = num(values, 'window', true)
  if (all && window !== undefined) throw new UsageError('argument --all: not allowed with argument --window')
  const overrides: Partial<IntegrityThresholds> = {}
  const map: [string, keyof IntegrityThresholds, boolean][] = [
    ['burst-threshold', 'burst_threshold', true],
    ['large-gap-sec', 'large_gap_sec', false],
    ['provider-shift-pct', 'provider_shift_pct', false],
    ['rate-tol', 'rate_tol', false],
    ['min-split-size', 'min_split_size', true],
  ]
  for (const [flag, key, integer] of map) {
    const v = num(values, flag, integer)
    if (v !== undefined) overrides[key] = v
  }
  try {
    resolveThresholds(overrides)
  } catch (e) {
    // Name the flag, not the field.
    if (e instanceof AuditError) {
      const m = map.find(([, key]) => e.message.startsWith(key))
      throw new AuditError('bad_argument', m ? e.message.replace(m[1], `--${m[0]}`) : e.message)
    }
    throw e
  }
  if (window !== undefined) {
    try {
      checkWindow(window)
    } catch (e) {
      if (e instanceof AuditError) throw new AuditError('bad_argument', `--${e.message}`)
      throw e
    }
  }
  const opts: IntegrityOptions = all ? { all: true } : { window: window ?? DEFAULT_WINDOW }
  if (Object.keys(overrides).length > 0) opts.thresholds = overrides
  return opts
}

/** Open a chain; a missing file gets Python's wording (`chain DB not found: <path>`). */
export async function openChainForCli(path: string, io: CliIO): Promise<ChainFile> {
  try {
    return await ChainFile.open(path, {
      onProgress: throttle(250, (d, t) =>
        io.progress(`copying evidence ${Math.floor((100 * d) / Math.max(t, 1))}%`),
      ),
    })
  } catch (e) {
    if (e instanceof AuditError && e.code === 'db_missing')
      throw new AuditError('db_missing', `chain DB not found: ${path}`)
    throw e
  }
}

/** A throttled progress line for the integrity phases. */
export function progressLine(io: CliIO): (done: number, total: number, phase?: string) => void {
  let last = 0
  return (d, t, phase) => {
    const now = Date.now()
    if (now - last < 250 && d < t) return
    last = now
    const what = phase === 'rotation' ? 'verifying keys' : phase === 'verify' ? 'verifying' : 'analysing'
    io.progress(`${what} ${Math.floor((100 * d) / Math.max(t, 1))}% (${d}/${t} rows)`)
  }
}

const HELP = `usage: bijotel integrity --db PATH [--window N | --all] [--json] [--secret-hex HEX]... [--secret-text T]... [thresholds]

Structural integrity monitor (Python BIJOTEL's six detectors): sequence gaps, timestamps going
backward, large gaps and bursts, duplicate canonical hashes, provider distribution shift and rate
change between the older and the newer half, and rotation boundaries. Hashes are not verified here
(use bijotel verify). The chain file is read in place, read-only, by the direct file reader (or by
SQLite on a verified private copy for files it declines); it is never modified.

options:
  --db PATH            chain.db to analyse (its -wal file, if any, is read too)
${INTEGRITY_OPTIONS_HELP}
  --json               one compact JSON line, byte for byte what Python BIJOTEL's integrity --json prints
  --secret-hex HEX     candidate key as hex; with keys the analysed range is verified and every change
                       of sealing key is reported as a rotation boundary (Python never fills that list);
                       repeat for rotated keys
  --secret-text TEXT   candidate key as raw UTF-8 bytes (the Go collector's non-hex fallback); repeatable
                       (BIJOTEL_HMAC_SECRET is not read by this command: without a flag, no key)
  -h, --help           show this help

exit codes: 0 clean (an empty chain is clean), 1 anomalies found, 2 DB missing or not a readable
chain, or an argument error (window outside 2..10000 included)`

export const integrityCommand: Command = {
  name: 'integrity',
  summary: 'structural integrity monitor: gaps, timestamps, duplicates, provider/rate shifts, rotation',
  help: HELP,
  chainFileExit: EXIT.unreadable,
  async run(argv, io) {
    const { values } = parse(argv, {
      db: { type: 'string' },
      json: { type: 'boolean' },
      ...SECRET_OPTIONS,
      ...INTEGRITY_OPTIONS,
    })
    const db = requireString(values, 'db')
    const options = integrityOptionsFrom(values)
    const keys = parseSecrets(secretInputsFrom(values, {}))
    const runOpts = { ...options, keys, onProgress: progressLine(io) }
    let run: IntegrityRun | null = null
    const t0 = performance.now()
    let timing = ''
    // Straight from the file when the direct reader takes it; else SQLite on a verified copy.
    run =
      (await withDirect(
        db,
        (direct) => {
          timing = `reader direct, open ${(performance.now() - t0).toFixed(0)} ms`
          return runIntegrity(directSource(direct), runOpts)
        },
        io.env,
      )) ?? null
    if (run === null) {
      const t1 = performance.now()
      const chain = await openChainForCli(db, io)
      timing = `reader sqlite-copy, open ${(performance.now() - t1).toFixed(0)} ms`
      try {
        run = await runIntegrity(chain, runOpts)
      } finally {
        chain.close()
      }
    }
    io.progress(null)
    if (io.env['BIJOTEL_TIMING'])
      io.err(`timing: ${timing}, total ${(performance.now() - t0).toFixed(0)} ms\n`)
    io.out(values['json'] ? `${reportJson(run.report)}\n` : integrityText(run))
    return run.report.clean ? EXIT.clean : EXIT.anomalies
  },
}
