// Verifying a Python BIJOTEL export file (reference §9.1–9.2): the checks in the reference's order,
// with its exact reasons, so the answer matches `bijotel verify-export` word for word. Two things
// go further, each said where it applies: every candidate key is tried, per entry and for the
// chain_signature (an export of a rotated chain verifies; §11.14), and a signature-only pass says
// that the entries themselves are not authenticated by it (§11.6).
import { createHash, createHmac, createPublicKey, timingSafeEqual, type KeyObject } from 'node:crypto'
import { readClientFile } from '../base/client-file'
import { AuditError, oneLine } from '../base/errors'
import { pemKeyProblem, publicKeyProblem, verifyStrict } from '../chain/ed25519-strict'
import { IJSON_MAX_DEPTH, IJsonError, parseIJson } from '../chain/i-json'
import { GENESIS_HASH, makeSealer } from '../chain/seal'
import { pyRepr } from '../python/repr'
import { exportMetadataProblem } from './export-metadata'

export const FORMAT_V1 = 'bijotel-chain-v1'
export const FORMAT_V2 = 'bijotel-chain-v2'

/** The largest export read (its JSON text becomes one string, then one object tree). */
export const MAX_EXPORT_BYTES = 512 * 1024 * 1024
/**
 * Values an export may hold: the parse's memory bound. An entry is ~7 values and at least ~250
 * bytes (three 64-hex hashes), so 512 MiB of real export holds at most ~15M values; a crafted one
 * (`[{},{},…]`, 3 bytes a value) is refused after ~48 MB of scanning.
 */
export const MAX_EXPORT_VALUES = 16_000_000

/** What `inspect_export` tells of a file, for the header lines. */
export interface ExportFacts {
  size: number
  format: unknown
  entries_count: unknown
  /** First 16 hex of SHA-256 of the embedded raw Ed25519 key, when the file carries one. */
  signed_by: string | null
}

export interface ExportVerdict {
  ok: boolean
  reason: string
}

/** `chain_signature`: hex HMAC-SHA256(key, "chain:" + head_hash + ":" + entries_count). */
export function chainSignature(key: Buffer, headHash: string, count: number): string {
  return createHmac('sha256', key).update(`chain:${headHash}:${count}`, 'utf8').digest('hex')
}

/** The file read and parsed, or the reason it could not be (the reference's wording). */
export function readExport(path: string): { doc: Record<string, unknown>; size: number } | { error: string } {
  let bytes: Buffer
  let size: number
  try {
    // The whole document is parsed at once (as the reference does): past this, say so instead of
    // running out of memory or string length. Read once through the one client-file open.
    bytes = readClientFile(path, {
      label: 'export',
      maxBytes: MAX_EXPORT_BYTES,
      tooLarge: (n) =>
        new AuditError(
          'too_large',
          `${path} is ${n} bytes; exports over ${MAX_EXPORT_BYTES} bytes are not read into memory`,
        ),
    })
    size = bytes.length
  } catch (e) {
    if (e instanceof AuditError && /not found: /.test(e.message)) return { error: `File not found: ${path}` }
    return { error: oneLine(e) }
  }
  if (bytes.length > MAX_EXPORT_BYTES)
    return {
      error: `${path} is ${bytes.length} bytes; exports over ${MAX_EXPORT_BYTES} bytes are not read into memory`,
    }
  try {
    // I-JSON (RFC 7493): a duplicate name or a lone surrogate would let the file mean one thing to
    // this check and another to a reader of the entries. Integers are taken at any size: Python
    // writes timestamp_ns as one, and no check here reads it.
    const doc = parseIJson(bytes, {
      maxDepth: IJSON_MAX_DEPTH,
      maxValues: MAX_EXPORT_VALUES,
      largeIntegers: true,
    })
    if (doc === null || typeof doc !== 'object' || Array.isArray(doc))
      return { error: 'JSON parse error: the file is not a JSON object' }
    return { doc: doc as Record<string, unknown>, size }
  } catch (e) {
    if (e instanceof IJsonError) return { error: `JSON parse error: not I-JSON (RFC 7493): ${e.message}` }
    return { error: `JSON parse error: ${(e as Error).message}` }
  }
}

/** The embedded raw public key (base64 of 32 bytes), if the signature block has one. */
function embeddedKey(doc: Record<string, unknown>): Buffer | null {
  const block = doc['ed25519_signature']
  if (block === null || typeof block !== 'object') return null
  const b64 = (block as Record<string, unknown>)['public_key']
  if (typeof b64 !== 'string') return null
  const raw = Buffer.from(b64, 'base64')
  return raw.length === 32 ? raw : null
}

export function exportFacts(doc: Record<string, unknown>, size: number): ExportFacts {
  const key = embeddedKey(doc)
  return {
    size,
    format: doc['format'],
    entries_count: doc['entries_count'],
    signed_by: key === null ? null : createHash('sha256').update(key).digest('hex').slice(0, 16),
  }
}

/** Strict standard base64 (Python's b64decode(validate=True)), or null. */
function strictBase64(s: unknown): Buffer | null {
  if (typeof s !== 'string' || s.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(s)) return null
  return Buffer.from(s, 'base64')
}

/** The raw 32 bytes of an Ed25519 public key. */
function rawEd25519(key: KeyObject): Buffer {
  return Buffer.from(key.export({ format: 'jwk' }).x!, 'base64url')
}

function checkSignature(doc: Record<string, unknown>, format: string, publicKeyPath: string): string | null {
  if (format !== FORMAT_V2)
    return `--public-key provided but file is ${format} (only bijotel-chain-v2 carries an Ed25519 signature)`
  const b = signatureBlock(doc)
  if (typeof b === 'string') return b
  let pem: string
  try {
    pem = readClientFile(publicKeyPath, { label: 'public key', maxBytes: 64 * 1024 }).toString('utf8')
  } catch (e) {
    // The reference's words for a missing file; a FIFO, a device, a folder or a file too large to
    // be a key is there, and the one open says what it is.
    if (e instanceof AuditError && /not found: /.test(e.message))
      return `public key not found: ${publicKeyPath}`
    return `auditor public key invalid: ${oneLine(e)}`
  }
  let auditor: KeyObject
  try {
    const problem = pemKeyProblem(pem, 'public')
    if (problem !== null) throw new Error(problem)
    auditor = createPublicKey(pem)
    if (auditor.asymmetricKeyType !== 'ed25519')
      throw new Error(`not an Ed25519 key (${auditor.asymmetricKeyType})`)
  } catch (e) {
    return `auditor public key invalid: ${(e as Error).message.split('\n')[0]}`
  }
  return signatureProblem(doc, b, auditor)
}

/** The block's signature block as found in the file, or why it cannot be checked (§9.2's words). */
function signatureBlock(doc: Record<string, unknown>): Record<string, unknown> | string {
  const block = doc['ed25519_signature']
  if (block === undefined || block === null || typeof block !== 'object')
    return 'ed25519_signature block missing'
  const b = block as Record<string, unknown>
  if (typeof b['public_key'] !== 'string' || typeof b['signature'] !== 'string')
    return 'ed25519_signature is missing public_key or signature'
  if (b['algorithm'] !== 'Ed25519') return `unsupported signature algorithm: ${pyRepr(b['algorithm'])}`
  return b
}

/**
 * The signature checked against `auditor` (the auditor's copy of the key), or with none against the
 * key the block carries: the header's "signed by" names that key, so the signature must hold under
 * it, or the line names a key that signed nothing here.
 */
function signatureProblem(
  doc: Record<string, unknown>,
  b: Record<string, unknown>,
  auditor: KeyObject | null,
): string | null {
  // Past the reference, which reads neither (after its own checks of the key file, in its order):
  // the block says what the signature covers, and a reader takes it at its word (`"signed_over": "entries"` would claim what §11.6 says it does not do);
  // and the key's text must be the key, not base64 with text of the writer's choosing that a
  // lenient decoder skips.
  if (b['signed_over'] !== undefined && b['signed_over'] !== 'chain_signature')
    return `ed25519_signature.signed_over is ${pyRepr(b['signed_over'])}: the signature covers chain_signature only`
  if (strictBase64(b['public_key'])?.length !== 32)
    return 'ed25519_signature.public_key is not the standard base64 of a 32-byte Ed25519 key'
  const embedded = Buffer.from(b['public_key'] as string, 'base64')
  const mine = auditor === null ? embedded : rawEd25519(auditor)
  if (embedded.length !== mine.length || !timingSafeEqual(embedded, mine))
    return "public key in export does not match auditor's copy (embedded != provided — possible key-swap attack)"
  const sig = strictBase64(b['signature'])
  if (sig === null) return 'ed25519 signature not base64-decodable: invalid base64'
  const signed = doc['chain_signature']
  if (typeof signed !== 'string') return 'chain_signature missing or not a string'
  // The signature is over the ASCII bytes of chain_signature (§9.1). Node's 'ascii' encoding keeps
  // the low byte of any other character, so "\u0162…" would be checked as "b…": a file showing one
  // chain_signature while the signature covers another. Python's encode('ascii') refuses it too; a
  // character past U+007F is the one that takes more than one UTF-8 byte.
  if (Buffer.byteLength(signed, 'utf8') !== signed.length)
    return 'chain_signature is not ASCII text: the signature covers its ASCII bytes, and this one has none'
  // Strictly (../chain/ed25519-strict): a small-order key or R, or S >= L, is refused by name.
  const keyProblem = publicKeyProblem(mine)
  if (keyProblem !== null) return `ed25519 signature refused: ${keyProblem}`
  let key: KeyObject
  try {
    key =
      auditor ??
      createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: mine.toString('base64url') }, format: 'jwk' })
  } catch (e) {
    return `ed25519_signature.public_key is not an Ed25519 key: ${oneLine(e)}`
  }
  const problem = verifyStrict(key, Buffer.from(signed, 'ascii'), sig)
  if (problem === null) return null
  const against = auditor === null ? ' under the key the file carries (no --public-key given)' : ''
  return problem === 'the signature does not match'
    ? `ed25519 signature does NOT match chain_signature${against}`
    : `ed25519 signature refused${against}: ${problem}`
}

/**
 * verify_export's checks in its order (§9.2). `keys`: candidate HMAC secrets (none in auditor
 * mode); `publicKeyPath`: the auditor's copy of the Ed25519 public key, or null.
 */
export function verifyExportDoc(
  doc: Record<string, unknown>,
  keys: Buffer[],
  publicKeyPath: string | null,
): ExportVerdict {
  const fail = (reason: string): ExportVerdict => ({ ok: false, reason })
  if (keys.some((k) => k.length < 16)) return fail('secret_key must be at least 16 bytes')
  const format = doc['format']
  if (format !== FORMAT_V1 && format !== FORMAT_V2)
    return fail(`Not a bijotel-chain-v1 file (and not v2 either); got format=${pyRepr(format)}`)
  const entries = Array.isArray(doc['entries']) ? (doc['entries'] as unknown[]) : []
  const count = doc['entries_count']
  if (count !== entries.length)
    return fail(`entries_count mismatch (${pyRepr(count)} vs len(entries)=${entries.length})`)
  if (keys.length === 0 && publicKeyPath === null)
    return fail(
      'verify requires a trust anchor: pass secret_key (HMAC) or public_key_path (Ed25519, v2 export). With neither, only self-referential structure is checked, which a forged export can satisfy.',
    )
  if (keys.length === 0 && format !== FORMAT_V2)
    return fail(
      `auditor-mode verify requires a v2 (signed) export; this file is ${format}. Ask the operator to re-export with --sign-key.`,
    )
  const head = typeof doc['head_hash'] === 'string' ? doc['head_hash'] : String(doc['head_hash'])
  if (keys.length > 0) {
    const stored = doc['chain_signature']
    if (!keys.some((k) => chainSignature(k, head, entries.length) === stored))
      return fail('chain_signature mismatch — file may be tampered')
  }
  const entryAt = (i: number): Record<string, unknown> => {
    const e = entries[i]
    return e !== null && typeof e === 'object' ? (e as Record<string, unknown>) : {}
  }
  if (entries.length > 0 && entryAt(entries.length - 1)['hmac_hash'] !== head)
    return fail('head_hash does not match last entry hmac_hash')
  const segment = doc['segment']
  let expectedPrev: unknown =
    segment !== null && typeof segment === 'object'
      ? (segment as Record<string, unknown>)['boundary_prev_hash']
      : GENESIS_HASH
  if (publicKeyPath !== null) {
    const problem = checkSignature(doc, format, publicKeyPath)
    if (problem !== null) return fail(problem)
  }
  const sealers = keys.map(makeSealer)
  for (let i = 0; i < entries.length; i++) {
    const e = entryAt(i)
    const seq = e['seq'] !== undefined ? String(e['seq']) : String(i)
    if (e['canonical_body_b64'] === undefined) return fail(`missing canonical_body_b64 at seq=${seq}`)
    const body = strictBase64(e['canonical_body_b64'])
    if (body === null) return fail(`canonical_body_b64 not decodable at seq=${seq}: invalid base64`)
    const digest = createHash('sha256').update(body).digest('hex')
    const claimed = String(e['canonical_hash'])
    if (digest !== claimed)
      return fail(
        `canonical_body tampered at seq=${seq}: body hashes to ${digest.slice(0, 16)}... but canonical_hash claims ${claimed.slice(0, 16)}...`,
      )
    const prev = String(e['prev_hash'])
    if (sealers.length > 0 && !sealers.some((s) => s.seal(prev, claimed) === e['hmac_hash']))
      return fail(`hmac_hash mismatch at seq=${seq}`)
    if (e['prev_hash'] !== expectedPrev) return fail(`prev_hash chain break at seq=${seq}`)
    expectedPrev = e['hmac_hash']
  }
  // Past the reference: what the entries show beside their bodies must agree with them.
  const meta = exportMetadataProblem(doc, entries)
  if (meta !== null) return fail(meta)
  // Past the reference: without --public-key the header still says "signed by <the key it carries>";
  // a v2 file whose signature does not hold under that key would have it name a key that signed nothing.
  if (publicKeyPath === null && format === FORMAT_V2) {
    const b = signatureBlock(doc)
    const problem = typeof b === 'string' ? b : signatureProblem(doc, b, null)
    if (problem !== null) return fail(problem)
  }
  return { ok: true, reason: 'ok' }
}
