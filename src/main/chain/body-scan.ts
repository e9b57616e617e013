// The integrity monitor and the index need, per row, only a few attributes of the canonical body
// (provider, model). JSON.parse builds the whole object (~4 µs for a 1.3 KB body); this scanner
// validates the body as JSON.parse would and picks those attributes off the bytes (~1 µs). Any body
// it is not sure about (escaped keys, odd numbers) goes to JSON.parse: the answer is always
// `providerOf(parseBody(body))` and `modelOf(parseBody(body))`, which a differential test holds.
import { isUtf8 } from 'node:buffer'
import { attributesOf, modelOf, parseBody, providerOf } from './body'

const Q = 0x22
const BS = 0x5c
const PROVIDER_KEYS = ['gen_ai.provider.name', 'gen_ai.system']
const MODEL_KEYS = ['gen_ai.response.model', 'gen_ai.request.model', 'bijotel.replay.model_version']
const REPLAY_KEY = 'bijotel.replay.output_hash'
const WANTED = [...PROVIDER_KEYS, ...MODEL_KEYS, REPLAY_KEY].map((k) => Buffer.from(k, 'latin1'))
const REPLAY = WANTED.length - 1
const ATTRIBUTES = Buffer.from('attributes', 'latin1')

class Bail extends Error {}
const BAIL = new Bail()

/** Value spans of the wanted attributes: [start, end) and first byte, or -1 when absent. */
const start = new Int32Array(WANTED.length)
const end = new Int32Array(WANTED.length)

const EMPTY = Buffer.alloc(0)
let b: Buffer = EMPTY
let p = 0
let n = 0

function ws(): void {
  // Canonical bodies have no whitespace: one comparison in the common case.
  if (b[p]! > 0x20) return
  while (p < n) {
    const c = b[p]!
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) p++
    else break
  }
}

/** Skips a string at p (which is a quote); returns whether it held a backslash. */
function str(): boolean {
  // Locals, not the module's variables, in the loop every byte of a body goes through.
  const buf = b
  const len = n
  let i = p + 1
  let escaped = false
  for (;;) {
    if (i >= len) throw BAIL
    const c = buf[i]!
    if (c > BS) {
      i++
      continue
    }
    if (c === Q) {
      p = i + 1
      return escaped
    }
    if (c < 0x20) throw BAIL
    if (c === BS) {
      escaped = true
      const e = buf[i + 1]
      if (e === 0x75) {
        for (let k = 2; k < 6; k++) {
          const h = buf[i + k]
          if (h === undefined || !((h >= 0x30 && h <= 0x39) || ((h | 0x20) >= 0x61 && (h | 0x20) <= 0x66)))
            throw BAIL
        }
        i += 6
      } else if (
        e === Q ||
        e === BS ||
        e === 0x2f ||
        e === 0x62 ||
        e === 0x66 ||
        e === 0x6e ||
        e === 0x72 ||
        e === 0x74
      ) {
        i += 2
      } else throw BAIL
    } else i++
  }
}

function digits(): number {
  const s = p
  while (p < n && b[p]! >= 0x30 && b[p]! <= 0x39) p++
  return p - s
}

function num(): void {
  if (b[p] === 0x2d) p++
  if (b[p] === 0x30) p++
  else if (digits() === 0) throw BAIL
  if (b[p] === 0x2e) {
    p++
    if (digits() === 0) throw BAIL
  }
  if (b[p] === 0x65 || b[p] === 0x45) {
    p++
    if (b[p] === 0x2b || b[p] === 0x2d) p++
    if (digits() === 0) throw BAIL
  }
}

function lit(word: string): void {
  for (let i = 0; i < word.length; i++) if (b[p + i] !== word.charCodeAt(i)) throw BAIL
  p += word.length
}

/** Skips any value; `depth` guards against absurd nesting (JSON.parse would take it: bail). */
function value(depth: number): void {
  ws()
  const c = b[p]
  if (c === Q) str()
  else if (c === 0x7b) obj(depth + 1, null)
  else if (c === 0x5b) arr(depth + 1)
  else if (c === 0x74) lit('true')
  else if (c === 0x66) lit('false')
  else if (c === 0x6e) lit('null')
  else if (c === 0x2d || (c !== undefined && c >= 0x30 && c <= 0x39)) num()
  else throw BAIL
}

function arr(depth: number): void {
  if (depth > 256) throw BAIL
  p++
  ws()
  if (b[p] === 0x5d) {
    p++
    return
  }
  for (;;) {
    value(depth)
    ws()
    const c = b[p++]
    if (c === 0x5d) return
    if (c !== 0x2c) throw BAIL
  }
}

function keyIs(ks: number, ke: number, key: Buffer): boolean {
  // A byte loop: keys are short, and a native compare per key costs more than the loop.
  const len = key.length
  if (ke - ks !== len) return false
  const buf = b
  for (let i = 0; i < len; i++) if (buf[ks + i] !== key[i]) return false
  return true
}

/**
 * An object at p. `role` null: any object; 'top': the body (watch for "attributes");
 * 'attrs': the attributes object (record the wanted keys). Later duplicates win, as in JSON.parse.
 */
function obj(depth: number, role: 'top' | 'attrs' | null): void {
  if (depth > 256) throw BAIL
  p++
  ws()
  if (b[p] === 0x7d) {
    p++
    return
  }
  for (;;) {
    ws()
    if (b[p] !== Q) throw BAIL
    const ks = p + 1
    const escaped = str()
    const ke = p - 1
    // An escaped key might spell a wanted one: leave it to JSON.parse.
    if (escaped && role !== null) throw BAIL
    ws()
    if (b[p++] !== 0x3a) throw BAIL
    ws()
    if (role === 'top' && keyIs(ks, ke, ATTRIBUTES)) {
      start.fill(-1)
      if (b[p] === 0x7b) obj(depth + 1, 'attrs')
      else value(depth)
    } else if (role === 'attrs') {
      let hit = -1
      for (let i = 0; i < WANTED.length; i++) if (keyIs(ks, ke, WANTED[i]!)) hit = i
      const vs = p
      value(depth)
      if (hit >= 0) {
        start[hit] = vs
        end[hit] = p
      }
    } else value(depth)
    ws()
    const c = b[p++]
    if (c === 0x7d) return
    if (c !== 0x2c) throw BAIL
  }
}

export interface BodyFacts {
  provider: string
  model: string | null
  /** Whether the attributes hold a `bijotel.replay.output_hash` string (a replay can be checked). */
  replay: boolean
}

/** Python truthiness and `providerOf` rules, on a value span already validated. */
function providerFrom(i: number): string | null {
  const s = start[i]!
  if (s < 0) return null
  const c = b[s]!
  if (c === Q) {
    if (end[i]! - s === 2) return null
    const raw = b.toString('utf8', s + 1, end[i]! - 1)
    return raw.includes('\\') ? (JSON.parse(b.toString('utf8', s, end[i]!)) as string) : raw
  }
  if (c === 0x74) return 'true'
  if (c === 0x66 || c === 0x6e) return null
  if (c === 0x7b || c === 0x5b) {
    // Truthy when not empty: `{}` / `[ ]`; then the value is not a usable provider name.
    let q = s + 1
    while (b[q] === 0x20 || b[q] === 0x0a || b[q] === 0x0d || b[q] === 0x09) q++
    return b[q] === 0x7d || b[q] === 0x5d ? null : 'unknown'
  }
  const v = Number(JSON.parse(b.toString('latin1', s, end[i]!)))
  return v === 0 ? null : String(v)
}

function modelFrom(i: number): string | null {
  const s = start[i]!
  if (s < 0 || b[s] !== Q || end[i]! - s === 2) return null
  const raw = b.toString('utf8', s + 1, end[i]! - 1)
  return raw.includes('\\') ? (JSON.parse(b.toString('utf8', s, end[i]!)) as string) : raw
}

const NOTHING: BodyFacts = Object.freeze({ provider: 'unknown', model: null, replay: false })

function slow(body: Buffer): BodyFacts {
  const parsed = parseBody(body)
  return {
    provider: providerOf(parsed),
    model: modelOf(parsed),
    replay: typeof attributesOf(parsed)[REPLAY_KEY] === 'string',
  }
}

/** Provider and model of a canonical body, exactly as parsing it would give. */
export function bodyFacts(body: Buffer): BodyFacts {
  if (!isUtf8(body)) return NOTHING
  b = body
  n = body.length
  p = 0
  start.fill(-1)
  try {
    ws()
    if (b[p] === 0x7b) obj(0, 'top')
    else value(0)
    ws()
    if (p !== n) return NOTHING
    let provider = 'unknown'
    for (let i = 0; i < PROVIDER_KEYS.length; i++) {
      const v = providerFrom(i)
      if (v !== null) {
        provider = v
        break
      }
    }
    let model: string | null = null
    for (let i = PROVIDER_KEYS.length; i < REPLAY; i++) {
      model = modelFrom(i)
      if (model !== null) break
    }
    return { provider, model, replay: start[REPLAY]! >= 0 && b[start[REPLAY]!] === Q }
  } catch (e) {
    if (e !== BAIL) throw e
    return slow(body)
  } finally {
    b = EMPTY
  }
}
