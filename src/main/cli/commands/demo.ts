// `bijotel demo`: write a realistic, deterministic sample chain (for trying the tool and for the
// benchmark). The only command that writes a chain — and only to a new file it is told to create.
// Loaded only when the command runs.
import { printable } from '../../../shared/printable'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { AuditError } from '../../base/errors'
import { decodeHexLikePython, parseSecrets } from '../../chain/keys'
import { checkSecret } from '../../writer/chain-writer'
import {
  DEMO_DEFAULT_SEED,
  DEMO_ROTATED_SECRET_HEX,
  DEMO_SECRET_HEX,
  writeDemoChain,
  type DemoRowInfo,
} from '../../writer/demo'
import { parse, requireString, UsageError, type Values } from '../args'
import type { Run } from '../command'
import { throttle, type CliIO } from '../io'
import { secretInputsFrom } from '../secret-sources'

function count(flag: string, v: string): number {
  if (!/^\d+$/.test(v) || !Number.isSafeInteger(Number(v)))
    throw new UsageError(`${flag} must be a non-negative integer, got '${v}'`)
  return Number(v)
}

function secretFrom(flag: string, v: string): Buffer {
  const b = decodeHexLikePython(v)
  if (!b) throw new AuditError('bad_secret', `${flag} is not valid hex (${v.length} characters)`)
  try {
    return checkSecret(b)
  } catch {
    throw new AuditError('bad_secret', `${flag} must decode to at least 16 bytes (got ${b.length})`)
  }
}

/**
 * --secret-file / --secret-stdin: the sealing key, then (with --rotate-at) the rotated key; each at
 * least 16 bytes, hex or text: as in the key-file format. null when neither option was given.
 */
async function keysFromFileOrStdin(values: Values, io: CliIO, rotating: boolean): Promise<Buffer[] | null> {
  const file = values['secret-file']
  const stdin = values['secret-stdin'] === true
  if (typeof file !== 'string' && !stdin) return null
  if (typeof values['secret-hex'] === 'string' || typeof values['rotated-secret-hex'] === 'string')
    throw new UsageError('give the keys either with --secret-hex/--rotated-secret-hex or from a file/stdin')
  const keys = parseSecrets(
    await secretInputsFrom({ 'secret-file': file, 'secret-stdin': stdin }, io, { useEnv: false }),
  )
  const most = rotating ? 2 : 1
  if (keys.length > most)
    throw new UsageError(
      `the key file holds ${keys.length} keys; demo takes ${rotating ? 'two (the sealing key, then the rotated key)' : 'one (a second one needs --rotate-at)'}`,
    )
  return keys.map((k) => {
    try {
      return checkSecret(k.bytes)
    } catch {
      throw new AuditError(
        'bad_secret',
        `key #${k.index + 1} must be at least 16 bytes (got ${k.bytes.length})`,
      )
    }
  })
}

/** Rows picked for the replay sample files, by kind. */
interface SamplePick {
  match?: DemoRowInfo
  mismatch?: DemoRowInfo
  drift?: DemoRowInfo
  crlf?: DemoRowInfo
  nometa?: DemoRowInfo
}

function pickSamples(pick: SamplePick, info: DemoRowInfo): void {
  if (info.error) return
  if (info.hasReplay && info.deterministic && !pick.match && info.seq > 1) pick.match = info
  else if (info.hasReplay && info.deterministic && !pick.mismatch && pick.match) pick.mismatch = info
  else if (info.hasReplay && !info.deterministic && !pick.drift) pick.drift = info
  else if (info.hasReplay && info.output.includes('\n') && !pick.crlf) pick.crlf = info
  else if (!info.hasReplay && !pick.nometa) pick.nometa = info
}

interface SampleFile {
  file: string
  seq: number
  mode: 'python' | 'raw'
  expect_match: boolean
  what: string
}

function writeSamples(dir: string, pick: SamplePick): SampleFile[] {
  mkdirSync(dir, { recursive: true })
  const out: SampleFile[] = []
  const put = (name: string, text: string | Buffer, s: Omit<SampleFile, 'file'>): void => {
    writeFileSync(join(dir, name), text)
    out.push({ file: name, ...s })
  }
  if (pick.match) {
    put(`sample-replay-${pick.match.seq}-match.txt`, pick.match.output, {
      seq: pick.match.seq,
      mode: 'python',
      expect_match: true,
      what: 'the exact sealed output (no trailing newline): MATCH',
    })
  }
  if (pick.mismatch) {
    put(
      `sample-replay-${pick.mismatch.seq}-mismatch.txt`,
      pick.mismatch.output.replace(/\.?$/, ' (edited)'),
      {
        seq: pick.mismatch.seq,
        mode: 'python',
        expect_match: false,
        what: 'an edited output of a seeded (deterministic) call: MISMATCH, re-execute against the same model version',
      },
    )
  }
  if (pick.drift) {
    put(`sample-replay-${pick.drift.seq}-drift.txt`, pick.drift.output + '\n', {
      seq: pick.drift.seq,
      mode: 'python',
      expect_match: false,
      what: 'the sealed output plus a trailing newline, for a call without a seed: MISMATCH, drift expected',
    })
  }
  if (pick.crlf) {
    put(`sample-replay-${pick.crlf.seq}-crlf.txt`, pick.crlf.output.replace(/\n/g, '\r\n'), {
      seq: pick.crlf.seq,
      mode: 'python',
      expect_match: true,
      what: 'the sealed output saved with Windows line endings: MATCH as Python reads it (CRLF -> LF), MISMATCH with --raw',
    })
  }
  if (pick.nometa) {
    put(`sample-replay-${pick.nometa.seq}-nometa.txt`, pick.nometa.output, {
      seq: pick.nometa.seq,
      mode: 'python',
      expect_match: false,
      what: 'a row without replay metadata: MISMATCH, no output_hash',
    })
  }
  writeFileSync(join(dir, 'sample-replay.json'), JSON.stringify(out, null, 2) + '\n')
  return out
}

export const run: Run = async (argv, io) => {
  const { values } = parse(argv, {
    db: { type: 'string' },
    count: { type: 'string' },
    'secret-hex': { type: 'string' },
    seed: { type: 'string' },
    'rotate-at': { type: 'string' },
    'rotated-secret-hex': { type: 'string' },
    'secret-file': { type: 'string' },
    'secret-stdin': { type: 'boolean' },
    'replay-samples': { type: 'string' },
    force: { type: 'boolean' },
  })
  const db = requireString(values, 'db')
  const n = count('--count', requireString(values, 'count'))
  const rotateRaw = values['rotate-at']
  const rotatedHex = values['rotated-secret-hex']
  if (typeof rotatedHex === 'string' && typeof rotateRaw !== 'string')
    throw new UsageError('--rotated-secret-hex needs --rotate-at')
  const rotateAt = typeof rotateRaw === 'string' ? count('--rotate-at', rotateRaw) : undefined
  if (rotateAt !== undefined && rotateAt < 2)
    throw new UsageError(`--rotate-at must be a seq >= 2, got '${String(rotateRaw)}'`)
  const fileKeys = await keysFromFileOrStdin(values, io, rotateAt !== undefined)
  const secret =
    fileKeys?.[0] ??
    (typeof values['secret-hex'] === 'string'
      ? secretFrom('--secret-hex', values['secret-hex'])
      : Buffer.from(DEMO_SECRET_HEX, 'hex'))
  const rotatedSecret =
    rotateAt === undefined
      ? undefined
      : (fileKeys?.[1] ??
        (typeof rotatedHex === 'string'
          ? secretFrom('--rotated-secret-hex', rotatedHex)
          : Buffer.from(DEMO_ROTATED_SECRET_HEX, 'hex')))
  if (rotatedSecret && rotatedSecret.equals(secret))
    throw new UsageError('--rotated-secret-hex must differ from the first secret')
  const samplesDir = typeof values['replay-samples'] === 'string' ? values['replay-samples'] : undefined
  const pick: SamplePick = {}

  const result = writeDemoChain({
    dbPath: db,
    count: n,
    secret,
    seed: typeof values['seed'] === 'string' ? values['seed'] : DEMO_DEFAULT_SEED,
    ...(rotateAt !== undefined ? { rotateAt } : {}),
    ...(rotatedSecret ? { rotatedSecret } : {}),
    force: values['force'] === true,
    onProgress: throttle(250, (d, t) => io.progress(`writing ${d}/${t} rows`)),
    ...(samplesDir ? { onRow: (info: DemoRowInfo) => pickSamples(pick, info) } : {}),
  })
  io.progress(null)
  const secs = (result.elapsedMs / 1000).toFixed(1)
  io.out(`Wrote ${result.rows} rows to ${printable(result.path)} (${result.bytes} bytes, ${secs} s).\n`)
  if (result.lastSeq !== null) io.out(`  seq:        1-${result.lastSeq}\n  head_hmac:  ${result.head}\n`)
  io.out(
    `  secret:     ${secret.toString('hex') === DEMO_SECRET_HEX ? `demo secret ${DEMO_SECRET_HEX} (public — demo only)` : fileKeys ? 'the key given' : 'the --secret-hex given'}\n`,
  )
  if (result.rotatedAt !== null) io.out(`  rotated:    seq ${result.rotatedAt}- sealed with the second key\n`)
  if (samplesDir) {
    const files = writeSamples(samplesDir, pick)
    io.out(`  replay samples (${files.length}) in ${samplesDir}: ${files.map((f) => f.file).join(', ')}\n`)
  }
  const shown = (k: Buffer, dflt: string): string => (k.toString('hex') === dflt ? dflt : '<HEX>')
  const rotatedFlag =
    result.rotatedAt !== null && rotatedSecret
      ? ` --secret-hex ${shown(rotatedSecret, DEMO_ROTATED_SECRET_HEX)}`
      : ''
  const keyArgs =
    typeof values['secret-file'] === 'string'
      ? `--secret-file ${values['secret-file']}`
      : fileKeys
        ? '--secret-stdin'
        : `--secret-hex ${shown(secret, DEMO_SECRET_HEX)}${rotatedFlag}`
  io.out(`Verify it with: bijotel verify --db ${printable(result.path)} ${keyArgs}\n`)
  return 0
}
