// The --window/--all and threshold flags shared by `integrity` and `report`: their table, their help
// lines and their validation. Kept apart from the engine so the command table can show help cheaply.
import type { IntegrityOptions, IntegrityThresholds } from '../../../shared/integrity-types'
import { AuditError } from '../../base/errors'
import { pyInt } from '../../python/py-int'
import { THRESHOLD_RULES } from '../../../shared/integrity-rules'
import {
  checkWindow,
  DEFAULT_WINDOW,
  MAX_WINDOW,
  MIN_WINDOW,
  resolveThresholds,
} from '../../integrity/thresholds'
import { UsageError, type Options, type Values } from '../args'

export const INTEGRITY_OPTIONS: Options = {
  window: { type: 'string' },
  all: { type: 'boolean' },
  ...Object.fromEntries(THRESHOLD_RULES.map((r) => [r.flag, { type: 'string' as const }])),
}

const helpLine = (lhs: string, text: string): string => `  ${lhs}`.padEnd(21) + `  ${text}`

export const INTEGRITY_OPTIONS_HELP = [
  helpLine(
    '--window N',
    `analyse the last N rows by seq, ${MIN_WINDOW}..${MAX_WINDOW} (default ${DEFAULT_WINDOW})`,
  ),
  helpLine('--all', 'analyse the whole chain in one streaming pass (no size limit)'),
  ...THRESHOLD_RULES.map((r) => helpLine(`--${r.flag} ${r.metavar}`, `${r.help} (default ${r.defaultText})`)),
].join('\n')

const FLOAT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/

function num(values: Values, flag: string, integer: boolean): number | undefined {
  const v = values[flag]
  if (typeof v !== 'string') return undefined
  // Python's int() of the text (argparse's type=int: `--window` is the reference's), refused in one
  // line as the range errors are; the range checks name a value past 2^53.
  if (integer) {
    const n = pyInt(v)
    if (n === null) throw new AuditError('bad_argument', `--${flag} must be an integer, got '${v}'`)
    return Number(n)
  }
  const t = v.trim()
  if (!FLOAT.test(t)) throw new AuditError('bad_argument', `--${flag} must be a number, got '${v}'`)
  return Number(t)
}

/** --window/--all and the threshold flags as IntegrityOptions, validated (AuditError bad_argument). */
export function integrityOptionsFromFlags(values: Values): IntegrityOptions {
  const all = values['all'] === true
  const window = num(values, 'window', true)
  if (all && window !== undefined) throw new UsageError('argument --all: not allowed with argument --window')
  const overrides: Partial<IntegrityThresholds> = {}
  const map = THRESHOLD_RULES.map((r) => [r.flag, r.key, r.integer] as const)
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
