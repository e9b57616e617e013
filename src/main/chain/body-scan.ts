// The integrity monitor and the index need, per row, only a few attributes of the canonical body
// (provider, model). JSON.parse builds the whole object; the native addon's scanner
// (native/src/json_scan.c) validates the body as JSON.parse would (RFC 8259, and Node's strict
// UTF-8 check) and finds only those attributes' value spans, several times faster. Any body it is not
// sure about (escaped keys where they matter, absurd nesting) goes to JSON.parse, as does every
// body where the addon is absent: the answer is always `providerOfBytes(body, parseBody(body))` and
// `modelOf(parseBody(body))`, which a differential test holds.
import { isUtf8 } from 'node:buffer'
import { NativeJsonScanner, SCAN_BAIL, SCAN_NOT_UTF8, SCAN_VALID } from './addon/json-scanner'
import { F, factsAddon, RowFacter, type PageLayout } from './addon/row-facts'
import { nativeAddon } from './addon/row-prover'
import { attributesOf, modelOf, parseBody, providerOfBytes } from './body'
import { pyJsonNumberKey } from '../python/repr'
import { stringProviderKey, valueProviderKey } from './provider-key'

const Q = 0x22
const PROVIDER_KEYS = ['gen_ai.provider.name', 'gen_ai.system']
const MODEL_KEYS = ['gen_ai.response.model', 'gen_ai.request.model', 'bijotel.replay.model_version']
const REPLAY_KEY = 'bijotel.replay.output_hash'
const WANTED = [...PROVIDER_KEYS, ...MODEL_KEYS, REPLAY_KEY]
const REPLAY = WANTED.length - 1

/** Which scanner reads the bodies: the native addon's, or none (JSON.parse). */
export type BodyScannerKind = 'native' | 'json'

const KEYS = ['attributes', ...WANTED].map((k) => Buffer.from(k, 'latin1'))
let scanner: NativeJsonScanner | null = null
let active: BodyScannerKind = 'json'

/**
 * Picks the scanner: the native one unless BIJOTEL_NATIVE=0 or the addon is absent, else JSON.parse
 * for every body. Tests and the bench call it to compare them; it returns the kind now in use.
 */
export function useBodyScanner(want: BodyScannerKind | null = null): BodyScannerKind {
  const addon = want === 'json' || process.env['BIJOTEL_NATIVE'] === '0' ? null : nativeAddon()
  scanner = addon === null ? null : new NativeJsonScanner(addon, KEYS)
  active = scanner === null ? 'json' : 'native'
  return active
}

useBodyScanner()

const EMPTY = Buffer.alloc(0)
/** The body and the value spans the scanner found in it, while bodyFacts reads them. */
let b: Buffer = EMPTY
let start: Int32Array | Float64Array = new Int32Array(0)
let end: Int32Array | Float64Array = new Int32Array(0)
/** Where the spans of this body begin in `start` and `end` (a page's facts hold many bodies). */
let so = 0
let eo = 0

/**
 * Recently decoded string values by their raw bytes: providers and models repeat from body to body,
 * and comparing a few bytes is cheaper than decoding them and interning the new string.
 */
const RECENT = 32
const recentBytes: Buffer[] = []
const recentTexts: string[] = []
let recentNext = 0

/** The string a validated JSON string literal at [s, e) (quotes included) stands for. */
function stringAt(s: number, e: number): string {
  const from = s + 1
  const len = e - 1 - from
  for (let k = 0; k < recentBytes.length; k++) {
    const c = recentBytes[k]!
    if (c.length !== len) continue
    let i = 0
    while (i < len && c[i] === b[from + i]) i++
    if (i === len) return recentTexts[k]!
  }
  const raw = b.toString('utf8', from, e - 1)
  const text = raw.includes('\\') ? (JSON.parse(b.toString('utf8', s, e)) as string) : raw
  if (len <= 256) {
    recentBytes[recentNext] = Buffer.from(b.subarray(from, e - 1))
    recentTexts[recentNext] = text
    recentNext = (recentNext + 1) % RECENT
  }
  return text
}

export interface BodyFacts {
  provider: string
  model: string | null
  /** Whether the attributes hold a `bijotel.replay.output_hash` string (a replay can be checked). */
  replay: boolean
}

/** Python truthiness and `providerOf` rules, on a value span already validated: a provider key. */
function providerFrom(i: number): string | null {
  const s = start[so + i]!
  const e = end[eo + i]!
  if (s < 0) return null
  const c = b[s]!
  if (c === Q) {
    return e - s === 2 ? null : stringProviderKey(stringAt(s, e))
  }
  if (c === 0x74) return valueProviderKey('true')
  if (c === 0x66 || c === 0x6e) return null
  if (c === 0x7b || c === 0x5b) {
    // Truthy when not empty: `{}` / `[ ]`; then the value is not a usable provider name.
    let q = s + 1
    while (b[q] === 0x20 || b[q] === 0x0a || b[q] === 0x0d || b[q] === 0x09) q++
    return b[q] === 0x7d || b[q] === 0x5d ? null : 'unknown'
  }
  // A number: Python's key for it, from its literal (an int's digits, a float's repr).
  const k = pyJsonNumberKey(b.toString('latin1', s, e))
  return k === null ? null : valueProviderKey(k)
}

function modelFrom(i: number): string | null {
  const s = start[so + i]!
  const e = end[eo + i]!
  return s < 0 || b[s] !== Q || e - s === 2 ? null : stringAt(s, e)
}

const NOTHING: BodyFacts = Object.freeze({ provider: 'unknown', model: null, replay: false })

function slow(body: Buffer): BodyFacts {
  const parsed = parseBody(body)
  return {
    provider: providerOfBytes(body, parsed),
    model: modelOf(parsed),
    replay: typeof attributesOf(parsed)[REPLAY_KEY] === 'string',
  }
}

/** Provider and model of a canonical body, exactly as parsing it would give. */
export function bodyFacts(body: Buffer): BodyFacts {
  // The native scanner checks UTF-8 in the same call.
  if (scanner === null) return isUtf8(body) ? slow(body) : NOTHING
  return fromScan(scanner.scan(body), body, scanner.starts, scanner.ends, () => body)
}

/**
 * The facts a scanner's verdict and value spans give; the spans index `buf` (the body, or the
 * record holding it). `body` is asked for only when JSON.parse must decide.
 */
function fromScan(
  verdict: number,
  buf: Buffer,
  starts: Int32Array | Float64Array,
  ends: Int32Array | Float64Array,
  body: () => Buffer,
  startsAt = 0,
  endsAt = 0,
): BodyFacts {
  if (verdict === SCAN_NOT_UTF8) return NOTHING
  if (verdict === SCAN_BAIL) return slow(body())
  if (verdict !== SCAN_VALID) return NOTHING
  b = buf
  start = starts
  end = ends
  so = startsAt
  eo = endsAt
  try {
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
    const replay = start[so + REPLAY]!
    return { provider, model, replay: replay >= 0 && b[replay] === Q }
  } finally {
    b = EMPTY
  }
}

/**
 * A native facter for a pass over rows with these columns (see ../native/row-facts.ts), or null
 * where there is none (no addon, BIJOTEL_NATIVE=0): then `bodyFacts` and the TypeScript decide.
 */
export function rowFacter(ts: number, body: number, hash: number, layout: PageLayout): RowFacter | null {
  const addon = factsAddon()
  if (addon === null || ts < 0 || body < 0 || hash < 0) return null
  return new RowFacter(addon, KEYS, ts, body, hash, layout)
}

/** The body facts of the row `facter.facts` returned `verdict` for (not FACTS_BY_TYPESCRIPT). */
export function rowBodyFacts(
  facter: RowFacter,
  verdict: number,
  record: Buffer,
  body: () => Buffer,
): BodyFacts {
  return fromScan(verdict, record, facter.starts, facter.ends, body)
}

const NO_BODY = (): Buffer => {
  throw new Error('pageFacts leaves bodies JSON.parse must decide to TypeScript')
}

/** The body facts of cell `cell` of a page `facter.page` did (its verdict and spans are in `out`). */
export function pageBodyFacts(page: Buffer, out: Float64Array, cell: number): BodyFacts {
  const o = cell * F.STRIDE
  return fromScan(out[o + F.VERDICT]!, page, out, out, NO_BODY, o, o + F.ENDS)
}

/**
 * The provider a window signature stands for (see ../native/leaf-pages.ts WindowFacts): the
 * signature holds the verdict and the raw provider values, so the spans point into it and the
 * same rules as for a page's cell decide.
 */
export function signatureProvider(sig: Buffer): string {
  const out = new Float64Array(F.STRIDE).fill(-1)
  out[F.VERDICT] = sig[0]!
  let at = 1
  for (let k = 0; k < PROVIDER_KEYS.length && at < sig.length; k++) {
    const len = sig.readUInt32LE(at)
    at += 4
    if (len === 0xffffffff) continue
    out[k] = at
    out[F.ENDS + k] = at + len
    at += len
  }
  return pageBodyFacts(sig, out, 0).provider
}
