// The lines of a replay batch (issue 37), each turned at once into what its check needs — the
// replayed output's SHA-256 and its source, the prompt's digests — so that a batch of thousands of
// outputs is held as hashes, never as texts. A line that cannot be checked (not JSON, a wrong field,
// an unreadable, not-UTF-8 or oversized file) becomes a bad line with its one-line reason; it never
// stops the batch. Outputs are hashed as the single-entry command hashes them: `output` verbatim
// (--output), a file as --output-file reads it (reference §6.4; `raw`: its bytes as they are).
import { readdirSync } from 'node:fs'
import { isAbsolute, join, resolve } from 'node:path'
import type { Readable } from 'node:stream'
import { seqOfFileName } from '../../shared/replay-names'
import type { ReplayCheck, ReplayTextMode } from '../../shared/replay-types'
import { AuditError, oneLine } from '../base/errors'
import { duplicateKey, memberLiteral } from '../base/json-keys'
import { sha256Hex } from '../chain/seal'
import { promptDigests, type PromptDigests } from './check'
import { readClientFile } from '../base/client-file'
import { decodeReplayBytes, MAX_REPLAY_FILE_BYTES, utf8Text } from './text'

/**
 * A file a batch names, read through the one way a client-named path is opened (issue 34: resolved
 * by the kernel, opened once O_NOFOLLOW|O_NONBLOCK, the descriptor checked: regular files only,
 * bounded), with the batch's reasons: not_found, io, too_large.
 */
function readReplayFile(path: string, label: string): Buffer {
  return readClientFile(path, {
    label,
    maxBytes: MAX_REPLAY_FILE_BYTES,
    missingCode: 'not_found',
    code: 'io',
    tooLarge: (n) =>
      new AuditError(
        'too_large',
        `${label} ${path} is ${n} bytes, over the ${MAX_REPLAY_FILE_BYTES}-byte limit for a replay output`,
      ),
  })
}

/** Largest batch line: a 64 MiB output as base64 (4/3 of it) and room for the other fields. */
export const MAX_BATCH_LINE_BYTES = 96 * 1024 * 1024

/** A line that can be checked: what the check needs, and nothing of the output but its hash. */
export interface BatchEntry {
  line: number
  name: string
  seq: number
  replayHash: string
  source: ReplayCheck['source']
  prompt: PromptDigests | null
}

export interface BadLine {
  line: number
  name: string
  seq: number | null
  error: string
  /**
   * The line failed only when a file it names was read (output_file, prompt_file, a folder's file):
   * a plan read (LineOptions.plan) opens none, so it counted the line, and the second read reports it.
   */
  named?: true
}

export type BatchLine = BatchEntry | BadLine

export const isBad = (l: BatchLine): l is BadLine => 'error' in l

export interface LineOptions {
  /** Folder relative output_file / prompt_file paths are taken from; null: files are refused (REST). */
  baseDir: string | null
  /** Every file hashed as its bytes (the CLI's --raw); a line's own `raw` also says so. */
  raw: boolean
  /**
   * The first of two reads (replay/batch.ts planBatch): only the seqs are wanted, so no file a line
   * names is opened — each is opened once, by the read that decides the line.
   */
  plan?: boolean
}

/** A line as the plan read keeps it: its seq (nothing of the output is read or used). */
function plannedEntry(line: number, name: string, seq: number): BatchEntry {
  return {
    line,
    name,
    seq,
    replayHash: '',
    source: { kind: 'file', name, bytes: 0, sha256_of_bytes: '', mode: 'python' },
    prompt: null,
  }
}

const FIELDS = new Set([
  'seq',
  'output',
  'output_file',
  'output_base64',
  'name',
  'raw',
  'prompt',
  'prompt_file',
])
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/
const INTEGER = /^-?(0|[1-9][0-9]*)$/

function hashOf(value: string | Buffer): string {
  return sha256Hex(typeof value === 'string' ? Buffer.from(value, 'utf8') : value)
}

function fileSource(name: string, bytes: Buffer, mode: ReplayTextMode): ReplayCheck['source'] {
  return { kind: 'file', name, bytes: bytes.length, sha256_of_bytes: sha256Hex(bytes), mode }
}

function clientPath(opts: LineOptions, field: string, p: string): string {
  if (opts.baseDir === null)
    throw new AuditError(
      'bad_argument',
      `${field} is not accepted here: send the file's bytes as output_base64`,
    )
  return isAbsolute(p) ? p : resolve(opts.baseDir, p)
}

/** A replay file's bytes as the check hashes them; `label` names it in errors. */
function fileEntry(
  line: number,
  seq: number,
  name: string,
  bytes: Buffer,
  mode: ReplayTextMode,
  label: string,
) {
  const value = decodeReplayBytes(bytes, mode, label)
  return { line, name, seq, replayHash: hashOf(value), source: fileSource(name, bytes, mode), prompt: null }
}

function parsed(text: string, line: number, opts: LineOptions): BatchLine {
  let o: unknown
  try {
    o = JSON.parse(text)
  } catch (e) {
    return { line, name: `line ${line}`, seq: null, error: `not JSON (${oneLine(e)})` }
  }
  if (typeof o !== 'object' || o === null || Array.isArray(o))
    return { line, name: `line ${line}`, seq: null, error: 'not a JSON object {"seq": N, "output": ...}' }
  // Two values for one field (`"seq"` twice): which one a reader takes is not settled (RFC 8259 §4).
  const twice = duplicateKey(text)
  if (twice !== null)
    return {
      line,
      name: `line ${line}`,
      seq: null,
      error: `the field ${JSON.stringify(twice.slice(0, 100))} appears twice`,
    }
  const r = o as Record<string, unknown>
  const seqRaw = r['seq']
  // An integer literal only: JSON.parse reads `1.0`, `1e0` and `1.0000000000000001` as 1, and a check
  // of seq 1 would answer for a seq the line does not write (the CLI's --seq takes digits alone).
  const seq =
    typeof seqRaw === 'number' &&
    Number.isSafeInteger(seqRaw) &&
    INTEGER.test(memberLiteral(text, 'seq') ?? '')
      ? seqRaw
      : null
  const name0 =
    typeof r['output_file'] === 'string'
      ? r['output_file']
      : typeof r['name'] === 'string'
        ? r['name']
        : `line ${line}`
  const name = name0.length > 1000 ? `${name0.slice(0, 1000)}\u2026` : name0
  const bad = (error: string): BadLine => ({ line, name, seq, error })
  const unknown = Object.keys(r).filter((k) => !FIELDS.has(k))
  if (unknown.length > 0) return bad(`unknown field ${JSON.stringify(unknown[0]!.slice(0, 100))}`)
  if (seq === null) {
    const lit = (memberLiteral(text, 'seq') ?? 'null').slice(0, 100)
    // Digits past 2^53: an integer, but not one a JSON number holds exactly (RFC 8259 §6).
    return bad(
      INTEGER.test(lit)
        ? `seq ${lit} is beyond the exact range of a JSON number (±2^53)`
        : `seq must be an integer, got ${lit}`,
    )
  }
  for (const k of ['output', 'output_file', 'output_base64', 'name', 'prompt', 'prompt_file'])
    if (r[k] !== undefined && typeof r[k] !== 'string') return bad(`${k} must be a string`)
  if (r['raw'] !== undefined && typeof r['raw'] !== 'boolean') return bad('raw must be true or false')
  // As --output: an empty output counts as absent.
  const given = ['output', 'output_file', 'output_base64'].filter(
    (k) => typeof r[k] === 'string' && r[k] !== '',
  )
  if (given.length !== 1) return bad('give exactly one of output, output_file or output_base64 (not empty)')
  if (r['prompt'] !== undefined && r['prompt_file'] !== undefined)
    return bad('prompt and prompt_file are mutually exclusive')
  const mode: ReplayTextMode = opts.raw || r['raw'] === true ? 'raw' : 'python'
  // Set while a named file is read: its failure is one the plan read could not see (BadLine.named).
  let reading = false
  try {
    let entry: BatchEntry
    if (given[0] === 'output') {
      if (r['raw'] === true)
        return bad('raw applies to output_file and output_base64 (output is hashed verbatim)')
      const t = r['output'] as string
      const bytes = utf8Text(t, 'output')
      entry = {
        line,
        name,
        seq,
        replayHash: sha256Hex(bytes),
        source: {
          kind: 'text',
          name: null,
          bytes: bytes.length,
          sha256_of_bytes: sha256Hex(bytes),
          mode: 'python',
        },
        prompt: null,
      }
    } else if (given[0] === 'output_file') {
      const p = r['output_file'] as string
      if (opts.plan) entry = plannedEntry(line, name, seq)
      else {
        reading = true
        const bytes = readReplayFile(clientPath(opts, 'output_file', p), 'output_file')
        entry = fileEntry(line, seq, name, bytes, mode, `output_file ${p}`)
        reading = false
      }
    } else {
      const b64 = r['output_base64'] as string
      if (!BASE64.test(b64) || b64.length % 4 !== 0) return bad('output_base64 is not base64')
      const bytes = Buffer.from(b64, 'base64')
      entry = fileEntry(
        line,
        seq,
        name,
        bytes,
        mode,
        name === `line ${line}` ? 'output_base64' : `replay file ${name}`,
      )
    }
    if (typeof r['prompt'] === 'string') entry.prompt = promptDigests(r['prompt'])
    else if (typeof r['prompt_file'] === 'string' && !opts.plan) {
      const p = r['prompt_file']
      reading = true
      const bytes = readReplayFile(clientPath(opts, 'prompt_file', p), 'prompt_file')
      entry.prompt = promptDigests(decodeReplayBytes(bytes, mode, `prompt_file ${p}`))
    }
    return entry
  } catch (e) {
    return reading ? { ...bad(oneLine(e)), named: true } : bad(oneLine(e))
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false })

/** One JSONL line's bytes (without its newline) → the line; blank lines give null (skipped). */
export function batchLineOf(bytes: Buffer, line: number, opts: LineOptions): BatchLine | null {
  let text: string
  try {
    text = utf8.decode(bytes) // a leading BOM (line 1 of a Windows file) is dropped
  } catch {
    return { line, name: `line ${line}`, seq: null, error: 'not valid UTF-8' }
  }
  if (text.trim() === '') return null
  return parsed(text, line, opts)
}

/**
 * How far past the bound the rest of an over-long line is skipped, looking for its end, in bounds:
 * beyond this the batch stops there. A line has no end but its newline, so without this a file of
 * one endless line (a sparse file of terabytes) was read to its end before its one error.
 */
export const BATCH_LINE_SKIP_FACTOR = 8

/**
 * The lines of a JSONL stream, read a chunk at a time: a line is held only until its newline, and a
 * line over `maxLineBytes` is dropped as it arrives (reported as a bad line, its rest skipped). A
 * line whose end is not found within BATCH_LINE_SKIP_FACTOR bounds ends the batch: its bad line
 * says so, and nothing after it is read.
 */
export async function* jsonlLines(
  stream: Readable,
  opts: LineOptions,
  maxLineBytes = MAX_BATCH_LINE_BYTES,
): AsyncGenerator<BatchLine> {
  let parts: Buffer[] = []
  let held = 0
  let over = 0
  let line = 1
  const end = (): BatchLine | null => {
    const l = line++
    if (over > 0) {
      const n = over
      parts = []
      held = 0
      over = 0
      return {
        line: l,
        name: `line ${l}`,
        seq: null,
        error: `line is over ${maxLineBytes} bytes (${n}+ bytes), the bound for one batch line`,
      }
    }
    const bytes = Buffer.concat(parts)
    parts = []
    held = 0
    return batchLineOf(bytes.at(-1) === 0x0d ? bytes.subarray(0, -1) : bytes, l, opts)
  }
  for await (const chunk of stream) {
    let buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : (chunk as Buffer)
    for (;;) {
      const nl = buf.indexOf(0x0a)
      const piece = nl < 0 ? buf : buf.subarray(0, nl)
      if (over > 0) {
        over += piece.length
        if (nl < 0 && over > maxLineBytes * BATCH_LINE_SKIP_FACTOR) {
          yield {
            line,
            name: `line ${line}`,
            seq: null,
            error: `line is over ${maxLineBytes} bytes with no line end in its first ${over} bytes, the bound for one batch line: the batch stops here, nothing after it was read`,
          }
          return
        }
      } else if (held + piece.length > maxLineBytes) {
        over = held + piece.length
        parts = []
        held = 0
      } else {
        parts.push(Buffer.from(piece))
        held += piece.length
      }
      if (nl < 0) break
      const l = end()
      if (l !== null) yield l
      buf = buf.subarray(nl + 1)
    }
  }
  if (held > 0 || over > 0) {
    const l = end()
    if (l !== null) yield l
  }
}

/** A folder's names with the seq each gives, in seq order (then name): listed once a batch. */
export function listFolder(dir: string): { n: string; seq: number | null }[] {
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch (e) {
    throw new AuditError('not_found', `cannot read --batch folder ${dir}: ${oneLine(e)}`)
  }
  return names
    .map((n) => ({ n, seq: seqOfFileName(n) }))
    .sort((a, b) => (a.seq ?? Infinity) - (b.seq ?? Infinity) || (a.n < b.n ? -1 : a.n > b.n ? 1 : 0))
}

/** A folder of files named by seq, in seq order (then name); other names are bad lines. */
export function* folderLines(
  dir: string,
  opts: LineOptions,
  listed: readonly { n: string; seq: number | null }[] = listFolder(dir),
): Generator<BatchLine> {
  let line = 0
  for (const { n, seq } of listed) {
    line++
    if (seq === null) {
      yield { line, name: n, seq: null, error: 'file name gives no seq (name it replay-N.txt or N.txt)' }
      continue
    }
    if (opts.plan) {
      yield plannedEntry(line, n, seq)
      continue
    }
    try {
      const bytes = readReplayFile(join(dir, n), 'replay file')
      yield fileEntry(line, seq, n, bytes, opts.raw ? 'raw' : 'python', `replay file ${n}`)
    } catch (e) {
      yield { line, name: n, seq, error: oneLine(e), named: true }
    }
  }
}
