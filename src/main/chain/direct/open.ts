// Opening a chain.db for direct reading, in place and strictly read-only: no SQLite connection
// touches the evidence (so no -wal/-shm is created and a read-only folder is fine), and nothing is
// copied. The file's own header, its sqlite_master and its WAL are parsed here; the table's column
// layout comes from ./layout.ts.
// Any shape this reader does not handle throws `Unsupported`; callers then use the verified-copy
// path (../snapshot.ts), which also produces the one-line errors for files that are not chains.
import { closeSync, fstatSync, openSync, readSync, statSync, type Stats } from 'node:fs'
import { resolve } from 'node:path'
import { AuditError } from '../../errors'
import { REQUIRED_COLUMNS } from '../table'
import { CellReader, collectLeaves, headerOffset, type LeafList } from './btree'
import { PAGE_LEAF_TABLE, Unsupported } from './format'
import { columnLayout } from './layout'
import { Pager, pagerSpec, type PagerSpec } from './pager'
import { indexWal, NO_WAL, type WalIndex } from './wal'

export interface DirectChain {
  path: string
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
  /** The header says WAL mode (read/write versions 2). */
  walMode: boolean
  stat: { db: Stats; wal: Stats | null }
}

function statOrNull(p: string): Stats | null {
  try {
    return statSync(p)
  } catch {
    return null
  }
}

interface MasterRow {
  type: unknown
  name: unknown
  rootpage: unknown
  sql: unknown
}

function readMaster(pager: Pager, reserved: number): MasterRow[] {
  const leaves = collectLeaves(pager, 1)
  const cell = new CellReader(pager, 5, reserved)
  const rows: MasterRow[] = []
  for (const n of leaves.pages) {
    const page = pager.pageCopy(n)
    const h = headerOffset(n)
    if (page[h] !== PAGE_LEAF_TABLE) throw new Unsupported('sqlite_master leaf is not a leaf')
    const count = page.readUInt16BE(h + 3)
    for (let i = 0; i < count; i++) {
      cell.read(page, page.readUInt16BE(h + 8 + 2 * i))
      rows.push({ type: cell.value(0), name: cell.value(1), rootpage: cell.value(3), sql: cell.value(4) })
    }
  }
  return rows
}

export function openDirect(path: string): DirectChain {
  const abs = resolve(path)
  const dbStat = statOrNull(abs)
  if (!dbStat?.isFile() || dbStat.size < 512) throw new Unsupported('not a regular file of a database')
  const walPath = `${abs}-wal`
  const walStat = statOrNull(walPath)
  // A hot rollback journal would be replayed by SQLite: leave that file to SQLite.
  if (statOrNull(`${abs}-journal`)?.size) throw new Unsupported('hot journal')

  const header = Buffer.alloc(100)
  const fd = openSync(abs, 'r')
  try {
    if (readSync(fd, header, 0, 100, 0) < 100) throw new Unsupported('short header')
    if (fstatSync(fd).size !== dbStat.size) throw new Unsupported('file changed')
  } finally {
    closeSync(fd)
  }
  if (header.toString('latin1', 0, 16) !== 'SQLite format 3\0') throw new Unsupported('not SQLite')
  const raw = header.readUInt16BE(16)
  const pageSize = raw === 1 ? 65536 : raw
  if (pageSize < 512 || (pageSize & (pageSize - 1)) !== 0) throw new Unsupported('page size')
  if (dbStat.size % pageSize !== 0) throw new Unsupported('partial page')
  const reserved = header[20]!
  if (header.readUInt32BE(56) !== 1) throw new Unsupported('text encoding is not UTF-8')
  const filePages = dbStat.size / pageSize
  const headerPages = header.readUInt32BE(28)
  const headerValid = headerPages > 0 && header.readUInt32BE(92) === header.readUInt32BE(24)
  if (headerValid && headerPages > filePages) throw new Unsupported('truncated')

  const wal = walStat?.isFile() && walStat.size > 0 ? indexWal(walPath, pageSize) : NO_WAL
  const dbPages = wal.dbPages > 0 ? wal.dbPages : headerValid ? headerPages : filePages
  const spec = pagerSpec(abs, walPath, pageSize, dbPages, wal)
  const pager = new Pager(spec)
  try {
    // With the WAL applied, page 1 (and so the schema) may be newer than the file's header.
    const master = readMaster(pager, reserved).filter(
      (r) => typeof r.name === 'string' && r.name.toLowerCase() === 'chain',
    )
    if (master.length !== 1 || master[0]!.name !== 'chain' || master[0]!.type !== 'table')
      throw new Unsupported('no single stored chain table')
    const { rootpage, sql } = master[0]!
    if (typeof rootpage !== 'number' || !Number.isInteger(rootpage) || typeof sql !== 'string')
      throw new Unsupported('bad chain table entry')
    const layout = columnLayout(sql)
    if (!layout.seqIsRowid) throw new Unsupported('seq is not the rowid')
    const columns = new Map(layout.names.map((n, i) => [n, i]))
    if (REQUIRED_COLUMNS.some((c) => !columns.has(c))) throw new Unsupported('missing columns')
    let leaves: LeafList | null = null
    return {
      path: abs,
      spec,
      reserved,
      root: rootpage,
      columns,
      ncols: layout.names.length,
      seqColumn: columns.get('seq')!,
      // Listing the leaves reads every interior page (~0.1 s on a 2 GB chain): only when needed;
      // the integrity window walks the tail of the tree instead.
      get leaves(): LeafList {
        if (leaves === null) {
          const p = new Pager(spec)
          try {
            leaves = collectLeaves(p, rootpage)
          } finally {
            p.close()
          }
        }
        return leaves
      },
      wal,
      walMode: header[18] === 2 || header[19] === 2,
      stat: { db: dbStat, wal: walStat?.isFile() ? walStat : null },
    }
  } finally {
    pager.close()
  }
}

/** Whether the evidence is still exactly as it was opened (a writer appending would change it). */
export function unchangedSinceOpen(chain: DirectChain): boolean {
  const db = statOrNull(chain.path)
  const wal = statOrNull(chain.spec.walPath)
  const same = (a: Stats | null, b: Stats | null): boolean =>
    a === null ? b === null || b.size === 0 : b !== null && a.size === b.size && a.mtimeMs === b.mtimeMs
  return same(chain.stat.db, db) && same(chain.stat.wal, wal)
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
 * (cancelled, evidence changed, a row the detectors refuse) is an answer, not a refusal: it passes.
 */
export async function withDirect<T>(
  path: string,
  use: (chain: DirectChain) => Promise<T>,
  env: Record<string, string | undefined> = process.env,
): Promise<T | undefined> {
  if (!directAllowed(env)) return undefined
  try {
    return await use(openDirect(path))
  } catch (e) {
    if (e instanceof AuditError) throw e
    return undefined
  }
}
