// Replay verification as an auditor needs it (reference §11.7): the reference's ReplayResult, plus
// whether the row that holds the sealed output_hash verifies on its own (body hash, link to its
// predecessor, HMAC under a candidate key) and, when the original prompt is supplied, whether it
// hashes to the sealed prompt_hash. A match against a row that does not verify proves nothing.
import type { ReplayCheck, ReplayCheckRequest, ReplayResult } from '../../shared/replay-types'
import type { FindingKind, VerifyVerdict } from '../../shared/verify-types'
import { attributesOf } from '../chain/body'
import type { RowSource } from '../chain/source/row-source'
import { AuditError } from '../base/errors'
import { describeFinding } from '../verify/describe'
import { sha256Hex } from '../chain/seal'
import type { KeyMaterial } from '../chain/keys'
import { verifyRows } from '../verify/verify'
import { pyJsonDumpsSorted, pyJsonLoads } from '../python/pyformat'
import { decodeReplayBytes, MAX_REPLAY_FILE_BYTES, textInput, utf8Text, type ReplayInput } from './text'
import { entryOf, verifyReplay } from './verifier'

export interface RowVerification {
  row_verified: boolean | null
  row_detail: string
  findings: FindingKind[]
  key_index: number | null
}

export interface PromptCheck {
  prompt_match: boolean | null
  prompt_detail: string | null
}

/** The canonical_body of one row, or AuditError('not_found', `seq N not found in chain`). */
export function replayBodyAt(source: RowSource, seq: number): Buffer {
  const body = source.col('canonical_body')
  let bytes: Buffer | null | undefined = undefined
  // A copy: the row's bytes are valid only inside the callback (the direct reader reuses its page
  // buffer), and the prompt check reads the body after the row check has read other pages.
  source.find(
    BigInt(seq),
    (c) => {
      const b = c.castBlob(body)
      bytes = b === null ? null : Buffer.from(b)
    },
    ['canonical_body'],
  )
  if (bytes === undefined) throw new AuditError('not_found', `seq ${seq} not found in chain`)
  return bytes ?? Buffer.alloc(0)
}

const FAILING: readonly FindingKind[] = ['body_hash_mismatch', 'link_mismatch', 'hmac_mismatch']

/** Columns the row check reads beyond seq and the body. */
const ROW_CHECK_COLUMNS = ['timestamp_ns', 'canonical_hash', 'prev_hash', 'hmac_hash'] as const

/**
 * A table with only the columns a replay reads (a test table): the row check says so instead of
 * failing. With a key the row was asked to be verified and could not be: not verified. Null: the
 * columns are there.
 */
export function rowUncheckable(source: RowSource, keys: KeyMaterial[]): RowVerification | null {
  const absent = ROW_CHECK_COLUMNS.filter((c) => source.col(c) < 0)
  if (absent.length === 0) return null
  return {
    row_verified: keys.length > 0 ? false : null,
    row_detail: `row not checked: the chain table has no ${absent.join(', ')} column${absent.length > 1 ? 's' : ''}`,
    findings: [],
    key_index: null,
  }
}

/** Verify the single row `seq`: the chain verifier over the range seq..seq (keyless without keys). */
export async function verifyRow(
  source: RowSource,
  keys: KeyMaterial[],
  seq: number,
): Promise<RowVerification> {
  const absent = rowUncheckable(source, keys)
  if (absent !== null) return absent
  const v = await verifyRows(source, keys, { range: { seq_start: seq, seq_end: seq }, keyless: true })
  if (v.entries === 0) throw new AuditError('not_found', `seq ${seq} not found in chain`)
  return rowVerdictWords(v, keys, seq)
}

/**
 * What the verdict of the range seq..seq says of that row (`verifyRow`; the replay batch gives it
 * the verdict of the same checks made inside its one pass, ./batch-rows.ts).
 */
export function rowVerdictWords(v: VerifyVerdict, keys: KeyMaterial[], seq: number): RowVerification {
  const findings = v.findings.map((f) => f.kind)
  const keyIndex = v.key_segments[0]?.key_index ?? null
  const fail = findings.filter((k) => FAILING.includes(k))
  const notes: string[] = []
  if (findings.includes('seq_gap'))
    notes.push(
      `${v.findings.find((f) => f.kind === 'seq_gap')?.missing ?? 0} seq number(s) absent just before this row`,
    )
  if (findings.includes('column_mismatch')) notes.push('its unsealed columns disagree with the sealed body')
  const link =
    v.boundary?.kind === 'trusted'
      ? 'prev_hash accepted as a boundary (no earlier row in this file)'
      : seq <= 1 && !findings.includes('link_mismatch')
        ? 'prev_hash is GENESIS'
        : 'prev_hash links to the previous row'
  const word = (k: FindingKind): string => describeFinding({ kind: k, from_seq: seq, to_seq: seq, count: 1 })
  const noteText = notes.length > 0 ? `; note: ${notes.join('; ')}` : ''
  if (keys.length === 0) {
    const known = fail.filter((k) => k !== 'hmac_mismatch')
    // A body that does not hash to its canonical_hash, or a prev_hash that is not the previous
    // row's hmac_hash, needs no key to be seen (reference §3.2): the row does not verify, whatever
    // a key would say of its HMAC. A match against it proves nothing (issue 37's rule, keyless too).
    if (known.length > 0)
      return {
        row_verified: false,
        row_detail: `row does NOT verify (seen without a key; HMAC not checked): ${known.map(word).join('; ')}${noteText}`,
        findings,
        key_index: null,
      }
    const state = `body hash ok, ${link}`
    return {
      row_verified: null,
      row_detail: `HMAC not checked (no secret given): ${state}${noteText}`,
      findings,
      key_index: null,
    }
  }
  if (fail.length > 0) {
    return {
      row_verified: false,
      row_detail: `row does NOT verify: ${fail.map(word).join('; ')}${noteText}`,
      findings,
      key_index: keyIndex,
    }
  }
  return {
    row_verified: true,
    row_detail: `row verifies: body hash ok, ${link}, HMAC reproduced by key #${(keyIndex ?? 0) + 1}${noteText}`,
    findings,
    key_index: keyIndex,
  }
}

/** What a supplied prompt is compared by: its text's hash, and its hash as a messages list if it is one. */
export interface PromptDigests {
  /** SHA-256 of the prompt's bytes (its UTF-8 when given as text). */
  text: string
  /** SHA-256 of Python's sorted compact `json.dumps` when the prompt is a JSON list, else null. */
  list: string | null
}

/** The digests of a prompt (a batch keeps these instead of the prompt). */
export function promptDigests(prompt: string | Buffer): PromptDigests {
  const bytes = typeof prompt === 'string' ? utf8Text(prompt, 'the prompt') : prompt
  let text: string | null = null
  try {
    text = typeof prompt === 'string' ? prompt : new TextDecoder('utf-8', { fatal: true }).decode(prompt)
  } catch {
    text = null
  }
  let list: string | null = null
  if (text !== null) {
    try {
      const parsed = pyJsonLoads(text.trim())
      if (Array.isArray(parsed)) list = sha256Hex(Buffer.from(pyJsonDumpsSorted(parsed), 'utf8'))
    } catch {
      // not JSON: only the text form applies
    }
  }
  return { text: sha256Hex(bytes), list }
}

/** A prompt's digests against the sealed `bijotel.replay.prompt_hash` of an entry. */
export function comparePrompt(entryBody: unknown, d: PromptDigests): PromptCheck {
  const attrs = attributesOf(entryOf(entryBody))
  const sealed = attrs['bijotel.replay.prompt_hash']
  if (typeof sealed !== 'string') {
    return {
      prompt_match: null,
      prompt_detail: 'entry has no bijotel.replay.prompt_hash; the prompt cannot be checked',
    }
  }
  if (d.text === sealed) {
    return {
      prompt_match: true,
      prompt_detail: 'prompt hash matches the sealed prompt_hash (prompt as text)',
    }
  }
  if (d.list === sealed) {
    return {
      prompt_match: true,
      prompt_detail:
        'prompt hash matches the sealed prompt_hash (prompt as a messages list, Python json.dumps sort_keys)',
    }
  }
  return {
    prompt_match: false,
    prompt_detail: `prompt hash ${d.text} does not match the sealed prompt_hash ${sealed}${d.list !== null ? ' (also tried as a messages list)' : ''}`,
  }
}

/**
 * Compare a supplied prompt with the sealed `bijotel.replay.prompt_hash`: as its UTF-8 text, and —
 * when it is a JSON list (the GenAI messages shape) — as Python's sorted compact `json.dumps` of it.
 */
export function checkPrompt(entryBody: unknown, prompt: string | Buffer): PromptCheck {
  return comparePrompt(entryBody, promptDigests(prompt))
}

export interface ReplayCheckInput {
  seq: number
  output: ReplayInput
  prompt?: string | Buffer
}

/** The whole check for an already-decoded output (the CLI and `checkReplay` share it). */
export async function checkReplayInput(
  source: RowSource,
  keys: KeyMaterial[],
  input: ReplayCheckInput,
): Promise<ReplayCheck> {
  const { seq } = input
  if (!Number.isSafeInteger(seq))
    throw new AuditError('bad_argument', `seq must be an integer, got ${String(seq)}`)
  const body = replayBodyAt(source, seq)
  const result: ReplayResult = verifyReplay(body, input.output.value)
  const row = await verifyRow(source, keys, seq)
  const prompt =
    input.prompt === undefined ? { prompt_match: null, prompt_detail: null } : checkPrompt(body, input.prompt)
  return {
    seq,
    result,
    row_verified: row.row_verified,
    row_detail: row.row_detail,
    prompt_match: prompt.prompt_match,
    prompt_detail: prompt.prompt_detail,
    source: {
      kind: input.output.kind,
      name: input.output.name,
      bytes: input.output.bytes.length,
      sha256_of_bytes: sha256Hex(input.output.bytes),
      mode: input.output.mode,
    },
    checked_at: new Date().toISOString(),
  }
}

/** The replayed output of a request: `text` verbatim, or `file_base64` decoded like --output-file. */
export function requestInput(req: ReplayCheckRequest): ReplayInput {
  const hasText = typeof req.text === 'string'
  const hasFile = typeof req.file_base64 === 'string'
  if (hasText === hasFile) throw new AuditError('bad_argument', 'pass exactly one of text or file_base64')
  if (hasText) return textInput(req.text as string)
  const b64 = req.file_base64 as string
  if (b64.length > Math.ceil((MAX_REPLAY_FILE_BYTES * 4) / 3) + 4) {
    throw new AuditError(
      'too_large',
      `replay file is over the ${MAX_REPLAY_FILE_BYTES}-byte (64 MiB) limit for a replay output`,
    )
  }
  const bytes = Buffer.from(b64, 'base64')
  const mode = req.mode ?? 'python'
  const label = `replay file${req.file_name ? ` ${req.file_name}` : ''}`
  return {
    value: decodeReplayBytes(bytes, mode, label),
    kind: 'file',
    name: req.file_name ?? null,
    bytes,
    mode,
  }
}

/** Library / API entry: ReplayCheckRequest → ReplayCheck. Unknown seq → AuditError('not_found'). */
export async function checkReplay(
  source: RowSource,
  keys: KeyMaterial[],
  req: ReplayCheckRequest,
): Promise<ReplayCheck> {
  const output = requestInput(req)
  return checkReplayInput(source, keys, {
    seq: req.seq,
    output,
    ...(req.prompt !== undefined ? { prompt: req.prompt } : {}),
  })
}
