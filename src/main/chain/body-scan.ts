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

/** Bytes a JSON string may hold as they are (not a quote, a backslash or a control character). */
const PLAIN = new Uint8Array(256).map((_, c) => (c >= 0x20 && c !== Q && c !== BS ? 1 : 0))

class Bail extends Error {}
const BAIL = new Bail()

/** Value spans of the wanted attributes: [start, end) and first byte, or -1 when absent. */
const start = new Int32Array(WANTED.length)
const end = new Int32Array(WANTED.length)

const EMPTY = Buffer.alloc(0)
let b: Buffer = EMPTY

const isWs = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09

function keyIs(buf: Buffer, ks: number, ke: number, key: Buffer): boolean {
  // A byte loop: keys are short, and a native compare per key costs more than the loop.
  const len = key.length
  if (ke - ks !== len) return false
  for (let i = 0; i < len; i++) if (buf[ks + i] !== key[i]) return false
  return true
}

let lastEscaped = false

/** Index of the quote closing the string whose content starts at `i`, or -1 if it is not valid. */
function stringEnd(buf: Buffer, i: number, n: number): number {
  let escaped = false
  for (;;) {
    if (i >= n) return -1
    const k = buf[i]!
    if (PLAIN[k] === 1) i++
    else if (k === Q) break
    else if (k === BS) {
      escaped = true
      const e = buf[i + 1]
      if (e === 0x75) {
        for (let h = 2; h < 6; h++) {
          const x = buf[i + h]
          if (x === undefined || !((x >= 0x30 && x <= 0x39) || ((x | 0x20) >= 0x61 && (x | 0x20) <= 0x66)))
            return -1
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
      } else return -1
    } else return -1
  }
  lastEscaped = escaped
  return i
}

/** Digits from p; returns the index after them. */
function digitsEnd(buf: Buffer, p: number, n: number): number {
  while (p < n) {
    const d = buf[p]!
    if (d < 0x30 || d > 0x39) break
    p++
  }
  return p
}

const OBJ = 1
const ARR = 2
const MAX_DEPTH = 256
const stack = new Uint8Array(MAX_DEPTH + 2)
const VALUE = 0
const KEY = 1
const AFTER = 2

/**
 * Validates `buf` as one JSON text (the grammar JSON.parse accepts) and records the value spans of
 * the wanted attributes, in one loop with an explicit stack and local state: every byte of every
 * body passes through here. Returns false for invalid JSON; throws BAIL for a body to hand to
 * JSON.parse instead (escaped keys where they matter, absurd nesting).
 */
function scan(buf: Buffer): boolean {
  const n = buf.length
  let p = 0
  let sp = 0
  let attrsDepth = -1
  let pending = -1
  let pendingStart = 0
  let nextIsAttrs = false
  let state = VALUE
  for (;;) {
    if (state !== AFTER) while (p < n && isWs(buf[p]!)) p++
    if (state === VALUE) {
      if (p >= n) return false
      const c = buf[p]!
      if (c === 0x7b || c === 0x5b) {
        if (sp === MAX_DEPTH) throw BAIL
        const obj = c === 0x7b
        stack[++sp] = obj ? OBJ : ARR
        if (obj && nextIsAttrs) attrsDepth = sp
        nextIsAttrs = false
        p++
        while (p < n && isWs(buf[p]!)) p++
        if (buf[p] === (obj ? 0x7d : 0x5d)) {
          p++
          if (attrsDepth === sp) attrsDepth = -1
          sp--
          state = AFTER
        } else state = obj ? KEY : VALUE
        continue
      }
      nextIsAttrs = false
      if (c === Q) {
        const e = stringEnd(buf, p + 1, n)
        if (e < 0) return false
        p = e + 1
      } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
        if (c === 0x2d) p++
        if (buf[p] === 0x30) p++
        else {
          const d = digitsEnd(buf, p, n)
          if (d === p) return false
          p = d
        }
        if (buf[p] === 0x2e) {
          const d = digitsEnd(buf, p + 1, n)
          if (d === p + 1) return false
          p = d
        }
        if (buf[p] === 0x65 || buf[p] === 0x45) {
          p++
          if (buf[p] === 0x2b || buf[p] === 0x2d) p++
          const d = digitsEnd(buf, p, n)
          if (d === p) return false
          p = d
        }
      } else if (c === 0x74) {
        if (buf[p + 1] !== 0x72 || buf[p + 2] !== 0x75 || buf[p + 3] !== 0x65) return false
        p += 4
      } else if (c === 0x66) {
        if (buf[p + 1] !== 0x61 || buf[p + 2] !== 0x6c || buf[p + 3] !== 0x73 || buf[p + 4] !== 0x65)
          return false
        p += 5
      } else if (c === 0x6e) {
        if (buf[p + 1] !== 0x75 || buf[p + 2] !== 0x6c || buf[p + 3] !== 0x6c) return false
        p += 4
      } else return false
      state = AFTER
    } else if (state === KEY) {
      if (buf[p] !== Q) return false
      const ks = p + 1
      const ke = stringEnd(buf, ks, n)
      if (ke < 0) return false
      p = ke + 1
      const top = sp === 1 && stack[1] === OBJ
      // An escaped key might spell a wanted one: leave such a body to JSON.parse.
      if (lastEscaped && (top || sp === attrsDepth)) throw BAIL
      while (p < n && isWs(buf[p]!)) p++
      if (buf[p] !== 0x3a) return false
      p++
      while (p < n && isWs(buf[p]!)) p++
      if (top && keyIs(buf, ks, ke, ATTRIBUTES)) {
        // A later "attributes" replaces an earlier one, as in JSON.parse.
        start.fill(-1)
        nextIsAttrs = true
      } else if (sp === attrsDepth) {
        for (let w = 0; w < WANTED.length; w++) {
          if (keyIs(buf, ks, ke, WANTED[w]!)) {
            pending = w
            pendingStart = p
          }
        }
      }
      state = VALUE
    } else {
      if (pending >= 0 && sp === attrsDepth) {
        start[pending] = pendingStart
        end[pending] = p
        pending = -1
      }
      while (p < n && isWs(buf[p]!)) p++
      if (sp === 0) return p === n
      const k = buf[p++]
      const kind = stack[sp]
      if (k === 0x2c) state = kind === OBJ ? KEY : VALUE
      else if ((k === 0x7d && kind === OBJ) || (k === 0x5d && kind === ARR)) {
        if (attrsDepth === sp) attrsDepth = -1
        sp--
      } else return false
    }
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
  start.fill(-1)
  b = body
  try {
    if (!scan(body)) return NOTHING
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
