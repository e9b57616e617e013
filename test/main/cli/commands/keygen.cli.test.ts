// `bin/bijotel keygen` end to end: the reference's files (PKCS#8 and SPKI PEM, private key 0600),
// output lines, fingerprint and refusal to overwrite; Python's `cryptography` (when installed)
// reads the files and writes them again byte for byte.
import { spawnSync } from 'node:child_process'
import { createHash, createPrivateKey, createPublicKey, sign, verify } from 'node:crypto'
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { pyPathStr } from '../../../../src/main/python/pypath'
import { bijotel, ensureBuilt } from '../../testing/cli'

const dir = mkdtempSync(join(tmpdir(), 'bijotel-keygen-'))
beforeAll(() => ensureBuilt())
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function rawKey(pem: string): Buffer {
  const der = createPublicKey(pem).export({ type: 'spki', format: 'der' })
  return der.subarray(der.length - 32)
}

const pythonHasCryptography =
  spawnSync('python3', ['-c', 'import cryptography.hazmat.primitives.asymmetric.ed25519'], {
    encoding: 'utf8',
  }).status === 0

describe('bijotel keygen', () => {
  it('writes the pair, prints the reference lines and the fingerprint', () => {
    const out = join(dir, 'a', 'keys')
    const r = bijotel(['keygen', '--output-dir', out])
    expect(r.code).toBe(0)
    expect(r.stderr).toBe('')
    const priv = readFileSync(join(out, 'bijotel_private.pem'), 'utf8')
    const pub = readFileSync(join(out, 'bijotel_public.pem'), 'utf8')
    expect(priv).toMatch(/^-----BEGIN PRIVATE KEY-----\n[A-Za-z0-9+/=]{64}\n-----END PRIVATE KEY-----\n$/)
    expect(pub).toMatch(/^-----BEGIN PUBLIC KEY-----\n[A-Za-z0-9+/=]{60}\n-----END PUBLIC KEY-----\n$/)
    // PKCS#8 v1 of an Ed25519 key is 48 bytes (RFC 8410 §7), its SPKI 44 (§4).
    const privDer = createPrivateKey(priv).export({ type: 'pkcs8', format: 'der' })
    expect(privDer.length).toBe(48)
    expect(Buffer.from(priv.split('\n')[1]!, 'base64')).toEqual(privDer)
    expect(createPublicKey(pub).export({ type: 'spki', format: 'der' }).length).toBe(44)
    expect(statSync(join(out, 'bijotel_private.pem')).mode & 0o777).toBe(0o600)
    const umask = process.umask()
    expect(statSync(join(out, 'bijotel_public.pem')).mode & 0o777).toBe(0o666 & ~umask)
    // The pair belongs together.
    const msg = Buffer.from('report')
    expect(verify(null, msg, createPublicKey(pub), sign(null, msg, createPrivateKey(priv)))).toBe(true)
    const fp = createHash('sha256').update(rawKey(pub)).digest('hex').slice(0, 16)
    expect(r.stdout).toBe(
      [
        `Generated Ed25519 keypair in ${out}/`,
        `  Private key: ${out}/bijotel_private.pem  (mode 0o600 \u2014 keep secret)`,
        `  Public key:  ${out}/bijotel_public.pem   (share with auditors)`,
        `  Fingerprint: ${fp}`,
        '',
        'Next steps:',
        `  bijotel export --db chain.db -o export.json --sign-key ${out}/bijotel_private.pem`,
        `  bijotel verify-export export.json --public-key ${out}/bijotel_public.pem [--secret-hex <hex>]`,
        '',
      ].join('\n'),
    )
  })

  it('refuses to overwrite a private key without --force (exit 2), replaces it with --force', () => {
    const out = join(dir, 'b')
    expect(bijotel(['keygen', '--output-dir', out]).code).toBe(0)
    const before = readFileSync(join(out, 'bijotel_private.pem'), 'utf8')
    const r = bijotel(['keygen', '--output-dir', out])
    expect(r.code).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr).toBe(
      `ERROR: ${out}/bijotel_private.pem already exists. Pass --force to overwrite (this rotates your signing key \u2014 old signed exports will no longer carry a matching key).\n`,
    )
    expect(readFileSync(join(out, 'bijotel_private.pem'), 'utf8')).toBe(before)
    const f = bijotel(['keygen', '--output-dir', out, '--force'])
    expect(f.code).toBe(0)
    expect(readFileSync(join(out, 'bijotel_private.pem'), 'utf8')).not.toBe(before)
    expect(statSync(join(out, 'bijotel_private.pem')).mode & 0o777).toBe(0o600)
  })

  it('--force narrows an existing private key file to 0600', () => {
    const out = join(dir, 'c')
    expect(bijotel(['keygen', '--output-dir', out]).code).toBe(0)
    writeFileSync(join(out, 'bijotel_private.pem'), 'old', { mode: 0o644 })
    expect(bijotel(['keygen', '--output-dir', out, '--force']).code).toBe(0)
    expect(statSync(join(out, 'bijotel_private.pem')).mode & 0o777).toBe(0o600)
  })

  it('defaults to ./keys and prints paths as Python pathlib does', () => {
    const cwd = mkdtempSync(join(dir, 'cwd-'))
    const r = bijotel(['keygen'], {}, cwd)
    expect(r.code).toBe(0)
    expect(existsSync(join(cwd, 'keys', 'bijotel_private.pem'))).toBe(true)
    expect(r.stdout.split('\n')[0]).toBe('Generated Ed25519 keypair in keys/')
    expect(r.stdout.split('\n')[1]).toBe(
      '  Private key: keys/bijotel_private.pem  (mode 0o600 \u2014 keep secret)',
    )
    const here = bijotel(['keygen', '--output-dir', '.'], {}, cwd)
    expect(here.stdout.split('\n').slice(0, 2)).toEqual([
      'Generated Ed25519 keypair in ./',
      '  Private key: bijotel_private.pem  (mode 0o600 \u2014 keep secret)',
    ])
  })

  it('an output folder that cannot be made is one line, exit 1', () => {
    const file = join(dir, 'plain-file')
    writeFileSync(file, 'x')
    const r = bijotel(['keygen', '--output-dir', join(file, 'keys')])
    expect(r.code).toBe(1)
    expect(r.stdout).toBe('')
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
    expect(r.stderr).toMatch(/^ERROR: cannot create /)
  })

  it.each([
    ['./keys', 'keys'],
    ['keys/', 'keys'],
    ['a//b/./c/', 'a/b/c'],
    ['/', '/'],
    ['//x', '//x'],
    ['///x', '/x'],
    ['.', '.'],
    ['', '.'],
    ['../k', '../k'],
  ])('pyPathStr(%j) = %j', (p, want) => {
    expect(pyPathStr(p)).toBe(want)
  })

  it.skipIf(!pythonHasCryptography)("Python's cryptography reads the files and writes the same bytes", () => {
    const out = join(dir, 'py')
    const r = bijotel(['keygen', '--output-dir', out])
    expect(r.code).toBe(0)
    const script = `
import sys, hashlib
from cryptography.hazmat.primitives import serialization as s
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
priv = open(sys.argv[1], 'rb').read(); pub = open(sys.argv[2], 'rb').read()
k = s.load_pem_private_key(priv, password=None); p = s.load_pem_public_key(pub)
assert isinstance(k, Ed25519PrivateKey) and isinstance(p, Ed25519PublicKey)
assert k.private_bytes(s.Encoding.PEM, s.PrivateFormat.PKCS8, s.NoEncryption()) == priv
assert p.public_bytes(s.Encoding.PEM, s.PublicFormat.SubjectPublicKeyInfo) == pub
assert k.public_key().public_bytes(s.Encoding.Raw, s.PublicFormat.Raw) == p.public_bytes(s.Encoding.Raw, s.PublicFormat.Raw)
print(hashlib.sha256(p.public_bytes(s.Encoding.Raw, s.PublicFormat.Raw)).hexdigest()[:16])
`
    const py = spawnSync(
      'python3',
      ['-c', script, join(out, 'bijotel_private.pem'), join(out, 'bijotel_public.pem')],
      { encoding: 'utf8' },
    )
    expect(py.stderr).toBe('')
    expect(py.status).toBe(0)
    expect(r.stdout).toContain(`  Fingerprint: ${py.stdout.trim()}\n`)
  })
})
