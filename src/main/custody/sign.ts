// Signed reports (issue 25 item 3): an Ed25519 signature over the RFC 8785 (JCS) canonical form of
// the report without its `signature` member, as UTF-8 bytes. JCS makes the signed bytes independent
// of how the JSON was laid out (indentation, key order, the HTML page it is embedded in), so the
// same report signed once verifies wherever it travels. The block names the algorithm, the raw
// public key (base64, as Python BIJOTEL's v2 export embeds it, §9.1) and its fingerprint.
import type { KeyObject } from 'node:crypto'
import { createPublicKey } from 'node:crypto'
import type { ReportSignature, SignatureCheck } from '../../shared/custody-types'
import type { AuditReport } from '../../shared/report-types'
import { AuditError, oneLine } from '../base/errors'
import { publicKeyProblem, signatureProblem } from '../chain/ed25519-strict'
import { canonicalBytesOf } from '../chain/jcs'
import { fingerprintOf, publicKeyFromRaw, rawPublicKey, signEd25519, verifyEd25519 } from './ed25519'

export const SIGNED_OVER = 'jcs-report-without-signature'

/** The bytes a report's signature covers: JCS of the report without `signature`. */
export function signingBytes(report: Record<string, unknown>): Buffer {
  const { signature: _s, ...rest } = report
  try {
    return canonicalBytesOf(rest)
  } catch (e) {
    throw new AuditError('bad_argument', `the report cannot be canonicalized (RFC 8785): ${oneLine(e)}`)
  }
}

/** The report with its signature block (last, so a reader meets it after what it signs). */
export function signReport(report: AuditReport, key: KeyObject): AuditReport {
  const pub = createPublicKey(key)
  const { signature: _old, ...unsigned } = report
  const sig = signEd25519(key, signingBytes(unsigned as Record<string, unknown>))
  const block: ReportSignature = {
    algorithm: 'Ed25519',
    signed_over: SIGNED_OVER,
    public_key: rawPublicKey(pub).toString('base64'),
    fingerprint: fingerprintOf(pub),
    signature: sig.toString('base64'),
  }
  return { ...unsigned, signature: block }
}

function strictBase64(s: unknown, bytes: number): Buffer | null {
  if (typeof s !== 'string') return null
  const b = Buffer.from(s, 'base64')
  return b.length === bytes && b.toString('base64') === s ? b : null
}

/**
 * Whether a report's signature holds: against `provided` (the auditor's copy of the key, which must
 * be the key the report names: a swapped key is named as such), else only against the key the
 * report itself carries — which proves the report unchanged since it was signed, not who signed it.
 */
export function checkReportSignature(report: Record<string, unknown>, provided?: KeyObject): SignatureCheck {
  const block = report['signature']
  const providedFp = provided ? fingerprintOf(provided) : null
  if (block === undefined) {
    return {
      status: provided ? 'invalid' : 'unsigned',
      key: provided ? 'provided' : 'none',
      fingerprint: providedFp,
      detail: provided
        ? 'the report is not signed, but a public key was given: nothing proves it comes from that key'
        : 'the report is not signed: nothing proves who wrote it or that it is unchanged',
    }
  }
  const bad = (detail: string, fp: string | null = providedFp): SignatureCheck => ({
    status: 'invalid',
    key: provided ? 'provided' : 'embedded',
    fingerprint: fp,
    detail,
  })
  if (typeof block !== 'object' || block === null || Array.isArray(block))
    return bad('signature block is not an object')
  const b = block as Record<string, unknown>
  if (b['algorithm'] !== 'Ed25519')
    return bad(`unsupported signature algorithm: ${JSON.stringify(b['algorithm'])}`)
  if (b['signed_over'] !== SIGNED_OVER) return bad(`unknown signed_over: ${JSON.stringify(b['signed_over'])}`)
  const raw = strictBase64(b['public_key'], 32)
  if (raw === null) return bad('signature.public_key is not a base64 32-byte Ed25519 key')
  const sig = strictBase64(b['signature'], 64)
  if (sig === null) return bad('signature.signature is not a base64 64-byte Ed25519 signature')
  // Before any equation: a key of small order or a malleable signature proves nothing (ed25519-strict).
  const keyProblem = publicKeyProblem(raw)
  if (keyProblem !== null) return bad(`signature.public_key refused: ${keyProblem}`)
  const sigProblem = signatureProblem(sig)
  if (sigProblem !== null) return bad(`signature.signature refused: ${sigProblem}`)
  let embedded: KeyObject
  try {
    embedded = publicKeyFromRaw(raw)
  } catch (e) {
    return bad(`signature.public_key is not a usable Ed25519 key: ${oneLine(e)}`)
  }
  const embeddedFp = fingerprintOf(embedded)
  if (b['fingerprint'] !== embeddedFp)
    return bad(
      `signature.fingerprint ${JSON.stringify(b['fingerprint'])} is not the embedded key's (${embeddedFp})`,
      embeddedFp,
    )
  if (provided && !rawPublicKey(provided).equals(raw)) {
    return bad(
      `the report was signed by key ${embeddedFp}, not by the given public key ${providedFp} (a key swap, or the wrong key file)`,
    )
  }
  const key = provided ?? embedded
  if (!verifyEd25519(key, signingBytes(report), sig)) {
    return bad(
      `Ed25519 signature does NOT match the report (key ${embeddedFp}): the report was changed after it was signed, or the signature is not its own`,
      embeddedFp,
    )
  }
  return provided
    ? {
        status: 'valid',
        key: 'provided',
        fingerprint: embeddedFp,
        detail: `Ed25519 signature valid: signed by the given public key ${embeddedFp}`,
      }
    : {
        status: 'valid',
        key: 'embedded',
        fingerprint: embeddedFp,
        detail: `Ed25519 signature valid against the key in the report (${embeddedFp}) only: the report is self-consistent, but without --public-key nothing proves who signed it`,
      }
}
