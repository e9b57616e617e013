// The JSON scanner of ../chain/wasm/json-scan.as.ts, compiled natively (native/src/json_scan.c), with
// the UTF-8 check in the same call: the surface body-scan.ts uses for either. The addon keeps one
// key table per thread, so a thread makes one of these (body-scan.ts does, at load).
import type { NativeAddon } from './row-prover'

/** What scan() returns for a body that is not UTF-8 (the others are json-scan.ts's SCAN_*). */
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

  /** SCAN_NOT_UTF8, or SCAN_VALID, SCAN_INVALID or SCAN_BAIL as the wasm scanner answers. */
  scan(body: Uint8Array): number {
    return this.addon.scanBody(body, this.starts, this.ends)
  }
}
