// Key lists and Python's hex decoding, without node:crypto: the CLI reads key options before it
// knows whether any key was given, and a keyless run (integrity from a cron job) should not load
// the crypto module for nothing (issue 36). Key fingerprints are in ./keys.
import type { SecretInput } from '../../shared/contract'
import { AuditError } from '../base/errors'

const HEX = /^[0-9a-fA-F]$/
const PY_WHITESPACE = new Set([' ', '\t', '\n', '\r', '\f', '\v'])

/** Python's `bytes.fromhex`: pairs of hex digits, ASCII whitespace allowed between pairs only. */
export function decodeHexLikePython(value: string): Buffer | null {
  const out: number[] = []
  let i = 0
  while (i < value.length) {
    const c = value[i] as string
    if (PY_WHITESPACE.has(c)) {
      i++
      continue
    }
    const d = value[i + 1]
    if (d === undefined || !HEX.test(c) || !HEX.test(d)) return null
    out.push(parseInt(c + d, 16))
    i += 2
  }
  return Buffer.from(out)
}

/** A key file larger than this is not a key file. */
export const KEY_LIST_MAX_BYTES = 1024 * 1024

/**
 * Keys from a key file or stdin (`--secret-file`, `--secret-stdin`): one key per line; `hex:` or
 * `text:` before a key says how it is read (no prefix: hex, as Python reads `--secret-hex`); blank
 * lines and lines starting with `#` are skipped. A `hex:` key may hold spaces between byte pairs
 * (Python's `bytes.fromhex`); a `text:` key is every character after the prefix up to the line end
 * (a CRLF ending is not part of it). Errors name the source and the line, never the key.
 */
export function parseKeyList(data: Buffer, source: string): SecretInput[] {
  if (data.length > KEY_LIST_MAX_BYTES)
    throw new AuditError('bad_secret', `${source}: over ${KEY_LIST_MAX_BYTES} bytes, not a key file`)
  if (data.includes(0)) throw new AuditError('bad_secret', `${source}: holds a NUL byte, not a key file`)
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(data)
  } catch {
    throw new AuditError('bad_secret', `${source}: not UTF-8 text`)
  }
  if (text.startsWith('\uFEFF')) text = text.slice(1)
  const out: SecretInput[] = []
  text.split('\n').forEach((raw, i) => {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw
    const at = `${source}, line ${i + 1}`
    const body = line.replace(/^[ \t]+/, '')
    if (body.trim() === '' || body.startsWith('#')) return
    if (body.startsWith('text:')) {
      const value = body.slice('text:'.length)
      if (value === '') throw new AuditError('bad_secret', `${at}: empty text: key`)
      out.push({ encoding: 'text', value })
      return
    }
    const value = (body.startsWith('hex:') ? body.slice('hex:'.length) : body).trim()
    const bytes = decodeHexLikePython(value)
    if (bytes === null)
      throw new AuditError(
        'bad_secret',
        `${at}: not valid hex (${value.length} characters); write text: before a raw UTF-8 key`,
      )
    if (bytes.length === 0) throw new AuditError('bad_secret', `${at}: empty hex: key`)
    out.push({ encoding: 'hex', value })
  })
  if (out.length === 0)
    throw new AuditError('no_secret', `${source}: no key in it (only blank lines and # comments)`)
  return out
}
