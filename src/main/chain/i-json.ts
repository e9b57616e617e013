// I-JSON (RFC 7493) for documents an auditor is asked to trust: reports, priors, exports. RFC 8785
// canonicalises only I-JSON, so a document outside it can mean one thing to the signature and
// another to a reader (a duplicate name: JavaScript and Python keep the last, other readers the
// first; `9007199254740993`: Python reads it exactly, JavaScript as …992). Refused, with the byte
// offset of the first offence:
// - bytes that are not UTF-8 (RFC 7493 §2.1, RFC 3629: overlong forms, encoded surrogates, code
//   points past U+10FFFF), a byte order mark (RFC 8259 §8.1: a sender MUST NOT add one);
// - a lone surrogate in a `\u` escape (RFC 7493 §2.1: strings MUST NOT hold unpaired surrogates);
// - a duplicate member name in one object, names compared after unescaping (RFC 7493 §2.3);
// - a number beyond what an IEEE 754 double holds (RFC 7493 §2.2): one that overflows to ±∞, a
//   non-zero one that underflows to 0, an integer literal outside ±(2^53−1) (the range §2.2 names for
//   exact integers), and one written with more than 17 significant digits (no double needs more
//   to be written exactly, so more is precision a double does not have);
// - nesting deeper than `maxDepth`, and more than `maxValues` values in all: both counted while
//   scanning, before any object is built, so a crafted document (millions of `{}`) costs a scan,
//   not gigabytes. A member past an object's 64th counts 16: JSON.parse builds such objects ~18
//   times slower (0.14 µs a member in objects of 64, 2.6 µs in one of 10^6; one object of 3M
//   members, 36 MB, took 29 s and 1 GB to read);
// - anything RFC 8259's grammar refuses.
// The scan is a check only; a document that passes is then built by JSON.parse, which reads it
// exactly as scanned (no duplicates, no lone surrogates, numbers within range).

import { parseKeepingLarge } from './i-json-large'
import { MemberNames } from './i-json-names'

export { exactIntegerText } from './i-json-large'

export class IJsonError extends Error {
  constructor(
    readonly reason: string,
    readonly offset: number,
  ) {
    super(`${reason} at byte ${offset}`)
    this.name = 'IJsonError'
  }
}

export interface IJsonLimits {
  /** Deepest nesting of arrays and objects (the top level is depth 1). */
  maxDepth: number
  /** Most values (objects, arrays, strings, numbers, literals; member names not counted). */
  maxValues: number
  /**
   * Take integer literals (no fraction, no exponent) of any size. Only for a document whose integers
   * nothing signs or compares: Python BIJOTEL's export writes `timestamp_ns` (~1.7e18) as an
   * integer, which JSON.parse rounds; the literal is kept beside it (exactIntegerText).
   */
  largeIntegers?: boolean
  /**
   * Refuse a number that reads as an integer in one language and not in another: `-0` in any form
   * (JavaScript keeps −0, RFC 8785 writes `0`, Python reads the integer 0), and a literal with a
   * fraction or an exponent whose value is an exact integer (`1e2`, `100.0`, `1.5E1`): Python reads
   * it as the float 100.0, JavaScript as the integer 100, and RFC 8785 signs it as `100`, so the
   * signature could not tell a reader's `seq: 100.0` from the `seq: 100` that was signed. For
   * documents this program writes (reports, verdicts): JSON.stringify writes no such literal.
   */
  plainIntegers?: boolean
}

/** Reports nest about 8 deep; 64 leaves room for what a report quotes, and bounds recursion. */
export const IJSON_MAX_DEPTH = 64
/** Members at a small object's cost: documents here name ≤ 20 an object, but a report's provider shifts. */
export const LARGE_OBJECT_MEMBERS = 64
/** What each member past LARGE_OBJECT_MEMBERS counts against `maxValues` (see the header). */
export const LARGE_MEMBER_WEIGHT = 16

const enum C {
  QUOTE = 0x22,
  BACKSLASH = 0x5c,
  COMMA = 0x2c,
  COLON = 0x3a,
  LBRACE = 0x7b,
  RBRACE = 0x7d,
  LBRACKET = 0x5b,
  RBRACKET = 0x5d,
  MINUS = 0x2d,
  PLUS = 0x2b,
  DOT = 0x2e,
  ZERO = 0x30,
  NINE = 0x39,
}

const isWs = (b: number): boolean => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09
const isDigit = (b: number): boolean => b >= C.ZERO && b <= C.NINE
const HEX = new Int8Array(128).fill(-1)
for (let k = 0; k < 22; k++) HEX['0123456789abcdefABCDEF'.charCodeAt(k)] = k < 16 ? k : k - 6
const hexVal = (b: number): number => (b >= 0 && b < 128 ? HEX[b]! : -1)

/** One open container on the scan's stack (one a depth, reused: a container costs no allocation). */
interface Frame {
  object: boolean
  /** Its member names so far (./i-json-names.ts). */
  names: MemberNames
  /** Members so far. */
  members: number
}

class Scanner {
  private i = 0
  private values = 0
  private readonly stack: Frame[] = []
  private readonly pool: Frame[] = []
  /** Whether the last string scanned held an escape. */
  private escaped = false
  /** Literals of integers past 15 digits, in document order (kept when `largeIntegers`). */
  readonly large: string[] = []

  constructor(
    private readonly b: Buffer,
    private readonly limits: IJsonLimits,
  ) {}

  private fail(reason: string, at = this.i): never {
    throw new IJsonError(reason, at)
  }

  private ws(): void {
    const b = this.b
    while (this.i < b.length && isWs(b[this.i]!)) this.i++
  }

  private count(): void {
    if (++this.values > this.limits.maxValues)
      this.fail(
        `more than ${this.limits.maxValues} values (the limit for a document read here; a member of an object past its ${LARGE_OBJECT_MEMBERS}th counts ${LARGE_MEMBER_WEIGHT}, the cost of building it)`,
      )
  }

  /** A string token from its opening quote (`escaped` says whether it held an escape). */
  private string(): void {
    const b = this.b
    const start = this.i
    let i = this.i + 1
    let escaped = false
    for (;;) {
      if (i >= b.length) this.fail('unterminated string', start)
      const c = b[i]!
      if (c === C.QUOTE) break
      if (c < 0x20) this.fail('control character in a string (must be escaped)', i)
      if (c === C.BACKSLASH) {
        escaped = true
        const e = b[i + 1]
        if (e === 0x75) {
          const unit = this.hex4(i)
          i += 6
          if (unit >= 0xd800 && unit <= 0xdbff) {
            if (b[i] !== C.BACKSLASH || b[i + 1] !== 0x75)
              this.fail('lone surrogate (a high surrogate \\u escape not followed by a low one)', i - 6)
            const low = this.hex4(i)
            if (low < 0xdc00 || low > 0xdfff)
              this.fail('lone surrogate (a high surrogate \\u escape not followed by a low one)', i - 6)
            i += 6
          } else if (unit >= 0xdc00 && unit <= 0xdfff) {
            this.fail('lone surrogate (a low surrogate \\u escape with no high one before it)', i - 6)
          }
          continue
        }
        if (
          e === C.QUOTE ||
          e === C.BACKSLASH ||
          e === 0x2f ||
          e === 0x62 ||
          e === 0x66 ||
          e === 0x6e ||
          e === 0x72 ||
          e === 0x74
        ) {
          i += 2
          continue
        }
        this.fail('invalid escape in a string', i)
      }
      if (c < 0x80) {
        i++
        continue
      }
      i = this.utf8(i)
    }
    this.i = i + 1
    this.escaped = escaped
  }

  private hex4(at: number): number {
    let v = 0
    for (let k = 2; k < 6; k++) {
      const h = hexVal(this.b[at + k] ?? -1)
      if (h < 0) this.fail('invalid \\u escape (four hex digits expected)', at)
      v = (v << 4) | h
    }
    return v
  }

  /** One multi-byte UTF-8 sequence from `i` (RFC 3629 §4's table); returns the index after it. */
  private utf8(i: number): number {
    const b = this.b
    const c = b[i]!
    let n: number
    let lo = 0x80
    let hi = 0xbf
    if (c >= 0xc2 && c <= 0xdf) n = 1
    else if (c >= 0xe0 && c <= 0xef) {
      n = 2
      if (c === 0xe0) lo = 0xa0 // overlong below U+0800
      if (c === 0xed) hi = 0x9f // U+D800..U+DFFF: a surrogate encoded raw
    } else if (c >= 0xf0 && c <= 0xf4) {
      n = 3
      if (c === 0xf0) lo = 0x90 // overlong below U+10000
      if (c === 0xf4) hi = 0x8f // past U+10FFFF
    } else this.fail(c === 0xc0 || c === 0xc1 ? 'invalid UTF-8 (overlong form)' : 'invalid UTF-8', i)
    const first = b[i + 1]
    if (first === undefined || first < lo || first > hi)
      this.fail(
        c === 0xed && first !== undefined && first >= 0xa0 && first <= 0xbf
          ? 'lone surrogate (a surrogate code point encoded in UTF-8)'
          : 'invalid UTF-8',
        i,
      )
    for (let k = 2; k <= n; k++) {
      const x = b[i + k]
      if (x === undefined || x < 0x80 || x > 0xbf) this.fail('invalid UTF-8', i)
    }
    return i + n + 1
  }

  private number(): void {
    const b = this.b
    const start = this.i
    let i = start
    if (b[i] === C.MINUS) i++
    const intStart = i
    if (b[i] === C.ZERO) i++
    else if (b[i] !== undefined && b[i]! >= 0x31 && b[i]! <= C.NINE) while (isDigit(b[i] ?? -1)) i++
    else this.fail('invalid number', start)
    const intEnd = i
    let fracStart = i
    let fracEnd = i
    let plain = true
    if (b[i] === C.DOT) {
      plain = false
      i++
      fracStart = i
      if (!isDigit(b[i] ?? -1)) this.fail('invalid number (digits expected after the point)', start)
      while (isDigit(b[i] ?? -1)) i++
      fracEnd = i
    }
    if (b[i] === 0x65 || b[i] === 0x45) {
      plain = false
      i++
      if (b[i] === C.PLUS || b[i] === C.MINUS) i++
      if (!isDigit(b[i] ?? -1)) this.fail('invalid number (digits expected in the exponent)', start)
      while (isDigit(b[i] ?? -1)) i++
    }
    this.i = i
    if (this.limits.plainIntegers === true) this.plainInteger(start, plain, intStart, intEnd)
    // An integer of at most 15 digits is exact in a double: nothing more to check.
    if (plain && intEnd - intStart > 15 && this.limits.largeIntegers === true) {
      const literal = b.toString('latin1', start, i)
      if (!Number.isSafeInteger(Number(literal))) this.large.push(literal)
    }
    if (plain && (intEnd - intStart <= 15 || this.limits.largeIntegers === true)) return
    const text = b.toString('latin1', start, i)
    const value = Number(text)
    if (!Number.isFinite(value))
      this.fail(`number ${text.slice(0, 40)} is beyond an IEEE 754 double's range (RFC 7493 §2.2)`, start)
    const digits = (b.toString('latin1', intStart, intEnd) + b.toString('latin1', fracStart, fracEnd))
      .replace(/^0+/, '')
      .replace(/0+$/, '')
    if (value === 0 && digits.length > 0)
      this.fail(`number ${text.slice(0, 40)} underflows to 0 in an IEEE 754 double (RFC 7493 §2.2)`, start)
    if (plain && !Number.isSafeInteger(value))
      this.fail(
        `integer ${text.slice(0, 40)} is outside \u00b1(2^53\u22121), not exactly representable as an IEEE 754 double (RFC 7493 §2.2)`,
        start,
      )
    if (digits.length > 17)
      this.fail(
        `number ${text.slice(0, 40)} has more than 17 significant digits, more precision than an IEEE 754 double holds (RFC 7493 §2.2)`,
        start,
      )
    // Up to 15 significant digits a decimal is its double's shortest form (DBL_DIG); at 16 or 17 it
    // may name a value between doubles: `1234567890123456.7` reads as the double printed
    // `1234567890123456.8`. RFC 8785 signs that shortest form (§3.2.2.3), so a reader keeping the
    // literal's decimals would see another number than the one signed: refused.
    if (digits.length >= 16 && shortestDigits(value) !== digits)
      this.fail(
        `number ${text.slice(0, 40)} is not the shortest form of the IEEE 754 double it reads as (${String(value)}): a reader keeping its decimals would see another number than the one signed (RFC 7493 §2.2, RFC 8785 §3.2.2.3)`,
        start,
      )
  }

  /** The `plainIntegers` rule for the number from `start` to `this.i` (see IJsonLimits). */
  private plainInteger(start: number, plain: boolean, intStart: number, intEnd: number): void {
    const b = this.b
    if (plain) {
      if (b[start] === C.MINUS && intEnd - intStart === 1 && b[intStart] === C.ZERO)
        this.fail('number -0 is not an integer every reader reads alike (RFC 8785 writes it 0)', start)
      return
    }
    const text = b.toString('latin1', start, this.i)
    const value = Number(text)
    if (Object.is(value, -0))
      this.fail(`number ${text.slice(0, 40)} is -0, which RFC 8785 writes 0: not read alike`, start)
    if (Number.isSafeInteger(value))
      this.fail(
        `number ${text.slice(0, 40)} is the integer ${value} written with a fraction or an exponent: Python reads it as a float, JavaScript as an integer, and RFC 8785 signs it as ${value}`,
        start,
      )
  }

  private literal(word: string): void {
    for (let k = 0; k < word.length; k++)
      if (this.b[this.i + k] !== word.charCodeAt(k)) this.fail('unexpected character', this.i)
    this.i += word.length
  }

  private open(object: boolean): void {
    if (this.stack.length >= this.limits.maxDepth)
      this.fail(`nesting deeper than ${this.limits.maxDepth} levels`)
    const depth = this.stack.length
    const frame = (this.pool[depth] ??= { object, names: new MemberNames(), members: 0 })
    frame.object = object
    frame.members = 0
    frame.names.reset()
    this.stack.push(frame)
    this.i++
  }

  /** A value's start (containers are entered, not finished). Returns whether a container opened. */
  private value(): boolean {
    this.ws()
    const c = this.b[this.i]
    if (c === undefined) this.fail('unexpected end of document')
    this.count()
    switch (c) {
      case C.LBRACE:
        this.open(true)
        return true
      case C.LBRACKET:
        this.open(false)
        return true
      case C.QUOTE:
        this.string()
        return false
      case 0x74:
        this.literal('true')
        return false
      case 0x66:
        this.literal('false')
        return false
      case 0x6e:
        this.literal('null')
        return false
      default:
        if (c === C.MINUS || isDigit(c)) {
          this.number()
          return false
        }
        return this.fail('unexpected character')
    }
  }

  /** A member name and its colon, inside the object on top of the stack. */
  private name(frame: Frame): void {
    this.ws()
    const at = this.i
    if (this.b[at] !== C.QUOTE) this.fail('a member name (a string) expected')
    this.string()
    const b = this.b
    // Compared as UTF-8 bytes, decoded only when escaped (RFC 7493 §2.3: after unescaping).
    const decoded = this.escaped ? Buffer.from(JSON.parse(b.toString('utf8', at, this.i)) as string) : null
    const added = decoded
      ? frame.names.add(decoded, 0, decoded.length)
      : frame.names.add(b, at + 1, this.i - 1)
    if (!added) {
      const name = decoded ? decoded.toString('utf8') : b.toString('utf8', at + 1, this.i - 1)
      this.fail(`duplicate member name ${JSON.stringify(name).slice(0, 80)} (RFC 7493 §2.3)`, at)
    }
    // Its value is counted next as every value is (count()); the rest of the member's weight here.
    if (++frame.members > LARGE_OBJECT_MEMBERS) this.values += LARGE_MEMBER_WEIGHT - 1
    this.ws()
    if (this.b[this.i] !== C.COLON) this.fail("':' expected after a member name")
    this.i++
  }

  scan(): void {
    const b = this.b
    if (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf)
      this.fail('byte order mark (RFC 8259 §8.1: not part of a JSON text)', 0)
    // Iterative, so depth costs no native stack: after each value, close or continue containers.
    let opened = this.value()
    for (;;) {
      const top = this.stack[this.stack.length - 1]
      if (top === undefined) break
      this.ws()
      const c = b[this.i]
      const close = top.object ? C.RBRACE : C.RBRACKET
      if (opened) {
        opened = false
        if (c === close) {
          this.stack.pop()
          this.i++
          continue
        }
        if (top.object) this.name(top)
        opened = this.value()
        continue
      }
      if (c === C.COMMA) {
        this.i++
        if (top.object) this.name(top)
        opened = this.value()
        continue
      }
      if (c === close) {
        this.stack.pop()
        this.i++
        continue
      }
      this.fail(
        c === undefined ? 'unexpected end of document' : `',' or '${String.fromCharCode(close)}' expected`,
      )
    }
    this.ws()
    if (this.i < b.length) this.fail('content after the JSON value')
  }
}

/** Check `bytes` as I-JSON within `limits`; throws IJsonError naming the first offence. */
export function checkIJson(bytes: Buffer, limits: IJsonLimits): string[] {
  const scanner = new Scanner(bytes, limits)
  scanner.scan()
  return scanner.large
}

/** The first unpaired surrogate of a JS string, as a UTF-8 byte offset, or -1. */
function loneSurrogateOffset(text: string): number {
  for (let i = 0; i < text.length; i++) {
    const u = text.charCodeAt(i)
    if (u >= 0xd800 && u <= 0xdbff) {
      const next = text.charCodeAt(i + 1)
      if (next >= 0xdc00 && next <= 0xdfff) {
        i++
        continue
      }
      return Buffer.byteLength(text.slice(0, i), 'utf8')
    }
    if (u >= 0xdc00 && u <= 0xdfff) return Buffer.byteLength(text.slice(0, i), 'utf8')
  }
  return -1
}

/**
 * The value of an I-JSON document (bytes as read from a file, or text handed over by a client:
 * a raw lone surrogate in the text is refused before it could be encoded as U+FFFD).
 */
export function parseIJson(input: Buffer | string, limits: IJsonLimits): unknown {
  let bytes: Buffer
  if (typeof input === 'string') {
    const at = loneSurrogateOffset(input)
    if (at >= 0) throw new IJsonError('lone surrogate (an unpaired UTF-16 surrogate in the text)', at)
    bytes = Buffer.from(input, 'utf8')
  } else bytes = input
  const large = checkIJson(bytes, limits)
  const text = typeof input === 'string' ? input : bytes.toString('utf8')
  return large.length > 0 ? parseKeepingLarge(text, large) : (JSON.parse(text) as unknown)
}

/** The significant digits of a double's shortest round-trip form (ECMAScript Number::toString). */
function shortestDigits(v: number): string {
  const m = Math.abs(v).toExponential()
  return m.slice(0, m.indexOf('e')).replace('.', '').replace(/0+$/, '')
}
