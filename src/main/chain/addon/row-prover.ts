// The optional native row prover (../../../native, a Node-API addon): one call per clean row proves
// its body hash, its link and its HMAC, where the JavaScript path needs three `crypto.hash` calls
// (each paying OpenSSL 3's digest set-up before a byte is hashed) and three hex compares. It only ever
// proves: a row it does not prove is decided by the ordinary path, so a missing or disabled addon
// changes speed, never a verdict. BIJOTEL_NATIVE=0 turns it off.
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'

export interface NativeAddon {
  sha256Hex(data: Uint8Array): string
  hmacKey(key: Uint8Array): Buffer
  hmacHex(keyState: Uint8Array, message: Uint8Array): string
  startRun(keyState: Uint8Array, link: Uint8Array, columns: Int32Array): void
  link(): string
  proveRow(record: Uint8Array, types: Int32Array, offsets: Int32Array): boolean
  /** Cells of a table leaf proven where they lie, from `from` on, rowids first, first + 1, … ≤ last. */
  proveLeaf(
    page: Uint8Array,
    header: number,
    from: number,
    first: number,
    last: number,
    layout: Int32Array,
  ): number
  /** proveLeaf over the leaves `pages[at]`, … that lie in one read window (RowScanner's LeavesFirst). */
  proveLeaves?(
    window: Uint8Array,
    pages: Int32Array,
    at: number,
    geometry: Int32Array,
    first: number,
    last: number,
    out: Int32Array,
  ): number
  scanKeys(bytes: Uint8Array, lengths: Int32Array): void
  scanBody(body: Uint8Array, starts: Int32Array, ends: Int32Array): number
  /**
   * Where OpenSSL's SHA-256 and HMAC were found (native/src/crypto.h): the running process's own
   * (Node), the system's (Electron on Linux), or none — and then the addon is not used for hashing.
   */
  cryptoSource(): 'host' | 'system' | 'none'
}

const ADDON = join('native', 'build', 'Release', 'bijotel_native.node')

/** The addon's path: beside the sources, the bundle (out/main[/chunks]) or the packaged app. */
export function addonPath(from = __dirname): string | null {
  for (let dir = from, i = 0; i < 6; i++, dir = dirname(dir)) {
    const p = join(dir, ADDON)
    // In the packaged app a native module is loaded from outside the asar archive (asarUnpack).
    const unpacked = p.replace(/app\.asar([/\\])/, 'app.asar.unpacked$1')
    if (unpacked !== p && existsSync(unpacked)) return unpacked
    if (existsSync(p)) return p
  }
  return null
}

let loaded: NativeAddon | null | undefined

/** Whether the addon hashes here: it found an OpenSSL (an older build without `cryptoSource` never does). */
export function hasCrypto(addon: { cryptoSource?: () => unknown }): boolean {
  if (typeof addon.cryptoSource !== 'function') return false
  const source = addon.cryptoSource()
  return source === 'host' || source === 'system'
}

/** The addon, or null when it is not built or cannot load. */
export function nativeAddon(): NativeAddon | null {
  if (loaded !== undefined) return loaded
  loaded = null
  const path = addonPath()
  if (path === null) return null
  try {
    const mod = { exports: {} as NativeAddon }
    process.dlopen(mod, path)
    loaded = mod.exports
  } catch {
    loaded = null // a build for another platform or ABI: the JavaScript path does the work
  }
  return loaded
}

/**
 * What a partition holds while the addon keeps its link. The addon has one link per thread, so the
 * partition that set it last owns it, and one taking over first gives the previous owner its link
 * back as a string (partitions on one thread run one after another, but nothing may depend on it).
 */
export interface LinkOwner {
  releaseLink(link: string): void
}

let owner: LinkOwner | null = null
const keyStates = new WeakMap<Uint8Array, Buffer>()

/** Column numbers of the chain table, in the order the addon takes them; -1 where absent. */
export interface ProverColumns {
  body: number
  canonicalHash: number
  prevHash: number
  hmacHash: number
  timestampNs: number
  spanName: number
  spanKind: number
}

export class RowProver {
  private readonly columns: Int32Array

  constructor(
    private readonly addon: NativeAddon,
    c: ProverColumns,
  ) {
    this.columns = Int32Array.of(
      c.body,
      c.canonicalHash,
      c.prevHash,
      c.hmacHash,
      c.timestampNs,
      c.spanName,
      c.spanKind,
    )
  }

  private keyState(key: Uint8Array): Buffer {
    let s = keyStates.get(key)
    if (s === undefined) keyStates.set(key, (s = this.addon.hmacKey(key)))
    return s
  }

  owns(who: LinkOwner): boolean {
    return owner === who
  }

  /** `who` now owns the link: the next proven row must hold `link` as prev_hash. */
  start(who: LinkOwner, key: Uint8Array, link: string): void {
    this.release()
    this.addon.startRun(this.keyState(key), Buffer.from(link, 'latin1'), this.columns)
    owner = who
  }

  /** The owner's link back as a string, and nobody owns it. */
  release(): void {
    const was = owner
    if (was === null) return
    owner = null
    was.releaseLink(this.addon.link())
  }

  /** Whether whole leaves can be offered (`proveLeaf`); an older build proves a row at a time. */
  get byLeaf(): boolean {
    return typeof this.addon.proveLeaf === 'function'
  }

  /**
   * Cells of a table leaf from `from` on proven clean where they lie, each decoded in C (the twin of
   * CellReader.read), while their rowids are `first`, `first` + 1, … up to `last`: how many.
   */
  proveLeaf(
    page: Uint8Array,
    header: number,
    from: number,
    first: number,
    last: number,
    layout: Int32Array,
  ): number {
    return this.addon.proveLeaf(page, header, from, first, last, layout)
  }

  /** Whether a read window of leaves can be offered at once (`proveLeaves`). */
  get byWindow(): boolean {
    return typeof this.addon.proveLeaves === 'function'
  }

  /**
   * proveLeaf over leaves pages[at], pages[at + 1], … while they lie in `window` (RowScanner's
   * LeavesFirst: `geometry` and `out` as it describes them), rowids first, first + 1, … up to
   * `last`: the rows proven.
   */
  proveLeaves(
    window: Uint8Array,
    pages: Int32Array,
    at: number,
    geometry: Int32Array,
    first: number,
    last: number,
    out: Int32Array,
  ): number {
    return this.addon.proveLeaves!(window, pages, at, geometry, first, last, out)
  }

  /** A record as the direct reader holds it: its bytes, and each column's serial type and offset. */
  proveRow(record: Uint8Array, types: Int32Array, offsets: Int32Array): boolean {
    return this.addon.proveRow(record, types, offsets)
  }
}

/**
 * A row prover for a table with these columns, or null without the addon, or where it finds no
 * OpenSSL (native/src/crypto.h: it hashes with the process's or the system's, never its own code).
 */
export function rowProver(columns: ProverColumns): RowProver | null {
  const addon = activeAddon()
  return addon === null ? null : new RowProver(addon, columns)
}

/** Whether direct verification uses the native prover here (for timing lines and the bench). */
export function nativeProverActive(env: NodeJS.ProcessEnv = process.env): boolean {
  return activeAddon(env) !== null
}

/** Whose OpenSSL the native prover hashes with ("host", "system"), or null when it is not used. */
export function nativeCryptoSource(env: NodeJS.ProcessEnv = process.env): string | null {
  return activeAddon(env)?.cryptoSource() ?? null
}

function activeAddon(env: NodeJS.ProcessEnv = process.env): NativeAddon | null {
  // Read on every call (once per partition), so a test can compare both paths in one process.
  if (env['BIJOTEL_NATIVE'] === '0') return null
  const addon = nativeAddon()
  return addon !== null && hasCrypto(addon) ? addon : null
}
