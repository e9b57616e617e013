// `bijotel verify --keyless`: the first look without a key (../../verify/keyless.ts). Its first line
// can never be read as a verification's (`Chain VALID`): it says the HMACs were not checked, and
// what that leaves open. A break found without the key is a break: exit 3, as verify's.
import { keylessHeadline, keylessVerifyFile, KEYLESS_STATEMENT } from '../../audit/keyless'
import { rangeFlagsGiven, rangeFrom, UsageError, type Values } from '../args'
import type { CliIO } from '../io'
import { throttle } from '../io'
import { toJson } from '../format'
import { EXIT } from './verify-info'
import { refusingOtherChain } from './prior-refusal'
import type { PriorHead, VerifyVerdict } from '../../../shared/verify-types'

const KEY_FLAGS = ['secret-hex', 'secret-text', 'secret-file', 'secret-stdin'] as const

/** What `bijotel verify` lends the keyless run (passed in, so this module does not import it back). */
export interface VerifyText {
  readPrior: (path: string) => PriorHead
  verdictText: (v: VerifyVerdict, keys: [], ranged: boolean) => { out: string; err: string }
}

export async function runKeyless(
  db: string,
  values: Values,
  io: CliIO,
  { readPrior, verdictText }: VerifyText,
): Promise<number> {
  const given = KEY_FLAGS.filter((k) => values[k] !== undefined && values[k] !== false)
  if (given.length > 0)
    throw new UsageError(
      `--keyless checks without a key: drop --${given[0]} (or drop --keyless to check the HMACs)`,
    )
  const ranged = rangeFlagsGiven(values)
  const range = rangeFrom(values)
  const prior = typeof values['prior'] === 'string' ? readPrior(values['prior']) : undefined
  const run = keylessVerifyFile(db, {
    ...(range ? { range } : {}),
    ...(prior ? { prior } : {}),
    recover: values['no-recover'] !== true,
    env: io.env,
    onProgress: throttle(250, (d, t) =>
      io.progress(`checking without the key ${Math.floor((100 * d) / Math.max(t, 1))}% (${d}/${t} rows)`),
    ),
  })
  const { verdict } = await refusingOtherChain(values, run)
  io.progress(null)
  if (values['json']) {
    io.out(toJson(verdict) + '\n')
    return verdict.valid ? EXIT.valid : EXIT.broken
  }
  const text = verdictText(verdict, [], ranged)
  const lines = text.out.replace(/\n$/, '').split('\n')
  // A valid verdict's first line is verify's `Chain VALID …`: replaced, never printed here.
  if (verdict.valid) lines[0] = keylessHeadline(verdict, ranged)
  if (text.err) io.err(text.err)
  io.out([...lines, ...KEYLESS_STATEMENT].join('\n') + '\n')
  return verdict.valid ? EXIT.valid : EXIT.broken
}
