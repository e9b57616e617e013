// Replays dropped in bulk (issue 37): several files or a folder (files named by seq go to their
// entries; the others wait for a seq the auditor types), or a JSONL batch. Sent to the engine as
// one checkReplayBatch call — the same lines and answers as `bijotel replay --batch` — whose checks
// join the session's (table marks, the report).
import type { ApiClient } from '../../../../shared/contract'
import { isJsonlName, REPLAY_BATCH_BASE64_MAX, seqOfFileName } from '../../../../shared/replay-names'
import type {
  ReplayBatchItem,
  ReplayBatchSummary,
  ReplayCheck,
  ReplayTextMode,
} from '../../../../shared/replay-types'
import { errorMessage } from '../format'
import { readFileBase64 } from '../replay-format'
import { Store } from './store'

export interface ReplayBatchState {
  items: ReplayBatchItem[]
  summary: ReplayBatchSummary | null
  /** Dropped files whose names give no seq: checked once the auditor gives one. */
  pending: File[]
  busy: boolean
  error: string | null
  /** Lines checked past the engine's bound: counted in the summary, not listed here, not kept. */
  omitted: { lines: number; checks: number }
}

const MAX_FILE_BYTES = 64 * 1024 * 1024
/**
 * What one checkReplayBatch call carries, as base64 characters: the engine's bound less room for the
 * JSON around it. A drop is sent as as many calls as it needs, each read just before it is sent.
 */
const PART_CHARS = REPLAY_BATCH_BASE64_MAX - 64 * 1024
const base64Chars = (bytes: number): number => 4 * Math.ceil(bytes / 3)
const MIB = 1024 * 1024

/** One call's worth of the drop: a JSONL file as it is, or replay files made into JSONL lines. */
type Part = { jsonl: File } | { named: [File, number][] }

export class ReplayBatchStore extends Store<ReplayBatchState> {
  constructor(
    private readonly api: ApiClient,
    private readonly hooks: { mode: () => ReplayTextMode; checks: (c: ReplayCheck[]) => void },
  ) {
    super({
      items: [],
      summary: null,
      pending: [],
      busy: false,
      error: null,
      omitted: { lines: 0, checks: 0 },
    })
  }

  /**
   * Files dropped together: JSONL batches as they are, replay files by the seq their name gives.
   * Sizes are judged before any byte is read (a 2 GB file is refused, not read into the page), and
   * the drop is sent in parts no call refuses for size.
   */
  async drop(files: File[]): Promise<void> {
    const jsonl = files.filter((f) => isJsonlName(f.name))
    const named = files.filter((f) => !isJsonlName(f.name) && seqOfFileName(f.name) !== null)
    const unnamed = files.filter((f) => !isJsonlName(f.name) && seqOfFileName(f.name) === null)
    if (unnamed.length > 0) this.update((s) => ({ pending: [...s.pending, ...unnamed] }))
    await this.run(
      this.partsOf(
        jsonl,
        named.map((f) => [f, seqOfFileName(f.name)!]),
      ),
    )
  }

  /** A waiting file, given its seq. */
  async assign(file: File, seq: number): Promise<void> {
    this.update((s) => ({ pending: s.pending.filter((f) => f !== file) }))
    await this.run(this.partsOf([], [[file, seq]]))
  }

  readonly dismiss = (file: File): void =>
    this.update((s) => ({ pending: s.pending.filter((f) => f !== file) }))

  /** The calls a drop is sent as; files too large for one are refused here, with their sizes. */
  private partsOf(jsonl: File[], named: [File, number][]): { parts: Part[]; refused: string | null } {
    const refused: string[] = []
    const parts: Part[] = []
    for (const f of jsonl)
      if (base64Chars(f.size) > PART_CHARS)
        refused.push(
          `${f.name} is ${f.size} bytes: a replay batch above ${Math.floor((PART_CHARS * 3) / 4 / MIB)} MiB is not read (split it)`,
        )
      else parts.push({ jsonl: f })
    let group: [File, number][] = []
    let chars = 0
    for (const [f, seq] of named) {
      // The file's bytes are base64 in its line, and the lines base64 again in the call.
      const line = base64Chars(base64Chars(f.size) + f.name.length * 6 + 128)
      if (f.size > MAX_FILE_BYTES || line > PART_CHARS) {
        refused.push(
          `${f.name} is ${f.size} bytes: replay files above ${Math.floor(Math.min(MAX_FILE_BYTES, (PART_CHARS * 9) / 16) / MIB)} MiB are not read`,
        )
        continue
      }
      if (chars + line > PART_CHARS && group.length > 0) {
        parts.push({ named: group })
        group = []
        chars = 0
      }
      group.push([f, seq])
      chars += line
    }
    if (group.length > 0) parts.push({ named: group })
    const more = refused.length > 1 ? ` (and ${refused.length - 1} more files)` : ''
    return { parts, refused: refused.length > 0 ? `${refused[0]}${more}` : null }
  }

  /** JSONL (base64) of replay files: their bytes as output_base64, named, in the chosen mode. */
  private async linesOf(files: [File, number][]): Promise<string> {
    const raw = this.hooks.mode() === 'raw'
    const lines: string[] = []
    for (const [f, seq] of files) {
      const b64 = await readFileBase64(f)
      lines.push(JSON.stringify({ seq, output_base64: b64, name: f.name, ...(raw ? { raw: true } : {}) }))
    }
    const bytes = new TextEncoder().encode(lines.join('\n') + '\n')
    let bin = ''
    for (let i = 0; i < bytes.length; i += 0x8000)
      bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
    return btoa(bin)
  }

  /** One part's JSONL as base64, read now (only the part being sent is held). */
  private read(part: Part): Promise<string> {
    return 'jsonl' in part ? readFileBase64(part.jsonl) : this.linesOf(part.named)
  }

  /** Bumped when the keys change: a batch's row checks ("row_not_verified") were the old keys'. */
  private keyGen = 0

  /**
   * The keys were replaced: the batch's lines and summary (their row checks, their exit) were decided
   * with the keys held before, so they are taken off the screen, saying why; one still running is
   * not shown when it lands. The session's list of checks is worded again by the engine.
   */
  keysChanged(): void {
    this.keyGen++
    if (this.getState().items.length === 0 && !this.getState().busy) return
    this.update({
      items: [],
      summary: null,
      omitted: { lines: 0, checks: 0 },
      error:
        'The batch was checked with the keys held before: drop its files again to check them with these keys',
    })
  }

  private async run({ parts, refused }: { parts: Part[]; refused: string | null }): Promise<void> {
    if (parts.length === 0) {
      if (refused !== null) this.update({ error: refused })
      return
    }
    this.update({ busy: true, error: refused })
    const gen = this.keyGen
    try {
      for (const part of parts) {
        const jsonl_base64 = await this.read(part)
        if (this.keyGen !== gen) break
        const r = await this.api.checkReplayBatch({ jsonl_base64 })
        if (this.keyGen !== gen) break
        this.update((s) => ({
          items: [...s.items, ...r.items],
          summary: r.summary,
          omitted: {
            lines: s.omitted.lines + (r.items_omitted ?? 0),
            checks: s.omitted.checks + (r.checks_not_kept ?? 0),
          },
        }))
      }
      this.hooks.checks(await this.api.listReplayChecks())
    } catch (e) {
      this.update({ error: refused ?? errorMessage(e) })
    } finally {
      this.update({ busy: false })
    }
  }

  readonly clear = (): void =>
    this.update({ items: [], summary: null, error: null, omitted: { lines: 0, checks: 0 } })
}
