// The bench's floors for issue 36, measured in the same run as what they bound:
// - the one-stream SHA-256 of the whole file (the `Evidence:` line's hash: it cannot be split);
// - all the SHA-256 and HMAC work verify must do — the bodies' SHA-256, the file's, and each row's
//   HMAC (five SHA-256 blocks: the key's inner pad, the 128 hex characters of prev ‖ canonical and
//   their padding, the outer pad and the inner digest), measured at bulk SHA-256 speed — divided by
//   the cores;
// - a naive Python loop (sqlite3 + hashlib + hmac, one thread), the peer an auditor would write.
import { spawnSync } from 'node:child_process'
import { createHash, hash as oneShotHash } from 'node:crypto'
import { closeSync, openSync, readSync } from 'node:fs'

/** SHA-256 of the file read in 1 MB pieces on this thread, one stream, as the Evidence line needs it. */
export function oneStreamFileSha(path: string): { ms: number; hex: string } {
  const t = performance.now()
  const fd = openSync(path, 'r')
  const buf = Buffer.allocUnsafe((1 << 20) + 64).subarray(64) // skewed: see chain/read-buffer.ts
  const h = createHash('sha256')
  try {
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null)
      if (n <= 0) break
      h.update(n === buf.length ? buf : buf.subarray(0, n))
    }
  } finally {
    closeSync(fd)
  }
  return { ms: performance.now() - t, hex: h.digest('hex') }
}

/**
 * The one-stream SHA-256's time as the floor takes it: the median of `runs` measurements. One
 * measurement moved 1,516–1,825 ms between two bench runs minutes apart (stop 51) while verify moved
 * 2,260–2,317 ms, so the ratio to the floor read 1.24x in one run and 1.53x in the next.
 */
export function medianOneStream(path: string, runs: number): { ms: number; all: number[] } {
  const all = Array.from({ length: Math.max(1, runs) }, () => oneStreamFileSha(path).ms)
  return { ms: [...all].sort((a, b) => a - b)[Math.floor(all.length / 2)]!, all }
}

/** The HMACs' SHA-256 blocks for `rows` rows, hashed in bulk (no per-call set-up): 5 × 64 bytes a row. */
export function hmacWorkMs(rows: number): number {
  const piece = Buffer.alloc(16 << 20, 0x61)
  let left = rows * 5 * 64
  const t = performance.now()
  while (left > 0) {
    const n = Math.min(left, piece.length)
    oneShotHash('sha256', n === piece.length ? piece : piece.subarray(0, n), 'hex')
    left -= n
  }
  return performance.now() - t
}

export interface Floor {
  fileMs: number
  allWorkMs: number
  cores: number
  /** max(fileMs, allWorkMs / cores) */
  ms: number
  line: string
}

export function verifyFloor(fileMs: number, bodiesBulkMs: number, hmacMs: number, cores: number): Floor {
  const allWorkMs = fileMs + bodiesBulkMs + hmacMs
  const ms = Math.max(fileMs, allWorkMs / cores)
  const f = (n: number): string => n.toFixed(0)
  return {
    fileMs,
    allWorkMs,
    cores,
    ms,
    line:
      `verify floor: max(one-stream file SHA-256 ${f(fileMs)} ms, all SHA-256+HMAC work ` +
      `${f(allWorkMs)} ms [file ${f(fileMs)} + bodies ${f(bodiesBulkMs)} + HMACs ${f(hmacMs)}] / ${cores} cores) = ${f(ms)} ms`,
  }
}

const NAIVE_PY = `
import hashlib, hmac, sqlite3, sys, time
path, key = sys.argv[1], bytes.fromhex(sys.argv[2])
t = time.perf_counter()
con = sqlite3.connect("file:" + path + "?mode=ro", uri=True)
prev, ok, n = "0" * 64, True, 0
for body, ch, ph, mac in con.execute("SELECT canonical_body, canonical_hash, prev_hash, hmac_hash FROM chain ORDER BY seq"):
    if isinstance(body, str):
        body = body.encode()
    c = hashlib.sha256(body).hexdigest()
    m = hmac.new(key, (ph + ch).encode(), hashlib.sha256).hexdigest()
    ok = ok and c == ch and ph == prev and m == mac
    prev, n = mac, n + 1
print(n, "valid" if ok else "INVALID", (time.perf_counter() - t) * 1000)
`

/** The naive Python verifier over the chain (read-only URI), or null where python3 is missing. */
export function naivePython(
  path: string,
  secretHex: string,
): { ms: number; rows: number; note: string } | null {
  const r = spawnSync('python3', ['-c', NAIVE_PY, path, secretHex], { encoding: 'utf8' })
  if (r.status !== 0) return null
  const [rows, verdict, ms] = r.stdout.trim().split(' ')
  return { ms: Number(ms), rows: Number(rows), note: verdict ?? '' }
}
