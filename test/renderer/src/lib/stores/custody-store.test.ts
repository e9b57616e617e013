// The custody store: files are read in the page and sent as text, a prior is followed by a verify,
// errors are one line and leave what was held, and only a key's public half is ever kept.
import { describe, expect, it } from 'vitest'
import type { PriorInfo, ReportCheckResult, SigningKeyInfo } from '../../../../../src/shared/custody-types'
import { CustodyStore, MAX_KEY_TEXT } from '../../../../../src/renderer/src/lib/stores/custody-store'
import { fakeApi } from '../../test/fake-api'

const KEY: SigningKeyInfo = { fingerprint: '0123456789abcdef', public_key: 'A'.repeat(44), path: 'k.pem' }
const PRIOR: PriorInfo = {
  kind: 'report',
  last_seq: 240,
  head_hmac: 'f'.repeat(64),
  rows: 240,
  generated_at: '2026-12-05T00:00:00.000Z',
  signed_by: null,
}

describe('CustodyStore', () => {
  it('a prior file is sent as text, then the chain is verified against it; a refused one is one line', async () => {
    let verifies = 0
    const { api, calls } = fakeApi({
      overrides: {
        setPrior: async (req) => {
          if ((req as { text?: string }).text === 'junk') throw new Error('prior: not JSON\n(at 1)')
          return (req as { clear?: boolean }).clear ? null : PRIOR
        },
      },
    })
    const store = new CustodyStore(api, { hasDialogs: false, verify: async () => void verifies++ })
    await store.comparePrior(new File(['{"report": true}'], 'before.json'))
    expect(calls.find((c) => c.name === 'setPrior')?.req).toEqual({ text: '{"report": true}' })
    expect(store.getState()).toMatchObject({ prior: PRIOR, priorFile: 'before.json', priorError: null })
    expect(verifies).toBe(1)

    await store.comparePrior(new File(['junk'], 'junk.json'))
    expect(store.getState().priorError).toBe('prior: not JSON (at 1)')
    expect(store.getState().prior).toEqual(PRIOR)
    expect(verifies).toBe(1)

    await store.clearPrior()
    expect(calls.at(-1)).toEqual({ name: 'setPrior', req: { clear: true } })
    expect(store.getState()).toMatchObject({ prior: null, priorFile: null })
  })

  it('the signing key: the dialog on the desktop (no path from the page); a refusal keeps the key held', async () => {
    let picks = 0
    const { api, calls } = fakeApi({
      info: { has_dialogs: true },
      overrides: {
        signingKey: async () => null,
        pickSigningKey: async () => {
          picks++
          if (picks === 2) throw new Error('private key is not Ed25519 (got rsa): bad.pem')
          return KEY
        },
        setSigningKey: async (req) => {
          const path = (req as { path: string | null }).path
          if (path === 'bad.pem') throw new Error('private key is not Ed25519 (got rsa): bad.pem')
          return path === null ? null : { ...KEY, path }
        },
      },
    })
    const store = new CustodyStore(api, { hasDialogs: true, verify: async () => undefined })
    store.load()
    await store.pickKey()
    expect(store.getState().signingKey).toEqual(KEY)
    await store.pickKey()
    expect(store.getState()).toMatchObject({ signingKey: KEY, keyError: expect.stringContaining('Ed25519') })
    await store.forgetKey()
    expect(store.getState()).toMatchObject({ signingKey: null, keyError: null })
    expect(calls.map((c) => c.name)).toEqual([
      'signingKey',
      'pickSigningKey',
      'pickSigningKey',
      'setSigningKey',
    ])
  })

  it('Check a report sends the report and the public key as text; an oversized key file is not read', async () => {
    const result: ReportCheckResult = {
      ok: true,
      report_path: 'report',
      format: 'json',
      signature: { status: 'valid', key: 'provided', fingerprint: KEY.fingerprint, detail: 'holds' },
      fields: [],
      summary: 'every field reproduces',
    }
    const { api, calls } = fakeApi({ overrides: { checkReport: async () => result } })
    const store = new CustodyStore(api, { hasDialogs: false, verify: async () => undefined })
    await store.checkReport(
      new File(['{"r":1}'], 'r.json'),
      new File(['-----BEGIN PUBLIC KEY-----'], 'k.pem'),
    )
    expect(calls.at(-1)?.req).toEqual({ text: '{"r":1}', public_key_pem: '-----BEGIN PUBLIC KEY-----' })
    expect(store.getState()).toMatchObject({ check: result, checkFile: 'r.json', checkBusy: false })

    const n = calls.length
    await store.checkReport(new File(['{}'], 'r.json'), new File(['x'.repeat(MAX_KEY_TEXT + 1)], 'huge.pem'))
    expect(calls.length).toBe(n)
    expect(store.getState().checkError).toMatch(/^huge\.pem is \d+ bytes/)
    store.dismissCheck()
    expect(store.getState()).toMatchObject({ check: null, checkError: null, checkFile: null })
  })
})

describe('CustodyStore: the prior another tab or window set or cleared', () => {
  it('is shown as the engine holds it (never "none" while one is held); its own stays named', async () => {
    const { api } = fakeApi({
      overrides: { setPrior: async (req) => ((req as { clear?: boolean }).clear ? null : PRIOR) },
    })
    const store = new CustodyStore(api, { hasDialogs: false, verify: async () => undefined })
    store.priorHeld(PRIOR)
    expect(store.getState()).toMatchObject({ prior: PRIOR, priorFile: null })
    store.priorHeld(null)
    expect(store.getState()).toMatchObject({ prior: null, priorFile: null })
    await store.comparePrior(new File(['{"report": true}'], 'before.json'))
    // Its own change heard back: the name it chose stays.
    store.priorHeld({ ...PRIOR })
    expect(store.getState()).toMatchObject({ prior: PRIOR, priorFile: 'before.json' })
    const other = { ...PRIOR, last_seq: 100, rows: 100 }
    store.priorHeld(other)
    expect(store.getState()).toMatchObject({ prior: other, priorFile: null })
  })
})
