// AssemblyScript source of the JSON scanner in body-scan.ts (compiled by scripts/build-wasm.mjs into
// json-scan.wasm.ts; build.test.ts holds the two in step). It is the JS scanner it replaced, line for
// line, plus a 16-byte SIMD skip over string content: a JS byte loop costs 1.3–3.5 ns a byte on this
// VM, this one ≈1.2 ns, and every byte of every body passes through it in `integrity --all`.
//
// Memory (no data segments, no allocator; the host grows the memory before each call):
//   STARTS, ENDS  i32[8]  value spans of the wanted attributes, relative to INPUT; start -1 = absent
//   KEYS          i32     number of wanted keys, then i32 (offset, length) pairs: key 0 is the
//                         top-level "attributes", keys 1.. the wanted attributes; bytes at KEY_BYTES
//   STACK         u8[]    container kinds, one per depth
//   INPUT         the body, then 16 zero bytes scan() writes: the grammar rejects any read past the
//                 end anyway, and with the zeros what such a read sees never depends on an earlier body
const STARTS: usize = 256
const ENDS: usize = 288
const KEYS: usize = 320
const KEY_BYTES: usize = 512
const STACK: usize = 1024
const INPUT: usize = 4096

const MAX_DEPTH: i32 = 256
const OBJ: u8 = 1
const ARR: u8 = 2
const VALUE: i32 = 0
const KEY: i32 = 1
const AFTER: i32 = 2

const INVALID: i32 = 0
const VALID: i32 = 1
/** A body to hand to JSON.parse: an escaped key where one might be wanted, or absurd nesting. */
const BAIL: i32 = 2

let lastEscaped = false
/** Bit (length & 63) set for every wanted key's length: most keys are rejected without a load. */
let lengthMask: u64 = 0

export function layout(which: i32): usize {
  if (which == 0) return STARTS
  if (which == 1) return ENDS
  if (which == 2) return KEYS
  if (which == 3) return KEY_BYTES
  return INPUT
}

/** Called once the host has written the key table. */
export function keysWritten(): void {
  lengthMask = 0
  const count = load<i32>(KEYS)
  for (let k = 1; k <= count; k++) lengthMask |= (<u64>1) << (<u64>(load<i32>(KEYS + 8 + 8 * <usize>k) & 63))
}

@inline function isWs(c: u32): bool {
  return c <= 0x20 && (c == 0x20 || c == 0x0a || c == 0x0d || c == 0x09)
}

@inline function isHex(x: u32): bool {
  return (x >= 0x30 && x <= 0x39) || ((x | 0x20) >= 0x61 && (x | 0x20) <= 0x66)
}

/**
 * Index of the quote closing the string whose content starts at `i`, or -1 if it is not valid.
 * Inlined: a call per string cost ≈10% of the scan.
 */
@inline function stringEnd(i: usize, end: usize): isize {
  let escaped = false
  const quote = i8x16.splat(0x22)
  const backslash = i8x16.splat(0x5c)
  const space = i8x16.splat(0x20)
  for (;;) {
    while (i + 16 <= end) {
      const v = v128.load(i)
      const special = v128.or(v128.or(i8x16.eq(v, quote), i8x16.eq(v, backslash)), i8x16.lt_u(v, space))
      const m = i8x16.bitmask(special)
      if (m != 0) {
        i += <usize>ctz(m)
        break
      }
      i += 16
    }
    if (i >= end) return -1
    const k = <u32>load<u8>(i)
    if (k >= 0x20 && k != 0x22 && k != 0x5c) i++
    else if (k == 0x22) break
    else if (k == 0x5c) {
      escaped = true
      const e = <u32>load<u8>(i + 1)
      if (e == 0x75) {
        if (!isHex(load<u8>(i + 2)) || !isHex(load<u8>(i + 3)) || !isHex(load<u8>(i + 4)) || !isHex(load<u8>(i + 5)))
          return -1
        i += 6
      } else if (e == 0x22 || e == 0x5c || e == 0x2f || e == 0x62 || e == 0x66 || e == 0x6e || e == 0x72 || e == 0x74) {
        i += 2
      } else return -1
    } else return -1
  }
  lastEscaped = escaped
  return <isize>i
}

@inline function digitsEnd(p: usize, end: usize): usize {
  while (p < end) {
    const d = <u32>load<u8>(p)
    if (d < 0x30 || d > 0x39) break
    p++
  }
  return p
}

function keyIs(ks: usize, ke: usize, k: i32): bool {
  const off = <usize>load<i32>(KEYS + 4 + 8 * <usize>k)
  const len = <usize>load<i32>(KEYS + 8 + 8 * <usize>k)
  if (ke - ks != len) return false
  for (let i: usize = 0; i < len; i++) if (load<u8>(ks + i) != load<u8>(off + i)) return false
  return true
}

function clearSpans(): void {
  for (let w: usize = 0; w < 8; w++) store<i32>(STARTS + 4 * w, -1)
}

/**
 * Validates the `n` bytes at INPUT as one JSON text (the grammar JSON.parse accepts; UTF-8 is the
 * host's check) and records the wanted attributes' value spans. Returns VALID, INVALID or BAIL.
 */
export function scan(n: usize): i32 {
  const end = INPUT + n
  const wanted = load<i32>(KEYS)
  let p = INPUT
  let sp: i32 = 0
  let attrsDepth: i32 = -1
  let pending: i32 = -1
  let pendingStart: usize = 0
  let nextIsAttrs = false
  let state = VALUE
  v128.store(end, i64x2.splat(0))
  clearSpans()
  for (;;) {
    if (state != AFTER) while (p < end && isWs(load<u8>(p))) p++
    if (state == VALUE) {
      if (p >= end) return INVALID
      const c = <u32>load<u8>(p)
      if (c == 0x7b || c == 0x5b) {
        if (sp == MAX_DEPTH) return BAIL
        const obj = c == 0x7b
        sp++
        store<u8>(STACK + <usize>sp, obj ? OBJ : ARR)
        if (obj && nextIsAttrs) attrsDepth = sp
        nextIsAttrs = false
        p++
        while (p < end && isWs(load<u8>(p))) p++
        if (<u32>load<u8>(p) == (obj ? 0x7d : 0x5d)) {
          p++
          if (attrsDepth == sp) attrsDepth = -1
          sp--
          state = AFTER
        } else state = obj ? KEY : VALUE
        continue
      }
      nextIsAttrs = false
      if (c == 0x22) {
        const e = stringEnd(p + 1, end)
        if (e < 0) return INVALID
        p = <usize>e + 1
      } else if (c == 0x2d || (c >= 0x30 && c <= 0x39)) {
        if (c == 0x2d) p++
        if (load<u8>(p) == 0x30) p++
        else {
          const d = digitsEnd(p, end)
          if (d == p) return INVALID
          p = d
        }
        if (load<u8>(p) == 0x2e) {
          const d = digitsEnd(p + 1, end)
          if (d == p + 1) return INVALID
          p = d
        }
        const x = <u32>load<u8>(p)
        if (x == 0x65 || x == 0x45) {
          p++
          const s = <u32>load<u8>(p)
          if (s == 0x2b || s == 0x2d) p++
          const d = digitsEnd(p, end)
          if (d == p) return INVALID
          p = d
        }
      } else if (c == 0x74) {
        if (load<u8>(p + 1) != 0x72 || load<u8>(p + 2) != 0x75 || load<u8>(p + 3) != 0x65) return INVALID
        p += 4
      } else if (c == 0x66) {
        if (load<u8>(p + 1) != 0x61 || load<u8>(p + 2) != 0x6c || load<u8>(p + 3) != 0x73 || load<u8>(p + 4) != 0x65)
          return INVALID
        p += 5
      } else if (c == 0x6e) {
        if (load<u8>(p + 1) != 0x75 || load<u8>(p + 2) != 0x6c || load<u8>(p + 3) != 0x6c) return INVALID
        p += 4
      } else return INVALID
      state = AFTER
    } else if (state == KEY) {
      if (load<u8>(p) != 0x22) return INVALID
      const ks = p + 1
      const e = stringEnd(ks, end)
      if (e < 0) return INVALID
      const ke = <usize>e
      p = ke + 1
      const top = sp == 1 && load<u8>(STACK + 1) == OBJ
      // An escaped key might spell a wanted one: leave such a body to JSON.parse.
      if (lastEscaped && (top || sp == attrsDepth)) return BAIL
      if (load<u8>(p) != 0x3a) {
        while (p < end && isWs(load<u8>(p))) p++
        if (load<u8>(p) != 0x3a) return INVALID
      }
      p++
      while (p < end && isWs(load<u8>(p))) p++
      if (top && keyIs(ks, ke, 0)) {
        // A later "attributes" replaces an earlier one, as in JSON.parse.
        clearSpans()
        nextIsAttrs = true
      } else if (sp == attrsDepth && ((lengthMask >> (<u64>(ke - ks) & 63)) & 1) != 0) {
        for (let w = 1; w <= wanted; w++) {
          if (keyIs(ks, ke, w)) {
            pending = w - 1
            pendingStart = p
          }
        }
      }
      state = VALUE
    } else {
      if (pending >= 0 && sp == attrsDepth) {
        store<i32>(STARTS + 4 * <usize>pending, <i32>(pendingStart - INPUT))
        store<i32>(ENDS + 4 * <usize>pending, <i32>(p - INPUT))
        pending = -1
      }
      while (p < end && isWs(load<u8>(p))) p++
      if (sp == 0) return p == end ? VALID : INVALID
      const k = <u32>load<u8>(p)
      p++
      const kind = load<u8>(STACK + <usize>sp)
      if (k == 0x2c) state = kind == OBJ ? KEY : VALUE
      else if ((k == 0x7d && kind == OBJ) || (k == 0x5d && kind == ARR)) {
        if (attrsDepth == sp) attrsDepth = -1
        sp--
      } else return INVALID
    }
  }
  return INVALID
}
