// A private copy rewritten without auto-vacuum, for the readers that follow page links only. In an
// auto-vacuum file (file-format §1.3 offsets 52 and 64) SQLite may take an overflow chain's next
// page from the pointer map instead of the page's own link (btree.c getOverflowPage: the guess
// ovfl+1 is taken when its pointer-map entry says PTRMAP_OVERFLOW2 from ovfl), so the direct reader
// declines such files. `VACUUM INTO` rebuilds the copy's rows through SQLite, which reads them as
// it always does; with `auto_vacuum = NONE` set first (pragma.c stores it in db->nextAutovac, which
// vacuum.c sqlite3RunVacuum gives the new file) the result has no pointer map, and the same tables,
// rows, rowids (seq is the INTEGER PRIMARY KEY) and sqlite_sequence. Only its page numbers differ.
import Database from 'better-sqlite3'
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { oneLine } from '../base/errors'

export interface PlainView {
  path: string
  /** Removes the view and its folder. */
  release(): void
}

/**
 * `copyPath` (a private copy, never the evidence: `evidence` is the evidence's fstat, and a copy
 * with its device and inode is refused) rebuilt without auto-vacuum in a new folder beside it; or
 * why it could not be.
 */
export function plainView(copyPath: string, evidence: { dev: number; ino: number }): PlainView | string {
  const st = statSync(copyPath)
  if (st.dev === evidence.dev && st.ino === evidence.ino) return 'the copy is the evidence itself'
  const dir = mkdtempSync(join(dirname(copyPath), 'plain-view-'))
  const release = (): void => rmSync(dir, { recursive: true, force: true })
  const path = join(dir, 'chain.db')
  let db: Database.Database | null = null
  try {
    db = new Database(copyPath, { readonly: true, fileMustExist: true })
    db.pragma('auto_vacuum = NONE')
    db.prepare('VACUUM INTO ?').run(path)
    return { path, release }
  } catch (e) {
    release()
    return `SQLite could not rebuild it without auto-vacuum (${oneLine(e)})`
  } finally {
    db?.close()
  }
}
