// The app's chain-of-custody calls (issue 25) as the desktop shell makes them: the handler table with
// a platform whose dialogs answer paths in a temporary folder, on the shared fixtures.
import { createPublicKey, generateKeyPairSync } from 'node:crypto'
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { JobStatus } from '../../../src/shared/job-types'
import type { AuditReport } from '../../../src/shared/report-types'
import type { VerifyVerdict } from '../../../src/shared/verify-types'
import { readReportFile } from '../../../src/main/custody/report-file'
import { checkReportSignature } from '../../../src/main/custody/sign'
import { dispatch, type Reply } from '../../../src/main/handlers/dispatch'
import { AuditSession } from '../../../src/main/session/session'
import { createHandlers, type CallContext, type HandlerTable } from '../../../src/main/handlers/table'
import { parseSecrets } from '../../../src/main/chain/keys'
import { tempDir } from '../server/testkit'
import { dbPath, fingerprintFolder, secretInputs } from '../testing/fixtures'

const IPC: CallContext = { transport: 'ipc', trusted: true }
const before = fingerprintFolder()
const tmp = tempDir('bijotel-custody-handlers-')
const pair = generateKeyPairSync('ed25519')
const keyFile = join(tmp.dir, 'signing.pem')
let session: AuditSession
let table: HandlerTable
/** What the next dialog answers, and what the PDF printer was given. */
let nextKeyPath: string | null = null
let nextSavePath: string | null = null
const printed: string[] = []

async function call(name: keyof HandlerTable, req?: unknown): Promise<Reply> {
  return dispatch(table, name, req, IPC)
}

function value<T>(r: Reply): T {
  if (!r.ok) throw new Error(`call failed: ${r.error.error}`)
  return r.value as T
}

async function verifyJob(): Promise<VerifyVerdict> {
  const { id } = value<JobStatus>(await call('startVerify', {}))
  for (let i = 0; i < 2000; i++) {
    const s = value<JobStatus>(await call('jobStatus', { id }))
    if (s.state !== 'running') return s.result as VerifyVerdict
    await new Promise((res) => setTimeout(res, 10))
  }
  throw new Error('verify did not finish')
}

beforeAll(async () => {
  writeFileSync(keyFile, pair.privateKey.export({ type: 'pkcs8', format: 'pem' }))
  session = new AuditSession({})
  table = createHandlers(session, {
    pickKeyPath: async () => nextKeyPath,
    pickSavePath: async () => nextSavePath,
    printToPdf: async (html) => {
      printed.push(html)
      return Buffer.from('%PDF-1.7 stand-in for Chromium printToPDF\n')
    },
  })
  await session.open(dbPath('clean'))
  // After the open: keys belong to the chain they are given for.
  session.keys = parseSecrets(secretInputs(['primary']))
})

afterAll(() => {
  session.dispose()
  tmp.cleanup()
  expect(fingerprintFolder()).toEqual(before)
})

describe('chain-of-custody calls in the desktop app', () => {
  it('the key chosen in the dialog signs every export; cancelling keeps it; only its public half comes back', async () => {
    nextKeyPath = keyFile
    const info = value<{ fingerprint: string; public_key: string; path: string }>(
      await call('pickSigningKey'),
    )
    expect(info.path).toBe(keyFile)
    expect(Buffer.from(info.public_key, 'base64')).toHaveLength(32)
    expect(JSON.stringify(info)).not.toMatch(/PRIVATE/)
    nextKeyPath = null
    expect(value(await call('pickSigningKey'))).toEqual(info)

    nextSavePath = join(tmp.dir, 'report.json')
    expect(value(await call('saveReport', {}))).toEqual({ path: nextSavePath })
    const json = JSON.parse(readFileSync(nextSavePath, 'utf8')) as Record<string, unknown>
    expect((json['signature'] as { fingerprint: string }).fingerprint).toBe(info.fingerprint)
    expect(checkReportSignature(json, createPublicKey(pair.privateKey)).status).toBe('valid')

    nextSavePath = join(tmp.dir, 'report.html')
    expect(value(await call('saveReport', { format: 'html' }))).toEqual({ path: nextSavePath })
    const page = readReportFile(nextSavePath)
    expect(page.format).toBe('html')
    expect(checkReportSignature(page.doc, createPublicKey(pair.privateKey)).status).toBe('valid')
    expect((page.doc as unknown as AuditReport).chain.entries).toBe(240)

    nextSavePath = join(tmp.dir, 'report.pdf')
    expect(value(await call('saveReport', { format: 'pdf' }))).toEqual({ path: nextSavePath })
    expect(readFileSync(nextSavePath, 'latin1')).toMatch(/^%PDF-/)
    expect(printed.at(-1)).toContain('<script type="application/json" id="bijotel-report">')

    const bad = await call('saveReport', { format: 'docx' })
    expect(bad.ok).toBe(false)
  })

  it('a report is never written over the evidence: by name, a side-file name, or through a link (issue 34)', async () => {
    const link = join(tmp.dir, 'looks-like-a-report.json')
    symlinkSync(dbPath('clean'), link)
    for (const target of [dbPath('clean'), `${dbPath('clean')}-wal`, `${dbPath('clean')}-journal`, link]) {
      nextSavePath = target
      for (const format of ['json', 'html'] as const) {
        const r = await call('saveReport', { format })
        expect(r.ok, `${format} → ${target}`).toBe(false)
        if (!r.ok) expect(r.error.error).toMatch(/refusing to write the report over the evidence/)
      }
    }
    // (afterAll: the fixtures folder is byte for byte as it was.)
  })

  it('a key that is not an Ed25519 private key is refused in one line and the held key stays', async () => {
    const held = value(await call('signingKey'))
    const pub = join(tmp.dir, 'public.pem')
    writeFileSync(pub, createPublicKey(pair.privateKey).export({ type: 'spki', format: 'pem' }))
    const rsa = join(tmp.dir, 'rsa.pem')
    writeFileSync(
      rsa,
      generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' }),
    )
    // A path string from the page is never taken, not even a good key's (issue 34: the dialog chooses).
    const byPath = await call('setSigningKey', { path: keyFile })
    expect(byPath.ok).toBe(false)
    expect(value(await call('signingKey'))).toEqual(held)
    for (const path of [pub, rsa, join(tmp.dir, 'missing.pem'), '/dev/zero', tmp.dir]) {
      nextKeyPath = path
      const r = await call('pickSigningKey')
      expect(r.ok).toBe(false)
      if (!r.ok) {
        expect(r.error.code).toBe('bad_request')
        expect(r.error.error).not.toContain('\n')
      }
    }
    expect(value(await call('signingKey'))).toEqual(held)
    expect(value(await call('setSigningKey', { path: null }))).toBeNull()
    expect(value<AuditReport>(await call('buildReport', {})).signature).toBeUndefined()
  })

  it('a prior chosen for one open chain is not applied to another, nor to a later open of it; a report file is a prior and is checked again', async () => {
    const reportFile = join(tmp.dir, 'report.html')
    const prior = value<{ kind: string; last_seq: number }>(await call('setPrior', { path: reportFile }))
    expect(prior).toMatchObject({ kind: 'report', last_seq: 240 })
    expect((await verifyJob()).prior_check).toMatchObject({ found: true, rows_unchanged: true })

    // Keys belong to a chain too (issue 35): each open is given its key again.
    const rekey = (): void => {
      session.keys = parseSecrets(secretInputs(['primary']))
    }
    await session.open(dbPath('provider-shift'))
    expect(session.keys).toEqual([])
    rekey()
    expect((await verifyJob()).prior_check).toBeUndefined()
    // Another open of the same file is another chain (a new workspace in the app): no prior.
    await session.open(dbPath('clean'))
    rekey()
    expect((await verifyJob()).prior_check).toBeUndefined()
    expect(value(await call('setPrior', { path: reportFile }))).toMatchObject({ kind: 'report' })
    expect((await verifyJob()).prior_check).toMatchObject({ found: true })
    expect(value(await call('setPrior', { clear: true }))).toBeNull()
    expect((await verifyJob()).prior_check).toBeUndefined()

    const pem = createPublicKey(pair.privateKey).export({ type: 'spki', format: 'pem' }).toString()
    const checked = value<{ ok: boolean; signature: { status: string } }>(
      await call('checkReport', { path: reportFile, public_key_pem: pem }),
    )
    expect(checked).toMatchObject({ ok: true, signature: { status: 'valid' } })
    const other = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }).toString()
    const swapped = value<{ ok: boolean; signature: { status: string } }>(
      await call('checkReport', { path: reportFile, public_key_pem: other }),
    )
    expect(swapped.ok).toBe(false)
    expect(swapped.signature.status).not.toBe('valid')
    expect((await call('checkReport', { path: reportFile, text: '{}' })).ok).toBe(false)
  })
})
