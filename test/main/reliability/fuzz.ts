// Byte-level and content fuzzing of chain.db files, run through the real CLI in a child process.
// Each case mutates a private copy of a clean chain (file bytes: SQLite header, b-tree page
// headers, cell bytes, body blobs, truncation, appended garbage, WAL frames; or content: bodies
// rewritten to hostile JSON/bytes, hostile column values), runs `bijotel verify` under a time and
// memory bound, and classifies how it ended. Requirement: a verdict (exit 0/3) or exit 1 with one
// `ERROR:` line, never a signal, a timeout, a stack trace or an "internal error".
import type Database from 'better-sqlite3'
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { copyFixture, openScratch, Rng, sha256 } from './chainkit'
import { classify, runCli, type CliLimits, type Outcome } from './cli-runner'

export const FUZZ_MUTATIONS = [
  'header_bytes',
  'header_fields',
  'btree_header',
  'page_bytes',
  'body_bytes',
  'truncate',
  'append_garbage',
  'zero_page',
  'copy_page',
  'wal_header',
  'wal_frame',
  'wal_truncate',
  'json_deep',
  'json_invalid_utf8',
  'json_nul',
  'json_huge_numbers',
  'json_big',
  'json_random',
  'column_values',
] as const

export type FuzzMutation = (typeof FUZZ_MUTATIONS)[number]

/** What a case starts from: the clean chain, or the WAL chain (db + -wal). */
export interface FuzzBase {
  clean: string
  walDb: string
  secretHex: string
  /** Byte offsets of some canonical bodies inside clean.db. */
  bodyOffsets: { offset: number; length: number }[]
  pageSize: number
}

export function prepareBase(dir: string, secretHex: string): FuzzBase {
  const clean = copyFixture('clean', dir, 'base-clean.db')
  const walDb = copyFixture('wal-tail', dir, 'base-wal.db')
  const file = readFileSync(clean)
  const pageSize = file.readUInt16BE(16) === 1 ? 65536 : file.readUInt16BE(16)
  // Locate bodies in the file bytes through a throwaway copy, so the base itself is never opened.
  const probe = join(dir, 'probe-clean.db')
  copyFileSync(clean, probe)
  const pdb = openScratch(probe)
  const bodies = pdb.prepare('SELECT canonical_body FROM chain ORDER BY seq').pluck().all() as Buffer[]
  pdb.close()
  rmSync(probe)
  const bodyOffsets: FuzzBase['bodyOffsets'] = []
  for (const b of bodies) {
    const at = file.indexOf(b)
    if (at >= 0) bodyOffsets.push({ offset: at, length: b.length })
  }
  return { clean, walDb, secretHex, bodyOffsets, pageSize }
}

export interface FuzzCase {
  id: number
  mutation: FuzzMutation
  description: string
  /** Build the mutated chain at `path` (and its -wal when the base has one). */
  build(path: string): void
  args?: string[]
}

function withScratch(path: string, f: (db: Database.Database) => void): void {
  const db = openScratch(path)
  try {
    f(db)
  } finally {
    db.close()
  }
}

function mutateBytes(path: string, f: (buf: Buffer) => Buffer): void {
  writeFileSync(path, f(readFileSync(path)))
}

/** A deeply nested JSON value of `depth` levels. */
export function deepJson(depth: number, open = '[', close = ']'): string {
  return open.repeat(depth) + close.repeat(depth)
}

/** Replace one body (optionally keeping its canonical_hash consistent, so it passes the body check). */
function setBody(db: Database.Database, seq: number, body: Buffer | string, rehash: boolean): void {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body
  if (rehash)
    db.prepare('UPDATE chain SET canonical_body = ?, canonical_hash = ? WHERE seq = ?').run(
      bytes,
      sha256(bytes),
      BigInt(seq),
    )
  else db.prepare('UPDATE chain SET canonical_body = ? WHERE seq = ?').run(bytes, BigInt(seq))
}

function spanShaped(attributesJson: string, end = '1764000184869127950'): string {
  return `{"attributes":${attributesJson},"end_time_ns":"${end}","kind":"CLIENT","name":"chat x","start_time_ns":"1","status_code":"UNSET","status_description":null}`
}

export function planFuzz(
  count: number,
  seed: number,
  base: FuzzBase,
  opts: { bigBodyMb?: number } = {},
): FuzzCase[] {
  const rng = new Rng(seed)
  const ps = base.pageSize
  const out: FuzzCase[] = []
  for (let id = 0; id < count; id++) {
    const mutation = FUZZ_MUTATIONS[id % FUZZ_MUTATIONS.length]!
    const r = new Rng(Math.floor(rng.next() * 2 ** 32))
    const seq = r.int(1, 240)
    const rehash = r.chance(0.5)
    const c = (description: string, build: (path: string) => void, args?: string[]): FuzzCase => ({
      id,
      mutation,
      description,
      build,
      ...(args ? { args } : {}),
    })
    const fromClean = (f: (path: string) => void) => (path: string) => {
      copyFileSync(base.clean, path)
      f(path)
    }
    const fromWal = (f: (wal: string) => void) => (path: string) => {
      copyFileSync(base.walDb, path)
      copyFileSync(`${base.walDb}-wal`, `${path}-wal`)
      f(`${path}-wal`)
    }
    switch (mutation) {
      case 'header_bytes': {
        const n = r.int(1, 4)
        const edits = Array.from({ length: n }, () => [r.int(0, 99), r.int(0, 255)] as const)
        out.push(
          c(
            `header bytes ${edits.map(([o, v]) => `${o}=${v}`).join(',')}`,
            fromClean((p) =>
              mutateBytes(p, (b) => {
                for (const [o, v] of edits) b[o] = v
                return b
              }),
            ),
          ),
        )
        break
      }
      case 'header_fields': {
        const field = r.pick([
          'page_size',
          'page_count',
          'write_version',
          'reserved',
          'schema_format',
          'encoding',
          'freelist',
          'schema_cookie',
          'magic',
        ] as const)
        const v = r.pick([0, 1, 2, 3, 4, 255, 512, 65535, 0x7fffffff, 0xffffffff, r.int(0, 0xffffffff)])
        out.push(
          c(
            `header field ${field}=${v}`,
            fromClean((p) =>
              mutateBytes(p, (b) => {
                switch (field) {
                  case 'page_size':
                    b.writeUInt16BE(v & 0xffff, 16)
                    break
                  case 'page_count':
                    b.writeUInt32BE(v >>> 0, 28)
                    break
                  case 'write_version':
                    b[18] = v & 0xff
                    b[19] = v & 0xff
                    break
                  case 'reserved':
                    b[20] = v & 0xff
                    break
                  case 'schema_format':
                    b.writeUInt32BE(v >>> 0, 44)
                    break
                  case 'encoding':
                    b.writeUInt32BE(v >>> 0, 56)
                    break
                  case 'freelist':
                    b.writeUInt32BE(v >>> 0, 32)
                    b.writeUInt32BE(v >>> 0, 36)
                    break
                  case 'schema_cookie':
                    b.writeUInt32BE(v >>> 0, 40)
                    break
                  case 'magic':
                    b[r.int(0, 15)] = v & 0xff
                    break
                }
                return b
              }),
            ),
          ),
        )
        break
      }
      case 'btree_header': {
        const n = r.int(1, 3)
        out.push(
          c(
            `${n} b-tree page header byte(s)`,
            fromClean((p) =>
              mutateBytes(p, (b) => {
                const pages = Math.floor(b.length / ps)
                for (let i = 0; i < n; i++) {
                  const page = r.int(1, pages)
                  const at = (page - 1) * ps + (page === 1 ? 100 : 0) + r.int(0, 11)
                  b[at] = r.int(0, 255)
                }
                return b
              }),
            ),
          ),
        )
        break
      }
      case 'page_bytes': {
        const n = r.int(1, 32)
        out.push(
          c(
            `${n} random byte(s) anywhere after the header`,
            fromClean((p) =>
              mutateBytes(p, (b) => {
                for (let i = 0; i < n; i++) b[r.int(100, b.length - 1)] = r.int(0, 255)
                return b
              }),
            ),
          ),
        )
        break
      }
      case 'body_bytes': {
        const target = r.pick(base.bodyOffsets)
        const n = r.int(1, 8)
        out.push(
          c(
            `${n} byte(s) of a body blob at file offset ${target.offset}`,
            fromClean((p) =>
              mutateBytes(p, (b) => {
                for (let i = 0; i < n; i++) {
                  const at = target.offset + r.int(0, target.length - 1)
                  b[at] = b[at]! ^ r.int(1, 255)
                }
                return b
              }),
            ),
          ),
        )
        break
      }
      case 'truncate': {
        out.push(
          c(
            'file truncated at a random offset',
            fromClean((p) => {
              const size = readFileSync(p).length
              const at = r.chance(0.3) ? r.int(1, Math.floor(size / ps) - 1) * ps : r.int(1, size - 1)
              truncateSync(p, at)
            }),
          ),
        )
        break
      }
      case 'append_garbage': {
        const len = r.chance(0.5) ? r.int(1, 3) * ps : r.int(1, 3 * ps)
        const kind = r.pick(['random', 'zeros', 'header'] as const)
        out.push(
          c(
            `${len} byte(s) of ${kind} garbage appended`,
            fromClean((p) =>
              mutateBytes(p, (b) => {
                let g = kind === 'zeros' ? Buffer.alloc(len) : r.bytes(len)
                if (kind === 'header') {
                  g = Buffer.concat([b.subarray(0, Math.min(len, 100)), r.bytes(Math.max(0, len - 100))])
                }
                return Buffer.concat([b, g])
              }),
            ),
          ),
        )
        break
      }
      case 'zero_page':
      case 'copy_page': {
        out.push(
          c(
            mutation === 'zero_page' ? 'one page zeroed' : 'one page copied over another',
            fromClean((p) =>
              mutateBytes(p, (b) => {
                const pages = Math.floor(b.length / ps)
                const to = r.int(1, pages)
                const from = r.int(1, pages)
                const src =
                  mutation === 'zero_page'
                    ? Buffer.alloc(ps)
                    : Buffer.from(b.subarray((from - 1) * ps, from * ps))
                src.copy(b, (to - 1) * ps)
                return b
              }),
            ),
          ),
        )
        break
      }
      case 'wal_header': {
        const n = r.int(1, 4)
        out.push(
          c(
            `${n} WAL header byte(s)`,
            fromWal((w) =>
              mutateBytes(w, (b) => {
                for (let i = 0; i < n; i++) b[r.int(0, 31)] = r.int(0, 255)
                return b
              }),
            ),
          ),
        )
        break
      }
      case 'wal_frame': {
        const n = r.int(1, 8)
        out.push(
          c(
            `${n} byte(s) in WAL frames`,
            fromWal((w) =>
              mutateBytes(w, (b) => {
                const frame = 24 + ps
                const frames = Math.floor((b.length - 32) / frame)
                for (let i = 0; i < n; i++) {
                  const f = r.int(0, frames - 1)
                  const at = 32 + f * frame + (r.chance(0.5) ? r.int(0, 23) : r.int(24, frame - 1))
                  b[at] = b[at]! ^ r.int(1, 255)
                }
                return b
              }),
            ),
          ),
        )
        break
      }
      case 'wal_truncate': {
        out.push(
          c(
            'WAL truncated or extended',
            fromWal((w) => {
              const b = readFileSync(w)
              if (r.chance(0.7)) truncateSync(w, r.int(0, b.length - 1))
              else writeFileSync(w, Buffer.concat([b, r.bytes(r.int(1, 2 * ps))]))
            }),
          ),
        )
        break
      }
      case 'json_deep': {
        const depth = r.pick([1000, 10_000, 100_000, 200_000])
        const shaped = r.chance(0.5)
        const open = r.chance(0.5) ? '[' : '{"a":'
        const close = open === '[' ? ']' : '}'
        const inner = open === '[' ? deepJson(depth) : open.repeat(depth) + '1' + close.repeat(depth)
        out.push(
          c(
            `seq ${seq}: body = ${depth}-level nested JSON${shaped ? ' inside a span body' : ''} (rehash=${rehash})`,
            fromClean((p) =>
              withScratch(p, (db) => setBody(db, seq, shaped ? spanShaped(inner) : inner, rehash)),
            ),
          ),
        )
        break
      }
      case 'json_invalid_utf8': {
        const bad = r.pick([
          [0xff],
          [0xc0, 0xaf],
          [0xed, 0xa0, 0x80],
          [0xf8, 0x88, 0x80, 0x80, 0x80],
          [0x80],
          [0xe2, 0x82],
        ])
        out.push(
          c(
            `seq ${seq}: invalid UTF-8 (${bad.map((x) => x.toString(16)).join(' ')}) in the body (rehash=${rehash})`,
            fromClean((p) =>
              withScratch(p, (db) => {
                const body = db
                  .prepare('SELECT canonical_body FROM chain WHERE seq = ?')
                  .pluck()
                  .get(BigInt(seq)) as Buffer
                const at = r.int(0, body.length)
                setBody(
                  db,
                  seq,
                  Buffer.concat([body.subarray(0, at), Buffer.from(bad), body.subarray(at)]),
                  rehash,
                )
              }),
            ),
          ),
        )
        break
      }
      case 'json_nul': {
        out.push(
          c(
            `seq ${seq}: NUL bytes in the body and text columns (rehash=${rehash})`,
            fromClean((p) =>
              withScratch(p, (db) => {
                const body = db
                  .prepare('SELECT canonical_body FROM chain WHERE seq = ?')
                  .pluck()
                  .get(BigInt(seq)) as Buffer
                const at = r.int(0, body.length)
                setBody(
                  db,
                  seq,
                  Buffer.concat([body.subarray(0, at), Buffer.alloc(r.int(1, 64)), body.subarray(at)]),
                  rehash,
                )
                if (r.chance(0.5))
                  db.prepare("UPDATE chain SET span_name = 'a' || char(0) || 'b' WHERE seq = ?").run(
                    BigInt(seq),
                  )
              }),
            ),
          ),
        )
        break
      }
      case 'json_huge_numbers': {
        const n = r.pick([
          '1e999999',
          '-1e-400',
          '1'.repeat(5000),
          '123456789012345678901234567890',
          '-0',
          '9007199254740993',
          '1E+308',
          '0.' + '0'.repeat(4000) + '1',
        ])
        out.push(
          c(
            `seq ${seq}: huge number ${n.slice(0, 20)}… in the body (rehash=${rehash})`,
            fromClean((p) =>
              withScratch(p, (db) =>
                setBody(
                  db,
                  seq,
                  spanShaped(
                    `{"gen_ai.usage.output_tokens":${n}}`,
                    r.chance(0.5) ? n : '1764000184869127950',
                  ),
                  rehash,
                ),
              ),
            ),
          ),
        )
        break
      }
      case 'json_big': {
        const mb = opts.bigBodyMb ?? r.pick([1, 2, 5])
        const filler = r.pick(['a', '\\u0000', 'é'])
        out.push(
          c(
            `seq ${seq}: ${mb} MB body (rehash=${rehash})`,
            fromClean((p) =>
              withScratch(p, (db) => {
                const unit = Buffer.byteLength(filler)
                setBody(
                  db,
                  seq,
                  spanShaped(`{"big":"${filler.repeat(Math.floor((mb * 1024 * 1024) / unit))}"}`),
                  rehash,
                )
              }),
            ),
          ),
        )
        break
      }
      case 'json_random': {
        const len = r.pick([0, 1, 7, 100, 5000])
        out.push(
          c(
            `seq ${seq}: body = ${len} random bytes (rehash=${rehash})`,
            fromClean((p) => withScratch(p, (db) => setBody(db, seq, r.bytes(len), rehash))),
          ),
        )
        break
      }
      case 'column_values': {
        const col = r.pick([
          'seq',
          'timestamp_ns',
          'span_name',
          'span_kind',
          'canonical_body',
          'canonical_hash',
          'prev_hash',
          'hmac_hash',
          'semantic_body_hash',
        ] as const)
        const vals: unknown[] = [
          -1n,
          0n,
          2n ** 62n,
          2n ** 63n - 1n,
          -(2n ** 63n),
          1.5,
          1e300,
          'text',
          '',
          Buffer.from([0xff, 0x00]),
          'a'.repeat(64).toUpperCase(),
          'é'.repeat(64),
          '<script>alert(1)</script>',
        ]
        const v = r.pick(vals)
        const desc = typeof v === 'bigint' ? `${v}n` : Buffer.isBuffer(v) ? 'blob ff00' : JSON.stringify(v)
        out.push(
          c(
            `seq ${seq}: ${col} := ${desc}`,
            fromClean((p) =>
              withScratch(p, (db) => {
                if (col === 'seq' && typeof v !== 'bigint') {
                  // INTEGER PRIMARY KEY refuses non-integers: an insider would have to rebuild the table loose.
                  db.exec('ALTER TABLE chain RENAME TO chain_strict')
                  db.exec('CREATE TABLE chain AS SELECT * FROM chain_strict')
                  db.exec('DROP TABLE chain_strict')
                }
                try {
                  db.prepare(`UPDATE chain SET ${col} = ? WHERE seq = ?`).run(v, BigInt(seq))
                } catch {
                  // NOT NULL / PK collisions: the value cannot be stored; the case stays a clean chain.
                }
              }),
            ),
          ),
        )
        break
      }
    }
  }
  return out
}

export interface FuzzTally {
  tried: number
  verdicts: number
  valid: number
  broken: number
  clean_errors: number
  crashes: number
}

export interface FuzzSummary extends FuzzTally {
  seed: number
  by_mutation: Record<string, FuzzTally>
  /** First words of each clean error, with counts: what the auditor is told. */
  errors: Record<string, number>
  crash_samples: { id: number; mutation: string; description: string; why: string }[]
  max_case_ms: number
  duration_ms: number
  limits: { timeout_ms: number; heap_mb: number; address_space_mb: number | null }
}

const emptyTally = (): FuzzTally => ({
  tried: 0,
  verdicts: 0,
  valid: 0,
  broken: 0,
  clean_errors: 0,
  crashes: 0,
})

export interface FuzzRunOptions {
  cases: number
  seed: number
  workDir: string
  secretHex: string
  limits?: CliLimits
  /** Keep crashing inputs here for reproduction. */
  crashDir?: string
  bigBodyMb?: number
  onCase?: (i: number, outcome: Outcome) => void
}

export function runFuzz(o: FuzzRunOptions): FuzzSummary {
  const t0 = Date.now()
  const base = prepareBase(o.workDir, o.secretHex)
  const limits: Required<Pick<CliLimits, 'timeoutMs' | 'heapMb' | 'addressSpaceMb'>> = {
    timeoutMs: o.limits?.timeoutMs ?? 20_000,
    heapMb: o.limits?.heapMb ?? 512,
    addressSpaceMb: o.limits?.addressSpaceMb ?? 4096,
  }
  const total = emptyTally()
  const by: Record<string, FuzzTally> = {}
  const errors: Record<string, number> = {}
  const crashes: FuzzSummary['crash_samples'] = []
  let maxMs = 0
  let memoryBounded = false
  for (const fc of planFuzz(o.cases, o.seed, base, o.bigBodyMb ? { bigBodyMb: o.bigBodyMb } : {})) {
    const path = join(o.workDir, `fuzz-${fc.id}.db`)
    let outcome: Outcome
    let why: string | undefined
    let status: number | null = null
    try {
      fc.build(path)
      const run = runCli(['verify', '--db', path, '--secret-hex', o.secretHex, ...(fc.args ?? [])], limits)
      memoryBounded = run.memoryBounded
      maxMs = Math.max(maxMs, run.ms)
      status = run.status
      ;({ outcome, why } = classify(run))
      if (outcome === 'clean_error') {
        const key = run.stderr
          .replace(/^ERROR: /, '')
          .replace(/\/\S+/g, '<path>')
          .replace(/\d+/g, 'N')
          .slice(0, 70)
          .trim()
        errors[key] = (errors[key] ?? 0) + 1
      }
    } catch (e) {
      // The harness itself failed to build the case (e.g. SQLite refused a write): not a CLI result.
      outcome = 'crash'
      why = `harness: ${(e as Error).message}`
    }
    const t = (by[fc.mutation] ??= emptyTally())
    for (const x of [t, total]) {
      x.tried++
      if (outcome === 'verdict') {
        x.verdicts++
        if (status === 0) x.valid++
        else x.broken++
      } else if (outcome === 'clean_error') x.clean_errors++
      else x.crashes++
    }
    if (outcome === 'crash') {
      crashes.push({ id: fc.id, mutation: fc.mutation, description: fc.description, why: why ?? '' })
      if (o.crashDir) {
        mkdirSync(o.crashDir, { recursive: true })
        if (existsSync(path)) copyFileSync(path, join(o.crashDir, `case-${o.seed}-${fc.id}.db`))
        if (existsSync(`${path}-wal`))
          copyFileSync(`${path}-wal`, join(o.crashDir, `case-${o.seed}-${fc.id}.db-wal`))
      }
    }
    o.onCase?.(fc.id, outcome)
    for (const sfx of ['', '-wal', '-shm', '-journal']) rmSync(`${path}${sfx}`, { force: true })
  }
  return {
    seed: o.seed,
    ...total,
    by_mutation: by,
    errors,
    crash_samples: crashes.slice(0, 50),
    max_case_ms: maxMs,
    duration_ms: Date.now() - t0,
    limits: {
      timeout_ms: limits.timeoutMs,
      heap_mb: limits.heapMb,
      address_space_mb: memoryBounded ? limits.addressSpaceMb : null,
    },
  }
}

export function fuzzSummaryLine(s: FuzzSummary): string {
  return (
    `FUZZ-SUMMARY tried=${s.tried} verdicts=${s.verdicts} (valid=${s.valid} broken=${s.broken}) ` +
    `clean_errors=${s.clean_errors} crashes=${s.crashes} seed=${s.seed} max_case_ms=${s.max_case_ms} ms=${s.duration_ms}`
  )
}
