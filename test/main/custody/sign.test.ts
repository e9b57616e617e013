// Signed reports (issue 25 item 3): the signature covers the RFC 8785 canonical form of the report
// without its signature block, so layout and key order do not matter and any change of content does.
import { createPrivateKey, createPublicKey, generateKeyPairSync, verify } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import type { AuditReport } from '../../../src/shared/report-types'
import canonicalizeOracle from 'canonicalize'
import { fingerprintOf } from '../../../src/main/custody/ed25519'
import { checkReportSignature, signingBytes, signReport } from '../../../src/main/custody/sign'

const { privateKey } = generateKeyPairSync('ed25519')
const other = generateKeyPairSync('ed25519')

// A small report-shaped document (the fields the signature treats like any other).
const report = {
  $schema: 'x',
  schema_version: '1.2.0',
  generated_at: '2025-01-01T00:00:00.000Z',
  chain: { entries: 3, first_seq: 1, last_seq: 3 },
  integrity: { report: { rate_anomalies: [{ baseline_rate: 21.05, current_rate: 5.26, change_pct: -75 }] } },
  note: 'Éc\u2028ris \u00e9 "q" \\ </script>',
} as unknown as AuditReport

/** The same JSON with every object's keys in reverse order. */
function reversed(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(reversed)
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.entries(v)
        .reverse()
        .map(([k, x]) => [k, reversed(x)]),
    )
  return v
}

describe('report signatures', () => {
  const signed = signReport(report, privateKey)
  const doc = signed as unknown as Record<string, unknown>

  it('signs the JCS bytes of the report without its signature (checked with an independent JCS)', () => {
    const { signature: _s, ...unsigned } = doc
    const oracle = Buffer.from(canonicalizeOracle(unsigned) ?? '', 'utf8')
    expect(signingBytes(doc)).toEqual(oracle)
    const sig = Buffer.from(signed.signature!.signature, 'base64')
    expect(verify(null, oracle, createPublicKey(privateKey), sig)).toBe(true)
    expect(signed.signature).toMatchObject({
      algorithm: 'Ed25519',
      signed_over: 'jcs-report-without-signature',
      fingerprint: fingerprintOf(createPublicKey(privateKey)),
    })
    expect(Object.keys(doc).at(-1)).toBe('signature')
  })

  it('holds across layout and key order, against the given key', () => {
    const again = JSON.parse(JSON.stringify(reversed(doc), null, 7)) as Record<string, unknown>
    expect(checkReportSignature(again, createPublicKey(privateKey))).toMatchObject({
      status: 'valid',
      key: 'provided',
    })
    expect(checkReportSignature(again)).toMatchObject({ status: 'valid', key: 'embedded' })
  })

  it('fails on any change of content, a foreign key, a bad block', () => {
    const changed = structuredClone(doc)
    ;(changed['chain'] as { entries: number }).entries = 4
    expect(checkReportSignature(changed).status).toBe('invalid')
    expect(checkReportSignature(doc, createPublicKey(other.privateKey))).toMatchObject({ status: 'invalid' })
    const badFp = structuredClone(doc)
    ;(badFp['signature'] as { fingerprint: string }).fingerprint = '0'.repeat(16)
    expect(checkReportSignature(badFp).detail).toMatch(/is not the embedded key's/)
    const badAlg = structuredClone(doc)
    ;(badAlg['signature'] as { algorithm: string }).algorithm = 'RSA'
    expect(checkReportSignature(badAlg).detail).toBe('unsupported signature algorithm: "RSA"')
    const { signature: _s, ...unsigned } = doc
    expect(checkReportSignature(unsigned).status).toBe('unsigned')
  })

  it('re-signing replaces the block', () => {
    const twice = signReport(
      signed,
      createPrivateKey(other.privateKey.export({ type: 'pkcs8', format: 'pem' })),
    )
    expect(
      checkReportSignature(twice as unknown as Record<string, unknown>, createPublicKey(other.privateKey))
        .status,
    ).toBe('valid')
  })
})
