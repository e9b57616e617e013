// `bijotel replay`: Python BIJOTEL's replay check (reference §6.4) with the same messages, output and
// exit codes, plus (only when asked for) the row's own verification and a prompt-hash check (§11.7).
// Loaded only when the command runs.
import { existsSync } from 'node:fs'
import { REPLAY_COLUMNS } from '../../chain/table'
import { AuditError } from '../../base/errors'
import { checkReplayInput } from '../../replay/check'
import { readReplayFile, textInput, type ReplayInput } from '../../replay/text'
import { parseSecrets } from '../../chain/keys'
import { clampedInt, intArgument, parse, UsageError } from '../args'
import type { RowSource } from '../../chain/source/row-source'
import type { Run } from '../command'
import { SECRET_OPTIONS, secretInputsFrom } from '../secret-sources'
import { toJson } from '../format'
import { replayExit, replayJson, replayText } from '../../replay/format'
import { readChainForCli } from './open-chain'

/**
 * A seq past the doubles' exact range (2^53), which argparse's `type=int` takes: Python looks it up
 * and answers `seq N not found in chain` (exit 1); beyond SQLite's 64-bit rowids (file format §2.3)
 * its sqlite3 raises OverflowError (a traceback), where no row can hold it: the same line here. A
 * row that does hold such a seq is refused in one line: the row check and the batch place rows by
 * exact integers only up to 2^53.
 */
async function lookUpHugeSeq(source: RowSource, seq: bigint): Promise<never> {
  const inInt64 = seq >= -(1n << 63n) && seq < 1n << 63n
  if (inInt64 && source.find(seq, () => undefined, []))
    throw new AuditError(
      'too_large',
      `seq ${seq} is in the chain but past 2^53: this tool checks rows at seqs up to 2^53 only`,
    )
  throw new AuditError('not_found', `seq ${seq} not found in chain`)
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined
}

export const run: Run = async (argv, io) => {
  const { values } = parse(argv, {
    db: { type: 'string' },
    seq: { type: 'string' },
    output: { type: 'string' },
    'output-file': { type: 'string' },
    raw: { type: 'boolean' },
    prompt: { type: 'string' },
    'prompt-file': { type: 'string' },
    json: { type: 'boolean' },
    batch: { type: 'string' },
    ...SECRET_OPTIONS,
  })
  if (values['batch'] !== undefined) return (await import('./replay-batch')).runBatch(values, io)
  const db = str(values['db'])
  const seqRaw = str(values['seq'])
  const missing = [db ? null : '--db', seqRaw !== undefined ? null : '--seq'].filter(
    (x): x is string => x !== null,
  )
  if (missing.length > 0) throw new UsageError(`the following arguments are required: ${missing.join(', ')}`)
  // argparse's `type=int` (Python's int() of the text) decides before anything else is checked.
  const seqBig = intArgument('--seq', seqRaw as string)

  // Python: an empty --output (or --output-file) counts as absent.
  const output = str(values['output']) || undefined
  const outputFile = str(values['output-file']) || undefined
  if (!output && !outputFile)
    throw new AuditError('bad_argument', "pass exactly one of --output 'text' or --output-file PATH.")
  if (output && outputFile)
    throw new AuditError('bad_argument', '--output and --output-file are mutually exclusive.')
  const raw = values['raw'] === true
  if (raw && !outputFile)
    throw new AuditError(
      'bad_argument',
      '--raw applies to --output-file only (--output text is hashed verbatim).',
    )
  const prompt = str(values['prompt'])
  const promptFile = str(values['prompt-file']) || undefined
  if (prompt !== undefined && promptFile)
    throw new AuditError('bad_argument', '--prompt and --prompt-file are mutually exclusive.')

  // The row check is ours, asked for by giving a key: BIJOTEL_HMAC_SECRET alone does not turn it on.
  const keys = parseSecrets(await secretInputsFrom(values, io, { useEnv: false }))

  const dbPath = db as string
  if (!existsSync(dbPath)) throw new AuditError('db_missing', `chain DB not found: ${dbPath}`)

  const mode = raw ? 'raw' : 'python'
  const input: ReplayInput = outputFile
    ? readReplayFile(outputFile, mode, '--output-file')
    : textInput(output as string)
  let promptValue: string | Buffer | undefined
  if (promptFile) promptValue = readReplayFile(promptFile, mode, '--prompt-file').value
  else if (prompt !== undefined) promptValue = prompt

  if (clampedInt(seqBig) !== Number(seqBig))
    return readChainForCli(dbPath, io, (source) => lookUpHugeSeq(source, seqBig), undefined, REPLAY_COLUMNS)
  const seq = Number(seqBig)
  // seq and the body are all the reference reads; the row check says when its columns are missing.
  const check = await readChainForCli(
    dbPath,
    io,
    (source) =>
      checkReplayInput(source, keys, {
        seq,
        output: input,
        ...(promptValue !== undefined ? { prompt: promptValue } : {}),
      }),
    undefined,
    REPLAY_COLUMNS,
  )
  const extras = { row: keys.length > 0, prompt: promptValue !== undefined, raw }
  io.out(values['json'] ? toJson(replayJson(check, extras)) + '\n' : replayText(check, extras))
  return replayExit(check)
}
