// A chain opened through its verified private copy (the app, `report`, and every file the direct
// reader declines): SQLite on the copy, and the direct reader on the copy where it takes it — the
// same bytes SQLite sees, read several times faster.
import type Database from 'better-sqlite3'
import type { Evidence } from '../../../shared/chain-types'
import { AuditError } from '../../base/errors'
import { directAllowed, openDirect } from '../direct/open'
import { ChainFile, openCopy } from '../reader'
import { CopySource } from './copy-source'
import { DirectSource } from './direct-source'
import type { SnapshotOptions } from '../snapshot'
import type { EvidenceFiles } from '../evidence-files'
import type { EvidenceSearch, HeldChain } from './held-chain'
import type { RowSource } from './row-source'

export interface OpenOptions {
  env?: Record<string, string | undefined>
  /** How the private copy is made. */
  copy?: SnapshotOptions
  /** The columns the caller reads (default: all a verification needs; see ChainFile.open). */
  required?: readonly string[]
  /** Why the file is read through a copy (the app's open: the direct reader declined it); the record says so. */
  because?: string
}

/** A copy source over an opened chain's connection (closing it leaves the chain open). */
export function copySourceOf(chain: ChainFile): CopySource {
  return new CopySource({
    db: chain.db,
    columns: chain.columns,
    copyPath: chain.snapshot.dbPath,
    displayPath: chain.displayPath,
    evidence: chain.snapshot.evidence,
    held: chain.snapshot,
    connect: () => openCopy(chain.snapshot.dbPath, chain.displayPath, []).db,
  })
}

/** A copy source of its own over a copy already made (a worker thread's, for one pass). */
export function copySourceAt(copyPath: string, displayPath: string): CopySource {
  // The parent opened the copy first and checked the columns its caller reads. A worker's
  // connections are its pass's own: they map the copy.
  const { db, columns } = openCopy(copyPath, displayPath, [], true)
  const connect = (): Database.Database => openCopy(copyPath, displayPath, [], true).db
  return new CopySource({ db, columns, copyPath, displayPath, connect }, () => db.close())
}

/** A chain opened through its verified private copy, read by the direct reader on it, else SQLite. */
export class OpenedChain implements HeldChain {
  readonly kind = 'copy' as const
  readonly copy: CopySource
  private direct: DirectSource | null | undefined = undefined
  private readonly record: Evidence

  private constructor(
    readonly file: ChainFile,
    private readonly env: Record<string, string | undefined>,
    because?: string,
  ) {
    this.copy = copySourceOf(file)
    const ev = file.snapshot.evidence
    this.record =
      because === undefined
        ? ev
        : { ...ev, method: `read through a private copy because ${because}: ${ev.method}` }
  }

  static async open(path: string, opts: OpenOptions = {}): Promise<OpenedChain> {
    const file = await ChainFile.open(path, {
      ...opts.copy,
      ...(opts.required ? { required: opts.required } : {}),
    })
    return new OpenedChain(file, opts.env ?? process.env, opts.because)
  }

  get displayPath(): string {
    return this.file.displayPath
  }

  get readPath(): string {
    return this.file.snapshot.dbPath
  }

  get files(): EvidenceFiles {
    return this.file.snapshot.files
  }

  searchTarget(): EvidenceSearch {
    return { files: this.files, dbPath: this.readPath }
  }

  /** The snapshot hashed original and copy while copying: the record is complete from the open. */
  evidence(): Evidence {
    return this.record
  }

  hashed(): Promise<Evidence> {
    return Promise.resolve(this.record)
  }

  /** Over a chain already opened (the caller keeps it; `close` closes it). */
  static over(file: ChainFile, env: Record<string, string | undefined> = process.env): OpenedChain {
    return new OpenedChain(file, env)
  }

  private directSource(): DirectSource | null {
    if (this.direct === undefined) {
      this.direct = null
      if (directAllowed(this.env)) {
        try {
          this.direct = DirectSource.owning(
            openDirect(this.file.snapshot.dbPath),
            this.file.snapshot.evidence,
            this.file.displayPath,
          )
        } catch (e) {
          if (e instanceof AuditError) throw e
        }
      }
    }
    return this.direct
  }

  /** `use` through the direct reader on the copy, else (declined, or a shape it did not foresee) SQLite. */
  async read<T>(use: (source: RowSource) => Promise<T> | T): Promise<T> {
    const direct = this.directSource()
    if (direct !== null) {
      try {
        return await use(direct)
      } catch (e) {
        this.declined(e)
      }
    }
    return use(this.copy)
  }

  /** `read` for a synchronous `use` (the entries table's rows). */
  readNow<T>(use: (source: RowSource) => T): T {
    const direct = this.directSource()
    if (direct !== null) {
      try {
        return use(direct)
      } catch (e) {
        this.declined(e)
      }
    }
    return use(this.copy)
  }

  /** An AuditError is an answer; anything else leaves this file to SQLite from now on. */
  private declined(e: unknown): void {
    if (e instanceof AuditError) throw e
    this.direct?.close()
    this.direct = null
  }

  close(): void {
    this.direct?.close()
    this.direct = null
    this.copy.close()
    this.file.close()
  }
}
