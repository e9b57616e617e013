// Every file this process has read as a client-named input — the chain and its side files, a
// segment, a prior or a report, a replay file, a signing, public or HMAC key file — by its real path
// and by its device and inode. An output a client names (`report -o`, `export --output`, a saved
// report or view) is refused when it would land on one of them: the rename that puts an output in
// place replaces whatever that name held, so `report --segment seg.db -o seg.db` wrote the report
// over a segment of the evidence, and `-o` naming the `--sign-key` file destroyed the auditor's
// private key. A chain's side-file names (`-wal`, `-shm`, `-journal`, SQLite file format §2.1,
// §4.1) are inputs whether or not they exist: a file created under one changes what the chain is.
// Identity (dev, ino) catches a hard link of an input under another name.
import { realpathSync, statSync, type Stats } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { AuditError } from './errors'
import { kindOf } from './file-kind'

/** Kept for the life of the process; bounded so a long-running app cannot grow it without end. */
const MAX_INPUTS = 65536

const byName = new Map<string, string>()
const byIdentity = new Map<string, string>()

function remember(map: Map<string, string>, key: string, what: string): void {
  if (map.has(key)) return
  if (map.size >= MAX_INPUTS) {
    const oldest = map.keys().next()
    if (!oldest.done) map.delete(oldest.value)
  }
  map.set(key, what)
}

/**
 * Notes a file read as input: `real` its real path, `id` its fstat (of the descriptor read), `what`
 * how a refusal names it. `sideNames`: a chain, whose side files' names are inputs too.
 */
export function noteInput(
  real: string,
  id: { dev: number; ino: number },
  what: string,
  sideNames = false,
): void {
  remember(byName, real, what)
  remember(byIdentity, `${id.dev}:${id.ino}`, what)
  if (sideNames)
    for (const side of ['-wal', '-shm', '-journal'])
      remember(byName, real + side, `the ${side} file of ${what}`)
}

function realOr(p: string): string {
  try {
    return realpathSync.native(p)
  } catch {
    return join(realFolder(dirname(p)), basename(p))
  }
}

function realFolder(p: string): string {
  try {
    return realpathSync.native(p)
  } catch {
    const up = dirname(p)
    return up === p ? p : join(realFolder(up), basename(p))
  }
}

/**
 * Throws unless writing `target` (the path the output will be renamed to, as the kernel takes it)
 * leaves every input of this process as it was. `output`: the path as the client gave it.
 */
export function refuseInputTarget(target: string, output: string, what: string): void {
  const shown = output.slice(0, 4096)
  const refuse = (input: string): never => {
    throw new AuditError('bad_argument', `refusing to write ${what} over ${input}, read as input: ${shown}`)
  }
  for (const name of new Set([target, realOr(target)])) {
    const hit = byName.get(name)
    if (hit !== undefined) refuse(hit)
  }
  let st: Stats
  try {
    st = statSync(target)
  } catch {
    return // nothing there yet: no input can be under that name
  }
  const hit = byIdentity.get(`${st.dev}:${st.ino}`)
  if (hit !== undefined) refuse(hit)
  // An output is renamed into place, which replaces whatever the name held: `-o /dev/null` run as
  // root replaced the device with a regular file, a FIFO or socket likewise. Only a regular file
  // (or a folder, refused by the callers in their own words) may stand there.
  if (!st.isFile() && !st.isDirectory())
    throw new AuditError(
      'bad_argument',
      `refusing to write ${what} over ${shown}: it is ${kindOf(st)}, not a regular file (the write would replace it; '-o -' writes to stdout where a command allows it)`,
    )
}
