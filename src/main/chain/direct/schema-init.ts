// The schema rows parsed as SQLite parses them when it opens the file (prepare.c sqlite3InitOne and
// sqlite3InitCallback), not as statements run on a live connection: at open SQLite is in "init"
// mode, where some texts a connection would accept are corruption — a schema-qualified name
// (build.c sqlite3TwoPartName: "corrupt database"), among others. Rather than list those rules, the
// rows are written as they are stored into the sqlite_master of a small database image, and SQLite
// is made to open it (sqlite3_deserialize) and load its schema: an error there is SQLite refusing the
// evidence file too ("malformed database schema"), and the direct reader declines it.
import { Unsupported } from '../sqlite/decline'

type Driver = typeof import('better-sqlite3')

/** One sqlite_master row as stored (layout.ts MasterRow). */
interface StoredRow {
  type: unknown
  name: unknown
  tblName: unknown
  rootpage: number | null
  sql: unknown
}

/**
 * Throws Unsupported when SQLite would not load `rows` (sqlite_master in rowid order, their root
 * pages already checked as distinct pages of the file) as a schema.
 */
export function checkInitParse(Database: Driver, rows: readonly StoredRow[]): void {
  // Root pages renumbered 2, 3, … in the same order: checkRoots has held them to distinct pages
  // of the file, and the image needs them to be pages of its own (the extra schema checks).
  const order = [...new Set(rows.map((r) => r.rootpage!))].sort((a, b) => a - b)
  const img = new Database(':memory:')
  let image: Buffer
  try {
    // better-sqlite3 opens in SQLite's defensive mode, which forbids writable_schema.
    img.unsafeMode(true)
    img.pragma('writable_schema = ON')
    const put = img.prepare(
      'INSERT INTO sqlite_master (type, name, tbl_name, rootpage, sql) VALUES (?, ?, ?, ?, ?)',
    )
    for (const r of rows) put.run(r.type, r.name, r.tblName, 2 + order.indexOf(r.rootpage!), r.sql)
    img.pragma('writable_schema = OFF')
    image = img.serialize()
  } catch (e) {
    throw new Unsupported(`schema rows not storable: ${(e as Error).message}`)
  } finally {
    img.close()
  }
  // Empty pages for the roots: loading the schema reads none of them.
  const pageSize = image.readUInt16BE(16) === 1 ? 65536 : image.readUInt16BE(16)
  const pages = image.length / pageSize
  const want = order.length + 1
  if (want > pages) {
    image = Buffer.concat([image, Buffer.alloc((want - pages) * pageSize)])
    image.writeUInt32BE(want, 28)
  }
  const db = new Database(image)
  try {
    db.prepare('SELECT count(*) FROM sqlite_master').get()
  } catch (e) {
    throw new Unsupported(`SQLite would not load this schema: ${(e as Error).message}`)
  } finally {
    db.close()
  }
}
