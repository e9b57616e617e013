// `bijotel regression`: the reference's regression_cmd (§8) over streamed rows; `--json` beside it.
import { existsSync } from 'node:fs'
import type { DriftDimension } from '../../../shared/drift-types'
import { readChain } from '../../chain/source/open-source'
import { detectRegression } from '../../drift/detect'
import { DIMENSIONS, pyFloatOf } from '../../drift/dimensions'
import { DRIFT_WINDOW, DRIFT_Z_THRESHOLD } from '../../../shared/drift-rules'
import { regressionText } from '../../drift/text'
import { AuditError } from '../../base/errors'
import { clampedInt, intArgument, parse, requireString, UsageError } from '../args'
import type { Run } from '../command'
import { throttle } from '../io'
import { EXIT } from './regression-info'
import { printable } from '../../../shared/printable'
import { parseSecrets } from '../../chain/keys'
import { SECRET_OPTIONS, secretInputsFrom } from '../secret-sources'

/** argparse's type=int: an optional sign, digits (underscores between them), whitespace around. */
function intOption(v: unknown, name: string, dflt: number): number {
  return typeof v === 'string' ? clampedInt(intArgument(`--${name}`, v)) : dflt
}

/** argparse's type=float: Python's float() of the text. */
function floatOption(v: unknown, name: string, dflt: number): number {
  if (typeof v !== 'string') return dflt
  const f = pyFloatOf(v)
  if (f === null) throw new UsageError(`argument --${name}: invalid float value: '${v}'`)
  return f
}

export const run: Run = async (argv, io) => {
  const { values } = parse(argv, {
    db: { type: 'string' },
    dimension: { type: 'string' },
    model: { type: 'string' },
    window: { type: 'string' },
    'z-threshold': { type: 'string' },
    json: { type: 'boolean' },
    ...SECRET_OPTIONS,
  })
  const db = requireString(values, 'db')
  const dim = values['dimension']
  if (typeof dim === 'string' && !(DIMENSIONS as readonly string[]).includes(dim)) {
    throw new UsageError(
      `argument --dimension: invalid choice: '${dim}' (choose from ${DIMENSIONS.map((d) => `'${d}'`).join(', ')})`,
    )
  }
  const window = intOption(values['window'], 'window', DRIFT_WINDOW.default)
  const zThreshold = floatOption(values['z-threshold'], 'z-threshold', DRIFT_Z_THRESHOLD.default)
  if (!existsSync(db)) throw new AuditError('db_missing', `chain DB not found: ${db}`)
  // Only keys given explicitly: the reference's regression reads none, and its output must not
  // change because BIJOTEL_HMAC_SECRET happens to be set.
  const keys = parseSecrets(await secretInputsFrom(values, io, { useEnv: false }))
  const opts = {
    dimensions: typeof dim === 'string' ? [dim as DriftDimension] : DIMENSIONS,
    ...(typeof values['model'] === 'string' ? { model: values['model'] } : {}),
    window,
    zThreshold,
    keys,
    onProgress: throttle(250, (d: number) => io.progress(`reading (${d} rows)`)),
  }
  const r = await readChain(db, (src) => detectRegression(src, opts), { env: io.env })
  io.progress(null)
  io.out(values['json'] ? JSON.stringify(r, null, 2) + '\n' : printable(regressionText(r), '\n'))
  // stdout is the reference's; its "no anomalies detected" is also printed where no value could
  // have been flagged, so that case alone gets a line on stderr saying why.
  for (const d of r.dimensions)
    if (d.not_judged !== undefined)
      io.err(
        printable(
          `note: [${d.dimension}] not judged: ${d.not_judged}; "no anomalies detected" means none could be found\n`,
          '\n',
        ),
      )
  if (r.row_check) io.err(printable(`note: ${r.row_check.detail}\n`, '\n'))
  if (r.row_check && !r.row_check.verified) return EXIT.notVerified
  return r.total_anomalies === 0 ? EXIT.clean : EXIT.anomalies
}
