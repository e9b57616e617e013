// `bijotel replay --batch FILE|FOLDER|-` (issue 37): many replayed outputs checked against one chain
// read once. Bad lines are printed as they are read; each checkable line then gets the single-entry
// verdict, printed as it is decided, in the batch's order; the summary ends the output.
import { closeSync, createReadStream, existsSync, lstatSync } from 'node:fs'
import { dirname } from 'node:path'
import { Readable } from 'node:stream'
import type { ReplayBatchItem } from '../../../shared/replay-types'
import { openClientFile, resolveClientPath } from '../../base/client-file'
import { AuditError } from '../../base/errors'
import { REPLAY_COLUMNS } from '../../chain/table'
import { parseSecrets } from '../../chain/keys'
import { folderLines, jsonlLines, listFolder, type BatchLine } from '../../replay/batch-lines'
import { BatchTally, decideBatch, planBatch } from '../../replay/batch'
import { batchItemJson, batchItemText, summaryJson, summaryText } from '../../replay/batch-format'
import type { Values } from '../args'
import { UsageError } from '../args'
import type { CliIO } from '../io'
import { toJson } from '../format'
import { secretInputsFrom } from '../secret-sources'
import { readChainForCli } from './open-chain'

/** JSONL read from stdin is held whole (CliIO reads stdin at once): bounded. */
export const MAX_STDIN_BATCH_BYTES = 256 * 1024 * 1024

const SINGLE_ONLY = ['seq', 'output', 'output-file', 'prompt', 'prompt-file'] as const

/** A batch given as a path, read as often as asked (each read from its start) and closed once. */
export interface BatchReads {
  read(plan: boolean): AsyncIterable<BatchLine> | Iterable<BatchLine>
  close(): void
}

/**
 * The lines of a JSONL file or a folder (`report --replay-batch` reads them too). The path is
 * resolved once by the kernel; a folder is listed once, a file opened once through the one way a
 * client-named file is opened (base/client-file.ts: O_NOFOLLOW, O_NONBLOCK, the descriptor checked
 * a regular file) and every read streams through that one descriptor from its start — a FIFO or a
 * device put in its place between a look and the open is refused, never waited on, and a second
 * read is of the file the first read, never of another put at the path since.
 */
export function batchReads(batch: string, raw: boolean): BatchReads {
  const o = {
    label: '--batch',
    maxBytes: Number.MAX_SAFE_INTEGER,
    missingCode: 'not_found',
    code: 'io',
  } as const
  const real = resolveClientPath(batch, o)
  let folder = false
  try {
    folder = lstatSync(real).isDirectory()
  } catch {
    // gone since: the open below says so
  }
  if (folder) {
    const listed = listFolder(real)
    return { read: (plan) => folderLines(real, { baseDir: real, raw, plan }, listed), close: () => undefined }
  }
  const { fd } = openClientFile(batch, o)
  // Relative output_file paths are the batch file's neighbours (a harness writes them side by side).
  const opts = { baseDir: dirname(real), raw }
  return {
    read: (plan) => jsonlLines(createReadStream('', { fd, start: 0, autoClose: false }), { ...opts, plan }),
    close: () => closeSync(fd),
  }
}

/** One read of a batch given as a path, its descriptor closed when the read ends. */
export async function* batchLinesFrom(batch: string, raw: boolean): AsyncGenerator<BatchLine> {
  const reads = batchReads(batch, raw)
  try {
    yield* reads.read(false)
  } finally {
    reads.close()
  }
}

/**
 * The batch's reads: it is read twice (planBatch, then decideBatch), so its lines are never all
 * held; a file or a folder through batchReads, stdin read once and kept (bounded).
 */
function readsOf(batch: string, raw: boolean, io: CliIO): BatchReads {
  if (batch !== '-') return batchReads(batch, raw)
  let held: Promise<Buffer> | null = null
  return {
    read: (plan) =>
      (async function* () {
        held ??= io.readStdin(MAX_STDIN_BATCH_BYTES + 1)
        const buf = await held
        if (buf.length > MAX_STDIN_BATCH_BYTES)
          throw new AuditError(
            'too_large',
            `--batch - : stdin is over ${MAX_STDIN_BATCH_BYTES} bytes; write the batch to a file and pass its path`,
          )
        yield* jsonlLines(Readable.from([buf]), { baseDir: process.cwd(), raw, plan })
      })(),
    close: () => undefined,
  }
}

export async function runBatch(values: Values, io: CliIO): Promise<number> {
  const db = typeof values['db'] === 'string' ? values['db'] : undefined
  if (!db) throw new UsageError('the following arguments are required: --db')
  const mixed = SINGLE_ONLY.filter((k) => values[k] !== undefined)
  if (mixed.length > 0)
    throw new AuditError(
      'bad_argument',
      `--batch takes the seqs and outputs from its lines, not --${mixed[0]}`,
    )
  const batch = values['batch'] as string
  if (batch === '') throw new AuditError('bad_argument', '--batch needs a JSONL file, a folder or - (stdin)')
  if (batch === '-' && values['secret-stdin'] === true)
    throw new AuditError('bad_argument', '--batch - and --secret-stdin cannot both read stdin')
  const raw = values['raw'] === true
  const json = values['json'] === true
  const keys = parseSecrets(await secretInputsFrom(values, io, { useEnv: false }))
  if (!existsSync(db)) throw new AuditError('db_missing', `chain DB not found: ${db}`)

  const tally = new BatchTally()
  const emit = (item: ReplayBatchItem): void => {
    tally.add(item)
    io.out(
      json
        ? toJson(batchItemJson(item, keys.length > 0), 0) + '\n'
        : batchItemText(item, keys.length > 0, raw),
    )
  }
  const reads = readsOf(batch, raw, io)
  try {
    return await decideAll(reads, db, keys, emit, tally, json, io)
  } finally {
    reads.close()
  }
}

/** The plan read, the chain read once with the decide read, then the summary. */
async function decideAll(
  reads: BatchReads,
  db: string,
  keys: ReturnType<typeof parseSecrets>,
  emit: (item: ReplayBatchItem) => void,
  tally: BatchTally,
  json: boolean,
  io: CliIO,
): Promise<number> {
  const planned = await planBatch(reads.read(true), emit)
  // A read redone through the copy (the direct reader declined mid-way) prints each line once: the
  // lines are emitted in the batch's order, so the last one emitted says which were.
  let last = 0
  const skip = { has: (line: number): boolean => line <= last }
  await readChainForCli(
    db,
    io,
    (source) =>
      decideBatch(
        source,
        keys,
        reads.read(false),
        (item) => {
          last = item.line
          emit(item)
        },
        { skip, planned },
      ),
    undefined,
    REPLAY_COLUMNS,
  )
  const summary = tally.summary()
  io.out(json ? toJson(summaryJson(summary), 0) + '\n' : summaryText(summary))
  return summary.exit
}
