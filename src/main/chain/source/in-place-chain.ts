// A chain read where it lies (the app's open of every file the direct reader takes): the direct
// reader on the evidence's own descriptors, opened once, read-only (../direct/open.ts), nothing
// copied to disk or memory. The evidence is hashed once, in the background (startHash), through the same
// descriptors (../evidence-record.ts), and that record is what verify, the report and the evidence
// panel show: nothing hashes the file again while it is unchanged. Every read is followed by the
// change check (size, mtime, names: ../evidence-files.ts `unchangedFiles`), so no answer is given
// about bytes other than those opened — and the record says CHANGED once the files moved.
//
// A page the reader does not foresee in the middle of a pass (it declines rather than misreads,
// ../sqlite/decline.ts) hands the chain over to the verified private copy, made then through
// `toCopy`, and every later read goes there: the answer comes from SQLite, as the CLI's readChain
// redoes such a pass.
import type { Evidence } from '../../../shared/chain-types'
import { AuditError, oneLine } from '../../base/errors'
import { unchangedFiles, type EvidenceFiles } from '../evidence-files'
import { evidenceUnhashed, hashEvidence } from '../evidence-record'
import type { DirectSource } from './direct-source'
import type { EvidenceSearch, HeldChain } from './held-chain'
import type { RowSource } from './row-source'

export const IN_PLACE_METHOD =
  'read in place, read-only, by the direct file reader: nothing copied; the chain and its -wal hashed through the descriptors the rows are read from, size and mtime re-checked after'

export interface InPlaceOptions {
  /** The private copy to read from once the reader declined a page mid-pass (why, in words). */
  toCopy?: (because: string) => Promise<HeldChain>
}

export class InPlaceChain implements HeldChain {
  readonly kind = 'in-place' as const
  readonly displayPath: string
  readonly files: EvidenceFiles
  private record: Evidence | null = null
  private hashing: Promise<Evidence> | null = null
  private readonly stop = new AbortController()
  /** The copy taking over after a mid-pass decline (null until one happened). */
  private copy: Promise<HeldChain> | null = null
  private copied: HeldChain | null = null
  private closed = false

  /** `source` owns the evidence's descriptors (DirectSource.owning); this chain closes it. */
  constructor(
    readonly source: DirectSource,
    private readonly opts: InPlaceOptions = {},
  ) {
    const file = source.file
    if (file === null) throw new Error('InPlaceChain: a worker source has no file')
    this.displayPath = source.displayPath
    this.files = file.files
  }

  /**
   * Start the evidence hash (once): one stream per file, on its own thread when large. The opener
   * starts it after its first pass, so the overview and first rows do not share a core with it.
   */
  startHash(): void {
    if (this.hashing !== null || this.closed) return
    this.hashing = hashEvidence(this.files, IN_PLACE_METHOD, this.stop.signal).then((ev) => {
      this.record = ev
      return ev
    })
    this.hashing.catch(() => undefined) // awaited by hashed(); a close aborts it
  }

  get readPath(): string {
    return this.copied?.readPath ?? this.files.db.real
  }

  searchTarget(): EvidenceSearch {
    return { files: this.files, dbPath: this.readPath }
  }

  evidence(): Evidence {
    if (this.copied) return this.copied.evidence()
    if (this.record === null) return evidenceUnhashed(this.files, IN_PLACE_METHOD)
    // Hashed and found unchanged then; a later change of the files is shown as one.
    return this.files.closed || unchangedFiles(this.files)
      ? this.record
      : { ...this.record, unchanged_after_copy: false }
  }

  async hashed(): Promise<Evidence> {
    this.startHash()
    if (this.hashing === null) throw this.gone()
    await this.hashing
    return this.evidence()
  }

  async read<T>(use: (source: RowSource) => Promise<T> | T): Promise<T> {
    if (this.closed) throw this.gone()
    if (this.copy) return (await this.copy).read(use)
    try {
      const out = await use(this.source)
      this.source.assertUnchanged()
      return out
    } catch (e) {
      return (await this.declined(e)).read(use)
    }
  }

  readNow<T>(use: (source: RowSource) => T): T {
    if (this.closed) throw this.gone()
    if (this.copied) return this.copied.readNow(use)
    if (this.copy) throw this.notYet()
    try {
      const out = use(this.source)
      this.source.assertUnchanged()
      return out
    } catch (e) {
      void this.declined(e).catch(() => undefined)
      throw this.notYet()
    }
  }

  private gone(): AuditError {
    return new AuditError('cancelled', `${this.displayPath} was closed meanwhile; ask again`)
  }

  private notYet(): AuditError {
    return new AuditError(
      'unavailable',
      `the file reader declined a page of ${this.displayPath}: it is being read through a private copy; ask again`,
    )
  }

  /** An AuditError is an answer; anything else hands the chain over to a private copy. */
  private declined(e: unknown): Promise<HeldChain> {
    if (this.closed) throw this.gone()
    if (e instanceof AuditError || !this.opts.toCopy) throw e
    if (!this.copy) {
      this.copy = this.opts.toCopy(`the direct file reader declined a page mid-pass (${oneLine(e)})`)
      this.copy.then(
        (c) => {
          if (this.closed) c.close()
          else this.copied = c
        },
        () => undefined,
      )
    }
    return this.copy
  }

  close(): void {
    if (this.closed) return
    this.closed = true
    this.stop.abort()
    this.source.close()
    this.copied?.close()
  }
}
