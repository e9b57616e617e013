// Issue 38: the auditor's copy of a public key names one key. OpenSSL reads the first PEM block of
// a file and ignores the rest, so a file of two keys was checked against the first while a reader
// of the file could take the second for the signer's. Generated: every pair and order of public,
// private and foreign blocks, refused in one line by report verify's key loader, the app's PEM text
// and verify-export; one block (with text around it, as OpenSSL writes it) still loads.
import { execFileSync } from 'node:child_process'
import { createPublicKey, generateKeyPairSync } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { AuditError } from '../../../src/main/base/errors'
import {
  fingerprintOf,
  loadPrivateKey,
  loadPublicKey,
  publicKeyFromPem,
} from '../../../src/main/custody/ed25519'
import { loadSigningKey } from '../../../src/main/export/sign-key'
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

// Round 7: key files given to SIGN (report --sign-key, the app's signing key, export --sign-key)
// were read by OpenSSL alone: a file of two blocks signed with whichever OpenSSL took first (a
// public key of another signer beside the private key), and an empty file, a DER file, a public
// key or an encrypted key were each "DECODER routines::unsupported" or "interrupted or cancelled".
// Now each loader says what the file is, in one line; and verify-export named a FIFO, a device, a
// folder or an oversized file given as the public key "public key not found".
describe('a key file given to sign holds one unencrypted private key, or one line says what it holds', () => {
  const a = pair()
  const b = pair()
  const x = generateKeyPairSync('x25519', {
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  }).publicKey
  const encrypted = generateKeyPairSync('ed25519', {
    privateKeyEncoding: { type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'p' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  }).privateKey
  const der = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'der' })
  const loaders: [string, (file: string) => unknown, (file: string) => RegExp][] = [
    ['report --sign-key', loadPrivateKey, (f) => new RegExp(`^invalid private key PEM ${f}: `)],
    ['export --sign-key', loadSigningKey, () => /^invalid signing key PEM: /],
  ]
  const cases: [string, string | Buffer, RegExp][] = [
    ['empty', '', /the file is empty \(0 bytes\), not a PEM key$/],
    ['DER', der, /not PEM text \(no "-----BEGIN" line\)/],
    ['text', 'text:not-a-key\n', /not PEM text/],
    ['public key', a.pub, /holds a public key \(BEGIN PUBLIC KEY\); signing needs the private key/],
    ['x25519 public key', x, /holds a public key/],
    ['encrypted', encrypted, /^.*an encrypted private key: give an unencrypted PKCS#8 Ed25519 key/],
  ]
  for (const first of [a.pub, b.pub, a.priv, b.priv, x])
    for (const second of [a.priv, b.pub])
      cases.push([
        `two blocks`,
        first + second,
        /the file holds 2 PEM blocks; a key file must hold exactly one key/,
      ])

  it('each case at each loader: one line naming it, an AuditError, never OpenSSL’s words', () => {
    let checked = 0
    for (const [label, body, words] of cases)
      for (const [name, load, prefix] of loaders) {
        const file = join(scratch.dir, `sign-${++n}.pem`)
        writeFileSync(file, body)
        let e: unknown
        try {
          load(file)
        } catch (err) {
          e = err
        }
        expect(e, `${label} at ${name}`).toBeInstanceOf(AuditError)
        const msg = (e as Error).message
        expect(msg, `${label} at ${name}`).toMatch(prefix(file))
        expect(msg, `${label} at ${name}`).toMatch(words)
        expect(msg).not.toMatch(/DECODER|ERR_OSSL|\n/)
        checked++
      }
    expect(checked).toBe(cases.length * 2)
  })

  it('one block (text around it, CRLF line ends) still signs as its key', () => {
    for (const text of [a.priv, `Subject: signer\n${a.priv}`, a.priv.replace(/\n/g, '\r\n')]) {
      const file = join(scratch.dir, `sign-ok-${++n}.pem`)
      writeFileSync(file, text)
      expect(fingerprintOf(createPublicKey(loadPrivateKey(file)))).toBe(
        fingerprintOf(publicKeyFromPem(a.pub)),
      )
      expect(loadSigningKey(file).fingerprint).toBe(fingerprintOf(publicKeyFromPem(a.pub)))
    }
  })

  it('verify-export: a key file that is not a regular file is named as what it is, not "not found"', () => {
    const fifo = join(scratch.dir, 'key.fifo')
    execFileSync('mkfifo', [fifo])
    const big = join(scratch.dir, 'big.pem')
    writeFileSync(big, Buffer.alloc(70_000, 0x41))
    const doc = {
      format: 'bijotel-chain-v2',
      entries_count: 0,
      entries: [],
      head_hash: '0'.repeat(64),
      ed25519_signature: { public_key: 'x', signature: 'y', algorithm: 'Ed25519' },
      chain_signature: 'z',
    }
    for (const [file, what] of [
      [fifo, /is a FIFO, not a regular file/],
      ['/dev/zero', /is a device, not a regular file/],
      [scratch.dir, /is a directory, not a regular file/],
      [big, /over the 65536-byte limit/],
    ] as const)
      expect(verifyExportDoc(doc, [], file).reason).toMatch(
        new RegExp(`^auditor public key invalid: public key .* ${what.source}`),
      )
    expect(verifyExportDoc(doc, [], join(scratch.dir, 'absent.pem')).reason).toBe(
      `public key not found: ${join(scratch.dir, 'absent.pem')}`,
    )
  })
})
