// Replays dropped in bulk (issue 37): several files or a folder (files named by seq go to their
// entries; the others wait for a seq the auditor types), or a JSONL batch. Sent to the engine as
// one checkReplayBatch call — the same lines and answers as `bijotel replay --batch` — whose checks
// join the session's (table marks, the report).
import type { ApiClient } from '../../../../shared/contract'
import { isJsonlName, seqOfFileName } from '../../../../shared/replay-names'
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
}

const MAX_FILE_BYTES = 64 * 1024 * 1024

export class ReplayBatchStore extends Store<ReplayBatchState> {
  constructor(
    private readonly api: ApiClient,
    private readonly hooks: { mode: () => ReplayTextMode; checks: (c: ReplayCheck[]) => void },
  ) {
    super({ items: [], summary: null, pending: [], busy: false, error: null })
  }

  /** Files dropped together: JSONL batches as they are, replay files by the seq their name gives. */
  async drop(files: File[]): Promise<void> {
    const jsonl = files.filter((f) => isJsonlName(f.name))
    const named = files.filter((f) => !isJsonlName(f.name) && seqOfFileName(f.name) !== null)
    const unnamed = files.filter((f) => !isJsonlName(f.name) && seqOfFileName(f.name) === null)
    if (unnamed.length > 0) this.update((s) => ({ pending: [...s.pending, ...unnamed] }))
    const parts: string[] = []
    for (const f of jsonl) parts.push(await readFileBase64(f))
    if (named.length > 0) parts.push(await this.linesOf(named.map((f) => [f, seqOfFileName(f.name)!])))
    if (parts.length > 0) await this.run(parts)
  }

  /** A waiting file, given its seq. */
  async assign(file: File, seq: number): Promise<void> {
    this.update((s) => ({ pending: s.pending.filter((f) => f !== file) }))
    await this.run([await this.linesOf([[file, seq]])])
  }

  readonly dismiss = (file: File): void =>
    this.update((s) => ({ pending: s.pending.filter((f) => f !== file) }))

  /** JSONL (base64) of replay files: their bytes as output_base64, named, in the chosen mode. */
  private async linesOf(files: [File, number][]): Promise<string> {
    const raw = this.hooks.mode() === 'raw'
    const lines: string[] = []
    for (const [f, seq] of files) {
      if (f.size > MAX_FILE_BYTES) {
        this.update({ error: `${f.name} is ${f.size} bytes: replay files above 64 MiB are not read` })
        continue
      }
      const b64 = await readFileBase64(f)
      lines.push(JSON.stringify({ seq, output_base64: b64, name: f.name, ...(raw ? { raw: true } : {}) }))
    }
    const bytes = new TextEncoder().encode(lines.join('\n') + '\n')
    let bin = ''
    for (let i = 0; i < bytes.length; i += 0x8000)
      bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
    return btoa(bin)
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
      error:
        'The batch was checked with the keys held before: drop its files again to check them with these keys',
    })
  }

  private async run(batches: string[]): Promise<void> {
    this.update({ busy: true, error: null })
    const gen = this.keyGen
    try {
      for (const jsonl_base64 of batches) {
        const r = await this.api.checkReplayBatch({ jsonl_base64 })
        if (this.keyGen !== gen) break
        this.update((s) => ({ items: [...s.items, ...r.items], summary: r.summary }))
      }
      this.hooks.checks(await this.api.listReplayChecks())
    } catch (e) {
      this.update({ error: errorMessage(e) })
    } finally {
      this.update({ busy: false })
    }
  }

  readonly clear = (): void => this.update({ items: [], summary: null, error: null })
}
