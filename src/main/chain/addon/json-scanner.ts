// The addon's validating JSON scanner (native/src/json_scan.c: RFC 8259 as JSON.parse reads it, with
// Node's strict UTF-8 check in the same call), as ../chain/body-scan.ts uses it. The addon keeps one
// key table per thread, so a thread makes one of these (body-scan.ts does, at load).
import type { NativeAddon } from './row-prover'

/** The body is not JSON (JSON.parse would throw): provider `unknown`. */
export const SCAN_INVALID = 0
/** The body is JSON; the wanted attributes' value spans are in `starts`/`ends`. */
export const SCAN_VALID = 1
/** The body must go to JSON.parse (an escaped key where one might be wanted, absurd nesting). */
export const SCAN_BAIL = 2
/** The body is not UTF-8. */
export const SCAN_NOT_UTF8 = 3
const MAX_KEYS = 8

/**
 * Sets the thread's key table: `keys[0]` is the top-level key holding the attributes, the others
 * the wanted attributes. The scanner and the row facter share it.
 */
export function setScanKeys(addon: NativeAddon, keys: readonly Buffer[]): void {
  addon.scanKeys(
    Buffer.concat(keys),
    Int32Array.from(keys, (k) => k.length),
  )
}

export class NativeJsonScanner {
  /** Value spans of the wanted keys after a VALID scan, relative to the body; start -1 = absent. */
  readonly starts = new Int32Array(MAX_KEYS)
  readonly ends = new Int32Array(MAX_KEYS)

  /** `keys[0]` is the top-level key holding the attributes; the others are the wanted attributes. */
  constructor(
    private readonly addon: NativeAddon,
    keys: readonly Buffer[],
  ) {
    setScanKeys(addon, keys)
  }

  /** SCAN_VALID, SCAN_INVALID, SCAN_BAIL or SCAN_NOT_UTF8. */
  scan(body: Uint8Array): number {
    return this.addon.scanBody(body, this.starts, this.ends)
  }
}
