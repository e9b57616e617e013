// better-sqlite3, loaded when a path first needs SQLite and not before. It is an optional
// dependency of the published package: the direct file reader (chain/direct) verifies and analyses
// reference chains without it, so an `npm install -g` that could not build it still gives a working
// `bijotel verify`/`integrity`. What needs it — files the direct reader declines (read through
// SQLite on a verified private copy), the chain writer, the table views — gets one line saying what
// to install instead of a module-resolution stack trace.
//
// The built bundles (electron.vite.config.ts) resolve every `import Database from 'better-sqlite3'`
// to this module's default export, so engine code keeps importing the driver by its own name;
// tests run from the sources and load better-sqlite3 itself.
import type BetterSqlite3 from 'better-sqlite3'
import { createRequire } from 'node:module'
import { AuditError } from './errors'

type Driver = typeof BetterSqlite3

/** What to install, in the message of every path that needs SQLite. */
export const SQLITE_MISSING =
  'better-sqlite3 is not installed (or not built for this Node), and this needs SQLite; ' +
  'install it beside bijotel-auditor: npm install better-sqlite3@12 (add -g for a global CLI)'

let driver: Driver | null = null

/** better-sqlite3's constructor, or AuditError('io', SQLITE_MISSING) when it cannot be loaded. */
export function loadSqliteDriver(): Driver {
  if (driver) return driver
  try {
    driver = createRequire(__filename)('better-sqlite3') as Driver
  } catch (e) {
    throw missing(e)
  }
  return driver
}

/** A driver that cannot load: absent, or its native part not built or built for another ABI. */
function isLoadFailure(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code
  return (
    code === 'MODULE_NOT_FOUND' ||
    code === 'ERR_DLOPEN_FAILED' ||
    /Could not locate the bindings file|NODE_MODULE_VERSION|invalid ELF header/.test(String(e))
  )
}

function missing(e: unknown): AuditError {
  return isLoadFailure(e)
    ? new AuditError('io', SQLITE_MISSING)
    : new AuditError('io', `${SQLITE_MISSING} (${String(e).split('\n')[0]})`)
}

/**
 * Stand-in for better-sqlite3's default export: `new Database(path, options)` constructs the real
 * driver's connection (a constructor returning an object makes `new` yield that object).
 */
function Database(this: unknown, ...args: ConstructorParameters<Driver>): BetterSqlite3.Database {
  const Real = loadSqliteDriver()
  try {
    return new Real(...args)
  } catch (e) {
    // better-sqlite3 loads its native part on the first connection, not on require.
    if (isLoadFailure(e)) throw missing(e)
    throw e
  }
}

export default Database as unknown as Driver
