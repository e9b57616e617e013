import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { READERS, openSource } from '../testing/sources'
import {
  dbPath,
  expected,
  FIXTURES,
  fingerprintFolder,
  fixtureNames,
  secretInputs,
  SECRETS,
} from '../testing/fixtures'
import { sha256Hex } from '../../../src/main/chain/seal'
import { parseSecrets } from '../../../src/main/chain/keys'
import { ChainWriter } from '../../../src/main/writer/chain-writer'
import { spanToCanonicalDict } from '../../../src/main/writer/canonical'
import {
  checkReplay,
  checkReplayInput,
  decodeReplayBytes,
  firstInvalidUtf8,
  hashPrompt,
  MAX_REPLAY_FILE_BYTES,
  readReplayFile,
  recordReplayContext,
  REASON_NO_METADATA,
  REASON_NOT_DETERMINISTIC,
  reasonDeterministic,
  textInput,
  verifyReplay,
} from '../testing/replay'

let tmp: string
let before: Map<string, string>
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'bijotel-replay-test-'))
  before = fingerprintFolder()
})
afterAll(() => {
  rmSync(tmp, { recursive: true, force: true })
  expect(fingerprintFolder()).toEqual(before)
})

const HELLO = 'b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9'
const HELLO_NL = 'a948904f2f0f479b8f8197694b30184b0d2ed1c1cd2a1ec0fb85d299a192a447'

describe('recordReplayContext (§6.1, tests/test_replay.py 1–7)', () => {
  it('seed 42, temperature 0 → deterministic, seed attr, temperature 0', () => {
    const a = recordReplayContext({ prompt: 'p', output: 'o', model: 'm', seed: 42, temperature: 0 })
    expect(a['bijotel.replay.deterministic']).toBe(true)
    expect(a['bijotel.replay.seed']).toBe(42)
    expect(a['bijotel.replay.temperature']).toBe(0)
    expect(a['bijotel.replay.top_p']).toBe(1)
  })
  it('no seed → not deterministic and no seed key; defaults 1.0', () => {
    const a = recordReplayContext({ prompt: 'p', output: 'o', model: 'm' })
    expect(a['bijotel.replay.deterministic']).toBe(false)
    expect('bijotel.replay.seed' in a).toBe(false)
    expect(a['bijotel.replay.temperature']).toBe(1)
    expect(Object.keys(a)).toEqual([
      'bijotel.replay.prompt_hash',
      'bijotel.replay.output_hash',
      'bijotel.replay.temperature',
      'bijotel.replay.top_p',
      'bijotel.replay.model_version',
      'bijotel.replay.deterministic',
    ])
  })
  it('model_version falls back to model (also for an empty one), explicit one is used', () => {
    expect(
      recordReplayContext({ prompt: 'p', output: 'o', model: 'm' })['bijotel.replay.model_version'],
    ).toBe('m')
    expect(
      recordReplayContext({ prompt: 'p', output: 'o', model: 'm', modelVersion: '' })[
        'bijotel.replay.model_version'
      ],
    ).toBe('m')
    expect(
      recordReplayContext({ prompt: 'p', output: 'o', model: 'm', modelVersion: 'm-2025' })[
        'bijotel.replay.model_version'
      ],
    ).toBe('m-2025')
  })
  it('prompt hashes: string, and message lists independent of key order (§12.4 vector)', () => {
    expect(hashPrompt('hello world')).toBe(HELLO)
    expect(hashPrompt([{ role: 'user', content: 'hi' }])).toBe(
      '4e79873118cd9be7a1f0308b9cd772950c5410c74ca3fe1ba2626cba009a9237',
    )
    expect(hashPrompt([{ content: 'hi', role: 'user' }])).toBe(
      '4e79873118cd9be7a1f0308b9cd772950c5410c74ca3fe1ba2626cba009a9237',
    )
  })
  it('output hashes (§12.4)', () => {
    const h = (o: string) =>
      recordReplayContext({ prompt: 'p', output: o, model: 'm' })['bijotel.replay.output_hash']
    expect(h('hello world')).toBe(HELLO)
    expect(h('hello world\n')).toBe(HELLO_NL)
    expect(h('Hello world')).toBe('64ec88ca00b268e5ba1a35678a1b5316d212f4f366b2477232534a8aeca37f3c')
    expect(h('the truth')).toBe('46ba792e111edff1809b19e39915dc8f8b6bdb4b8a92bdd31a43ca183ab8b8d1')
    expect(h('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855')
  })
  it('attributes survive the canonical body (test 13)', () => {
    const d = spanToCanonicalDict({
      name: 'test',
      kind: 'CLIENT',
      attributes: { ...recordReplayContext({ prompt: 'x', output: 'y', model: 'm', seed: 42 }) },
    })
    expect(d.attributes['bijotel.replay.output_hash']).toBe(sha256Hex('y'))
    expect(d.attributes['bijotel.replay.seed']).toBe(42)
    expect(d.attributes['bijotel.replay.deterministic']).toBe(true)
  })
})

describe('verifyReplay (§6.2, tests 8–12)', () => {
  const entry = (extra: Record<string, unknown> = {}) => ({
    attributes: { ...recordReplayContext({ prompt: 'x', output: 'answer', model: 'm', seed: 1 }), ...extra },
  })
  it('same output → match, reason null', () => {
    expect(verifyReplay(entry(), 'answer')).toEqual({
      match: true,
      original_hash: sha256Hex('answer'),
      replay_hash: sha256Hex('answer'),
      deterministic: true,
      model_version: 'm',
      reason: null,
    })
  })
  it('deterministic mismatch: the SAME model version reason with a Python repr', () => {
    const r = verifyReplay(entry(), 'DIFFERENT')
    expect(r.match).toBe(false)
    expect(r.reason).toBe(
      "output hash mismatch \u2014 re-execute against the SAME model version that produced the original ('m') and verify the prompt hash before treating this as tampering",
    )
    expect(verifyReplay(entry({ 'bijotel.replay.model_version': "it's" }), 'x').reason).toContain(`("it's")`)
    expect(verifyReplay(entry({ 'bijotel.replay.model_version': null }), 'x').reason).toContain('(None)')
    expect(reasonDeterministic(undefined)).toContain('(None)')
  })
  it('non-deterministic mismatch: drift reason', () => {
    const e = { attributes: recordReplayContext({ prompt: 'x', output: 'answer', model: 'm' }) }
    const r = verifyReplay(e, 'DIFFERENT')
    expect(r).toMatchObject({ match: false, deterministic: false, reason: REASON_NOT_DETERMINISTIC })
    expect(REASON_NOT_DETERMINISTIC).toBe(
      'output hash mismatch \u2014 original call did not record a seed (deterministic=False); replay drift is expected',
    )
  })
  it('entry without replay attributes, or not a dict, or unparsable bytes → no metadata; never throws', () => {
    for (const e of [
      { attributes: { 'gen_ai.request.model': 'claude' } },
      {},
      null,
      [],
      'not json',
      Buffer.from([0xff, 0xfe]),
      { attributes: [1] },
      { attributes: { 'bijotel.replay.output_hash': null } },
    ]) {
      const r = verifyReplay(e, 'anything')
      expect(r).toEqual({
        match: false,
        original_hash: null,
        replay_hash: sha256Hex('anything'),
        deterministic: false,
        model_version: null,
        reason: REASON_NO_METADATA,
      })
    }
  })
  it('deterministic is Python truthiness: the string "false" counts as true', () => {
    expect(
      verifyReplay(
        { attributes: { 'bijotel.replay.output_hash': 'x', 'bijotel.replay.deterministic': 'false' } },
        'y',
      ).deterministic,
    ).toBe(true)
    expect(
      verifyReplay(
        { attributes: { 'bijotel.replay.output_hash': 'x', 'bijotel.replay.deterministic': 0 } },
        'y',
      ).deterministic,
    ).toBe(false)
    expect(
      verifyReplay(
        { attributes: { 'bijotel.replay.output_hash': 'x', 'bijotel.replay.deterministic': [] } },
        'y',
      ).deterministic,
    ).toBe(false)
  })
  it('hash comparison is exact (case-sensitive) and bytes are hashed as they are', () => {
    const e = { attributes: { 'bijotel.replay.output_hash': HELLO.toUpperCase() } }
    expect(verifyReplay(e, 'hello world').match).toBe(false)
    expect(
      verifyReplay({ attributes: { 'bijotel.replay.output_hash': HELLO } }, Buffer.from('hello world')).match,
    ).toBe(true)
  })
  it('the result survives a JSON round trip', () => {
    const r = verifyReplay(entry(), 'x')
    expect(JSON.parse(JSON.stringify(r))).toEqual(r)
  })
})

describe('replay files read like Python (§6.4)', () => {
  const put = (name: string, data: string | Buffer): string => {
    const p = join(tmp, name)
    writeFileSync(p, data)
    return p
  }
  it('trailing newline kept: printf "hello world\\n" hashes hello world\\n', () => {
    const f = readReplayFile(put('nl.txt', 'hello world\n'))
    expect(sha256Hex(Buffer.from(f.value as string))).toBe(HELLO_NL)
    expect(f.bytes.length).toBe(12)
  })
  it('CRLF and lone CR become LF; raw mode keeps the bytes', () => {
    expect(readReplayFile(put('crlf.txt', 'a\r\nb\rc\n')).value).toBe('a\nb\nc\n')
    expect(readReplayFile(put('crlf2.txt', 'hello world\r\n')).value).toBe('hello world\n')
    const raw = readReplayFile(put('crlf3.txt', 'a\r\nb'), 'raw')
    expect(Buffer.isBuffer(raw.value)).toBe(true)
    expect((raw.value as Buffer).toString()).toBe('a\r\nb')
  })
  it('a UTF-8 BOM is kept as U+FEFF (and hashed)', () => {
    const v = readReplayFile(
      put('bom.txt', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('hello world')])),
    ).value as string
    expect(v.charCodeAt(0)).toBe(0xfeff)
    expect(sha256Hex(Buffer.from(v))).toBe(sha256Hex(Buffer.from('\ufeffhello world')))
    expect(sha256Hex(Buffer.from(v))).not.toBe(HELLO)
  })
  it('invalid UTF-8 is a clear error (Python: traceback), huge files are refused, NUL is text', () => {
    expect(() => readReplayFile(put('bad.txt', Buffer.from([0x61, 0xc3, 0x28])))).toThrow(
      /not valid UTF-8 \(byte 0xc3 at offset 1\)/,
    )
    expect(() => readReplayFile(put('surrogate.txt', Buffer.from([0xed, 0xa0, 0x80])))).toThrow(
      /not valid UTF-8/,
    )
    expect(readReplayFile(put('bad-raw.txt', Buffer.from([0x61, 0xc3, 0x28])), 'raw').value).toEqual(
      Buffer.from([0x61, 0xc3, 0x28]),
    )
    expect(readReplayFile(put('nul.txt', Buffer.from('a\0b'))).value).toBe('a\u0000b')
    const big = put('big.txt', '')
    truncateSync(big, MAX_REPLAY_FILE_BYTES + 1)
    expect(() => readReplayFile(big)).toThrow(/over the 67108864-byte \(64 MiB\) limit/)
    expect(() => readReplayFile(join(tmp, 'missing.txt'))).toThrow('--output-file not found: ')
    expect(() => readReplayFile(tmp)).toThrow(/is a directory/)
    expect(() => decodeReplayBytes(Buffer.from('x'), 'python', 'x')).not.toThrow()
  })
})

describe('firstInvalidUtf8 agrees with a strict decoder', () => {
  it('on 20000 random byte strings', () => {
    let s = 12345
    const rnd = () => ((s = (s * 1103515245 + 12345) >>> 0) >>> 16) & 0xff
    const dec = new TextDecoder('utf-8', { fatal: true })
    for (let n = 0; n < 20000; n++) {
      const len = rnd() % 8
      const b = new Uint8Array(len)
      for (let i = 0; i < len; i++) b[i] = rnd() < 128 ? 0x80 + (rnd() % 0x80) : rnd()
      let ok = true
      try {
        dec.decode(b)
      } catch {
        ok = false
      }
      expect(firstInvalidUtf8(b) === -1).toBe(ok)
    }
  })
})

describe.each(READERS)('every fixture replay case through the library, read by %s', (reader) => {
  for (const name of fixtureNames()) {
    const exp = expected(name)
    if (!exp.replay) continue
    it(`${name}: ${exp.replay.length} cases`, async () => {
      const chain = await openSource(dbPath(name), reader)
      try {
        for (const c of exp.replay!) {
          const input = readReplayFile(join(FIXTURES, c.file))
          const check = await checkReplayInput(chain, [], { seq: c.seq, output: input })
          expect(check.result).toEqual(c.expected)
          expect(check.row_verified).toBeNull()
          // the same through the request API (file bytes as base64, as the UI sends them)
          const viaRequest = await checkReplay(chain, [], {
            seq: c.seq,
            file_base64: readFileSync(join(FIXTURES, c.file)).toString('base64'),
            file_name: c.file,
          })
          expect(viaRequest.result).toEqual(c.expected)
          expect(viaRequest.source).toMatchObject({ kind: 'file', name: c.file, mode: 'python' })
        }
      } finally {
        chain.close()
      }
    })
  }
})

describe('row verification and the prompt check (§11.7)', () => {
  const primary = () => parseSecrets(secretInputs(['primary']))
  it('clean chain, primary key: the row verifies; the attacker key does not', async () => {
    const chain = await openSource(dbPath('clean'))
    try {
      const ok = await checkReplay(chain, primary(), { seq: 1, text: 'Answer 0: Done.' })
      expect(ok.result.match).toBe(true)
      expect(ok.row_verified).toBe(true)
      expect(ok.row_detail).toMatch(/GENESIS.*key #1/)
      const mid = await checkReplay(chain, primary(), { seq: 15, text: 'x' })
      expect(mid.row_verified).toBe(true)
      expect(mid.row_detail).toContain('links to the previous row')
      const bad = await checkReplay(chain, parseSecrets(secretInputs(['attacker'])), {
        seq: 1,
        text: 'Answer 0: Done.',
      })
      expect(bad.result.match).toBe(true)
      expect(bad.row_verified).toBe(false)
      expect(bad.row_detail).toContain('hmac_hash mismatch')
      await expect(checkReplay(chain, [], { seq: 999, text: 'x' })).rejects.toThrow(
        'seq 999 not found in chain',
      )
      await expect(checkReplay(chain, [], { seq: 1 })).rejects.toThrow(/exactly one/)
    } finally {
      chain.close()
    }
  })
  it('rotation: late rows verify under the second candidate key', async () => {
    const chain = await openSource(dbPath('rotation'))
    try {
      const r = await checkReplay(chain, parseSecrets(secretInputs(['primary', 'rotated'])), {
        seq: 169,
        text: 'x',
      })
      expect(r.row_verified).toBe(true)
      expect(r.row_detail).toContain('key #2')
      expect((await checkReplay(chain, primary(), { seq: 169, text: 'x' })).row_verified).toBe(false)
    } finally {
      chain.close()
    }
  })
  it('a tampered row: the output matches its sealed hash, but the row does not verify', async () => {
    for (const [name, words] of [
      ['hash-edit', 'hmac_hash mismatch'],
      ['body-edit', 'canonical_hash mismatch (body mutated)'],
    ] as const) {
      const chain = await openSource(dbPath(name))
      try {
        const r = await checkReplay(chain, primary(), { seq: 57, text: 'Answer 56: - a\n- b\n- c\n' })
        expect(r.result.match).toBe(true)
        expect(r.row_verified).toBe(false)
        expect(r.row_detail).toContain(words)
        const noKey = await checkReplay(chain, [], { seq: 57, text: 'x' })
        // A body edit is seen without a key (its canonical_hash); an hmac_hash edit is not.
        expect(noKey.row_verified).toBe(name === 'body-edit' ? false : null)
        if (name === 'body-edit') expect(noKey.row_detail).toContain('canonical_hash mismatch')
      } finally {
        chain.close()
      }
    }
  })
  it('prompt: text form, messages-list form, mismatch, absent prompt_hash', async () => {
    const p = join(tmp, 'prompt.db')
    const w = ChainWriter.open(p, Buffer.alloc(32, 'x'), { mode: 'create' })
    const msgs = [{ role: 'user', content: 'hi' }]
    w.appendSpan({
      name: 'a',
      attributes: {
        'gen_ai.x': 1,
        ...recordReplayContext({ prompt: 'plain prompt', output: 'o', model: 'm' }),
      },
    })
    w.appendSpan({
      name: 'b',
      attributes: { 'gen_ai.x': 1, ...recordReplayContext({ prompt: msgs, output: 'o', model: 'm' }) },
    })
    w.appendSpan({ name: 'c', attributes: { 'gen_ai.x': 1 } })
    w.close()
    const chain = await openSource(p)
    try {
      const keys = parseSecrets([{ encoding: 'hex', value: Buffer.alloc(32, 'x').toString('hex') }])
      expect(await checkReplay(chain, keys, { seq: 1, text: 'o', prompt: 'plain prompt' })).toMatchObject({
        row_verified: true,
        prompt_match: true,
      })
      const b = await checkReplay(chain, keys, {
        seq: 2,
        text: 'o',
        prompt: '[ {"content": "hi", "role": "user"} ]',
      })
      expect(b.prompt_match).toBe(true)
      expect(b.prompt_detail).toContain('messages list')
      const c = await checkReplay(chain, keys, { seq: 1, text: 'o', prompt: 'another prompt' })
      expect(c.prompt_match).toBe(false)
      expect(c.prompt_detail).toContain(sha256Hex('another prompt'))
      expect((await checkReplay(chain, keys, { seq: 3, text: 'o', prompt: 'x' })).prompt_match).toBeNull()
      expect(await checkReplay(chain, keys, { seq: 1, text: 'o' })).toMatchObject({
        prompt_match: null,
        prompt_detail: null,
      })
      expect((await checkReplayInput(chain, keys, { seq: 1, output: textInput('o') })).source).toMatchObject({
        kind: 'text',
        bytes: 1,
        sha256_of_bytes: sha256Hex('o'),
      })
    } finally {
      chain.close()
    }
  })
  it('end to end (test 14): record → seal → read → verify → match', async () => {
    const p = join(tmp, 'e2e.db')
    const primaryKey = Buffer.from(SECRETS['primary']!, 'hex')
    const w = ChainWriter.open(p, primaryKey, { mode: 'create' })
    const out = 'the truth'
    w.appendSpan({
      name: 'chat',
      kind: 'CLIENT',
      attributes: {
        'gen_ai.request.model': 'm',
        ...recordReplayContext({ prompt: 'q', output: out, model: 'm', seed: 3 }),
      },
      startTimeNs: 1n,
      endTimeNs: 2n,
    })
    w.close()
    const chain = await openSource(p)
    try {
      const r = await checkReplay(chain, primary(), { seq: 1, text: out })
      expect(r.result).toMatchObject({
        match: true,
        original_hash: '46ba792e111edff1809b19e39915dc8f8b6bdb4b8a92bdd31a43ca183ab8b8d1',
        deterministic: true,
        model_version: 'm',
      })
      expect(r.row_verified).toBe(true)
    } finally {
      chain.close()
    }
  })
})
