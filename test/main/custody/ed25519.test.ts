// Issue 38: the auditor's copy of a public key names one key. OpenSSL reads the first PEM block of
// a file and ignores the rest, so a file of two keys was checked against the first while a reader
// of the file could take the second for the signer's. Generated: every pair and order of public,
// private and foreign blocks, refused in one line by report verify's key loader, the app's PEM text
// and verify-export; one block (with text around it, as OpenSSL writes it) still loads.
import { generateKeyPairSync } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { AuditError } from '../../../src/main/base/errors'
import { fingerprintOf, loadPublicKey, publicKeyFromPem } from '../../../src/main/custody/ed25519'
import { verifyExportDoc } from '../../../src/main/export/verify-export'
import { scratchDir } from '../reliability/chainkit'

const scratch = scratchDir('key-blocks')
afterAll(() => scratch.cleanup())
let n = 0

const pair = (): { pub: string; priv: string } => {
  const k = generateKeyPairSync('ed25519', {
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  })
  return { pub: k.publicKey, priv: k.privateKey }
}

describe('a public key file holds one key', () => {
  const a = pair()
  const b = pair()
  const x = generateKeyPairSync('x25519', { publicKeyEncoding: { type: 'spki', format: 'pem' } }).publicKey
  const blocks = [a.pub, b.pub, a.priv, b.priv, x]

  it('every file of two or three blocks is refused at each loader', () => {
    let cases = 0
    for (const first of blocks)
      for (const second of blocks)
        for (const third of ['', a.pub, 'comment\n']) {
          const text = first + (cases % 2 ? '\n' : '') + second + third
          const file = join(scratch.dir, `two-${++n}.pem`)
          writeFileSync(file, text)
          const want = /holds [23] PEM blocks; a key file must hold exactly one key/
          expect(() => loadPublicKey(file)).toThrow(AuditError)
          expect(() => loadPublicKey(file)).toThrow(want)
          expect(() => publicKeyFromPem(text)).toThrow(want)
          const r = verifyExportDoc(
            {
              format: 'bijotel-chain-v2',
              entries_count: 0,
              entries: [],
              head_hash: '0'.repeat(64),
              ed25519_signature: { public_key: 'x', signature: 'y', algorithm: 'Ed25519' },
              chain_signature: 'z',
            },
            [],
            file,
          )
          expect(r.reason).toMatch(/^auditor public key invalid: the file holds/)
          cases++
        }
    expect(cases).toBe(75)
  })

  it('one block, with text around it, still loads as its key', () => {
    for (const text of [a.pub, `Subject: signer\n${a.pub}`, `${a.pub}\ntrailing note\n`, a.priv]) {
      const file = join(scratch.dir, `one-${++n}.pem`)
      writeFileSync(file, text)
      expect(fingerprintOf(loadPublicKey(file))).toBe(fingerprintOf(publicKeyFromPem(a.pub)))
    }
  })
})
