// The --window/--all and threshold flags shared by `integrity` and `report`: their table, their help
// lines and their validation. Kept apart from the engine so the command table can show help cheaply.
import type { IntegrityOptions, IntegrityThresholds } from '../../../shared/integrity-types'
import { AuditError } from '../../base/errors'
import { checkWindow, DEFAULT_WINDOW, resolveThresholds } from '../../integrity/thresholds'
import { UsageError, type Options, type Values } from '../args'

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
