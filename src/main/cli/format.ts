// Small text helpers shared by the commands' human-readable output.
import type { KeyInfo } from '../../shared/verify-types'

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`
}

export function seqSpan(from: number, to: number): string {
  return from === to ? `seq ${from}` : `seq ${from}-${to}`
}

export function keyLabel(k: KeyInfo | undefined, index: number): string {
  if (!k) return `key #${index + 1}`
  return `key #${k.index + 1} (${k.encoding}, ${k.bytes} bytes, fingerprint ${k.fingerprint})`
}

/** JSON with BigInt written as plain integers. */
export function toJson(value: unknown, indent = 2): string {
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v), indent)
}
