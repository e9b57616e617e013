// Opening a chain.db for direct reading, in place and strictly read-only: no SQLite connection
// touches the evidence (so no -wal/-shm is created and a read-only folder is fine), and nothing is
// copied. The open step (../evidence-files.ts) resolves the path and opens the file and its side
// files once; everything here reads through those descriptors. What is read is what SQLite would
// read after opening the folder as the writer left it: page 1 and every header field as the WAL
// presents them, the WAL's frames by SQLite's recovery rules (./wal.ts), the schema as SQLite
// interprets it (./layout.ts). Any file SQLite might read otherwise — a hot journal it would roll
// back, a header field it would refuse or read differently — throws `Unsupported`; callers then use
// the verified-copy path (../snapshot.ts), where SQLite itself opens a private copy.
import type { Stats } from 'node:fs'
import { AuditError } from '../../base/errors'
import { openEvidence, readAt, unchangedFiles, type EvidenceFiles, type OpenOptions } from '../evidence-files'
import { REQUIRED_COLUMNS } from '../table'
import { CellReader } from '../sqlite/cell'
import { Unsupported } from '../sqlite/decline'
import { DB_HEADER_BYTES, headerPageSize, pageOneFacts, SQLITE_MAGIC } from '../sqlite/header'
import { headerOffset, leafCells } from '../sqlite/page'
import { collectLeaves, type LeafList } from './btree'
import { chainTable, type MasterRow } from './layout'
import { Pager, pagerSpec, type PagerSpec } from './pager'
import { indexWal, NO_WAL, type WalIndex } from './wal'

export interface DirectChain {
  /** The path as given, made absolute (for messages and the evidence record). */
  path: string
  /** The open step's descriptors: the chain's reads go through them. */
  files: EvidenceFiles
  spec: PagerSpec
  reserved: number
  root: number
  /** Record position of each column; the rowid-alias column (seq) reads the rowid instead. */
  columns: Map<string, number>
  ncols: number
  seqColumn: number
  /** Leaf pages of the chain table, in seq order (listed on first use). */
  readonly leaves: LeafList
  wal: WalIndex
  /** Page 1 (as the WAL presents it) says WAL mode (read/write versions 2). */
  walMode: boolean
  stat: { db: Stats; wal: Stats | null }
  /** Gives up this holder's use of the descriptors (see EvidenceFiles.close). */
  close(): void
}

/** sqlite_master's rows in rowid order (the order `sqlite3InitOne` parses them in). */
function readMaster(pager: Pager, reserved: number): MasterRow[] {
  const leaves = collectLeaves(pager, 1)
  const cell = new CellReader(pager, 5, reserved)
  const rows: MasterRow[] = []
  for (const n of leaves.pages) {
    const page = pager.pageCopy(n)
    const count = leafCells(page, n, pager.pageSize, 1)
    for (let k = 0; k < count; k++) {
      cell.read(page, page.readUInt16BE(headerOffset(n) + 8 + 2 * k))
      rows.push({
        type: cell.value(0),
        name: cell.value(1),
        tblName: cell.value(2),
        rootpage: cell.isInt(3) ? (cell.value(3) as number) : null,
        sql: cell.value(4),
      })
    }
  }
  return rows
}

/** A hot rollback journal (pager.c `hasHotJournal`): present, not empty, its first byte not 0. */
function hotJournal(files: EvidenceFiles): boolean {
  const j = files.journal
  if (!j || j.stat.size === 0) return false
  const first = Buffer.alloc(1)
  return readAt(j.fd, first, 0, 1, 0) === 1 && first[0] !== 0
}

function readChain(files: EvidenceFiles): DirectChain {
  const dbStat = files.db.stat
  if (dbStat.size < 512) throw new Unsupported('not a regular file of a database')
  const header = Buffer.alloc(DB_HEADER_BYTES)
  if (readAt(files.db.fd, header, 0, DB_HEADER_BYTES, 0) < DB_HEADER_BYTES)
    throw new Unsupported('short header')
  if (!SQLITE_MAGIC.equals(header.subarray(0, 16))) throw new Unsupported('not SQLite')
  // The page size SQLite opens the file with (btree.c sqlite3BtreeOpen reads the file's header).
  const pageSize = headerPageSize(header)
  if (pageSize === 0) throw new Unsupported('page size')
  if (dbStat.size % pageSize !== 0) throw new Unsupported('partial page')
  // A hot journal is rolled back by SQLite before anything is read (pager.c sqlite3PagerSharedLock):
  // left to SQLite on the private copy.
  if (hotJournal(files)) throw new Unsupported('hot journal')
  // A -wal is opened whenever one exists (pager.c pagerOpenWalIfPresent; os_unix.c unixAccess: a
  // regular file of 0 bytes does not), whatever the header's version bytes say.
  const walFile = files.wal
  const wal = walFile && walFile.stat.size > 0 ? indexWal(walFile.fd, walFile.stat.size, pageSize) : NO_WAL
  // The pager's page count (pager.c pagerPagecount): the WAL's after its last commit, else the file's.
  const pagerPages = wal.dbPages > 0 ? wal.dbPages : dbStat.size / pageSize
  const fds = {
    dbPath: files.db.name,
    walPath: walFile?.name ?? `${files.db.name}-wal`,
    dbFd: files.db.fd,
    walFd: walFile?.fd ?? -1,
  }
  const page1 = new Pager(pagerSpec(fds, pageSize, pagerPages, wal)).pageCopy(1)
  const facts = pageOneFacts(page1, pageSize, pagerPages)
  const spec = pagerSpec(fds, pageSize, facts.nPage, wal)
  const pager = new Pager(spec)
  const { root, layout } = chainTable(readMaster(pager, facts.reserved), facts.nPage)
  if (!layout.seqIsRowid) throw new Unsupported('seq is not the rowid')
  const columns = new Map(layout.names.map((n, i) => [n, i]))
  if (REQUIRED_COLUMNS.some((c) => !columns.has(c))) throw new Unsupported('missing columns')
  spec.root = root
  spec.minFields = layout.minFields
  let leaves: LeafList | null = null
  return {
    path: files.given,
    files,
    spec,
    reserved: facts.reserved,
    root,
    columns,
    ncols: layout.names.length,
    seqColumn: columns.get('seq')!,
    // Listing the leaves reads every interior page of the table b-tree (file format §1.6): only when
    // needed; the integrity window walks the tail of the tree from its right edge instead.
    get leaves(): LeafList {
      leaves ??= collectLeaves(new Pager(spec), root)
      return leaves
    },
    wal,
    walMode: facts.walMode,
    stat: { db: dbStat, wal: walFile && walFile.stat.size > 0 ? walFile.stat : null },
    close: () => files.close(),
  }
}

/**
 * The chain at `path` for direct reading. A missing chain is Unsupported (the copy path says so in
 * its own words); a side file refused by the open step or the policy is an AuditError, the same one
 * the copy path would give.
 */
export function openDirect(path: string, opts: OpenOptions = {}): DirectChain {
  let files: EvidenceFiles
  try {
    files = openEvidence(path, opts)
  } catch (e) {
    if (e instanceof AuditError && e.code === 'db_missing') throw new Unsupported('no such file')
    throw e
  }
  try {
    return readChain(files)
  } catch (e) {
    files.close()
    throw e
  }
}

/**
 * The chain for direct reading from files an open step already holds (a snapshot's): one more hold
 * on them, given up by the chain's close. Nothing is opened again by name.
 */
export function directFrom(files: EvidenceFiles): DirectChain {
  files.hold()
  try {
    return readChain(files)
  } catch (e) {
    files.close()
    throw e
  }
}

/** Whether the evidence is still exactly as it was opened (a writer appending would change it). */
export function unchangedSinceOpen(chain: DirectChain): boolean {
  return unchangedFiles(chain.files)
}

/** Throws `evidence_changed` unless the evidence is still exactly as it was opened. */
export function assertUnchangedSinceOpen(chain: DirectChain): void {
  if (!unchangedSinceOpen(chain))
    throw new AuditError(
      'evidence_changed',
      `evidence changed while it was being read (${chain.path}); stop the writer or copy the file first`,
    )
}

/** Whether the direct reader may be used: `BIJOTEL_READER=sqlite` sends every chain to SQLite. */
export function directAllowed(env: Record<string, string | undefined> = process.env): boolean {
  return env['BIJOTEL_READER'] !== 'sqlite'
}

/**
 * `use` on the chain at `path` read by the direct reader, or undefined when the reader is off,
 * declines the file, or trips anywhere on a shape it did not foresee (a malformed page): the caller
 * then takes the SQLite path, which gives the verdict or the one-line error. An AuditError
 * (cancelled, evidence changed, a row the detectors refuse, a side file refused) is an answer, not
 * a refusal: it passes. The descriptors are closed when `use` ends, unless it held them
 * (`chain.files.hold()`) for later.
 */
export async function withDirect<T>(
  path: string,
  use: (chain: DirectChain) => Promise<T>,
  env: Record<string, string | undefined> = process.env,
  opts: OpenOptions = {},
): Promise<T | undefined> {
  if (!directAllowed(env)) return undefined
  let chain: DirectChain
  try {
    chain = openDirect(path, opts)
  } catch (e) {
    if (e instanceof AuditError) throw e
    return undefined
  }
  try {
    return await use(chain)
  } catch (e) {
    if (e instanceof AuditError) throw e
    return undefined
  } finally {
    chain.close()
  }
}
