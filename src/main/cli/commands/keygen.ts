// `bijotel keygen`: the reference's `keygen_cmd` (§4.8), its files, modes and output lines.
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { createPublicKey } from 'node:crypto'
import { AuditError, oneLine } from '../../base/errors'
import { fingerprintOf, generateEd25519 } from '../../custody/ed25519'
import { parse } from '../args'
import type { Run } from '../command'
import { EXIT } from './keygen-info'
import { pyPathStr } from '../../python/pypath'

/** `pathlib` joining: `Path('.') / name` is just `name`. */
function pyJoin(dir: string, name: string): string {
  if (dir === '.') return name
  return dir.endsWith('/') ? dir + name : `${dir}/${name}`
}

export const run: Run = async (argv, io) => {
  const { values } = parse(argv, {
    'output-dir': { type: 'string' },
    force: { type: 'boolean' },
  })
  const given = values['output-dir']
  const outDir = pyPathStr(typeof given === 'string' ? given : './keys')
  const privPath = pyJoin(outDir, 'bijotel_private.pem')
  const pubPath = pyJoin(outDir, 'bijotel_public.pem')
  try {
    mkdirSync(outDir, { recursive: true })
  } catch (e) {
    throw new AuditError('io', `cannot create ${outDir}: ${oneLine(e)}`)
  }
  if (existsSync(privPath) && !values['force']) {
    io.err(
      `ERROR: ${privPath} already exists. Pass --force to overwrite ` +
        '(this rotates your signing key \u2014 old signed exports will no longer carry a matching key).\n',
    )
    return EXIT.exists
  }
  const pair = generateEd25519()
  try {
    // Created 0600 at once (Python writes it with the umask's mode and narrows it afterwards).
    writeFileSync(privPath, pair.privatePem, { mode: 0o600 })
    writeFileSync(pubPath, pair.publicPem)
  } catch (e) {
    throw new AuditError('io', `cannot write the keypair in ${outDir}: ${oneLine(e)}`)
  }
  try {
    chmodSync(privPath, 0o600) // an existing file (--force) keeps its old mode until now
  } catch {
    // as the reference: best effort where the file system has no modes
  }
  const fp = fingerprintOf(createPublicKey(pair.publicPem))
  io.out(
    [
      `Generated Ed25519 keypair in ${outDir}/`,
      `  Private key: ${privPath}  (mode 0o600 \u2014 keep secret)`,
      `  Public key:  ${pubPath}   (share with auditors)`,
      `  Fingerprint: ${fp}`,
      '',
      'Next steps:',
      `  bijotel export --db chain.db -o export.json --sign-key ${privPath}`,
      `  bijotel verify-export export.json --public-key ${pubPath} [--secret-hex <hex>]`,
      '',
    ].join('\n'),
  )
  return EXIT.ok
}
