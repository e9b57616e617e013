// The wasm JSON scanner (json-scan.as.ts) behind a small typed surface: the host copies a body into
// the module's memory and reads the attribute spans back from two Int32Array views.
import { JSON_SCAN_WASM } from './json-scan.wasm'

export const SCAN_INVALID = 0
export const SCAN_VALID = 1
/** The body must go to JSON.parse (an escaped key where one might be wanted, absurd nesting). */
export const SCAN_BAIL = 2

interface Exports {
  memory: WebAssembly.Memory
  layout(which: number): number
  keysWritten(): void
  scan(n: number): number
}

const PAGE = 65536
/** Room after the body for the 16 zero bytes the scanner writes there (see json-scan.as.ts). */
const PAD = 16
/** After a body that grew the memory past this, the next call starts a fresh instance. */
const KEEP = 16 * 1024 * 1024
const MAX_KEY_BYTES = 512
const MAX_KEYS = 8

let compiled: WebAssembly.Module | null = null

export class JsonScanner {
  private exports!: Exports
  private mem!: Uint8Array
  private input = 0
  /** Whether a memory grown past KEEP may be replaced by a fresh instance (false once that failed). */
  private renewable = true
  /** Value spans of the wanted keys after a VALID scan, relative to the body; start -1 = absent. */
  starts!: Int32Array
  ends!: Int32Array

  /**
   * `keys[0]` is the top-level key holding the attributes; the others are the wanted attributes.
   * Throws when V8 cannot make a wasm memory: it reserves ≈10 GB of address space for one, which a
   * process under an address-space limit (`ulimit -v`, RLIMIT_AS) does not have.
   */
  constructor(private readonly keys: readonly Buffer[]) {
    if (keys.length < 1 || keys.length - 1 > MAX_KEYS) throw new RangeError('JsonScanner: 1 to 9 keys')
    this.instantiate()
  }

  private instantiate(): void {
    compiled ??= new WebAssembly.Module(Buffer.from(JSON_SCAN_WASM, 'base64'))
    const e = new WebAssembly.Instance(compiled, {}).exports as unknown as Exports
    const input = e.layout(4)
    e.memory.grow(Math.ceil((input + PAD) / PAGE))
    const mem = new Uint8Array(e.memory.buffer)
    const table = new DataView(e.memory.buffer, e.layout(2), 4 + 8 * this.keys.length)
    table.setInt32(0, this.keys.length - 1, true)
    let at = e.layout(3)
    const limit = at + MAX_KEY_BYTES
    this.keys.forEach((key, k) => {
      if (at + key.length > limit) throw new RangeError('JsonScanner: keys too long')
      table.setInt32(4 + 8 * k, at, true)
      table.setInt32(8 + 8 * k, key.length, true)
      mem.set(key, at)
      at += key.length
    })
    e.keysWritten()
    this.exports = e
    this.input = input
    this.views()
  }

  private views(): void {
    const buffer = this.exports.memory.buffer
    this.mem = new Uint8Array(buffer)
    this.starts = new Int32Array(buffer, this.exports.layout(0), MAX_KEYS)
    this.ends = new Int32Array(buffer, this.exports.layout(1), MAX_KEYS)
  }

  /** SCAN_VALID, SCAN_INVALID or SCAN_BAIL for `body` (UTF-8 validity is the caller's check). */
  scan(body: Uint8Array): number {
    const need = this.input + body.length + PAD
    if (this.renewable && this.mem.length > KEEP && need <= KEEP) {
      try {
        this.instantiate()
      } catch {
        // No address space for a fresh memory: keep the large one, and stop trying on every body.
        this.renewable = false
      }
    }
    if (need > this.mem.length) {
      try {
        this.exports.memory.grow(Math.ceil((need - this.mem.length) / PAGE))
      } catch {
        return SCAN_BAIL
      }
      this.views()
    }
    this.mem.set(body, this.input)
    return this.exports.scan(body.length)
  }
}
