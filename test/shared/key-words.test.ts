// The `Keys:` words (issue 39) on generated rotations: a chain sealed by 1–4 keys in turn, verified
// with one of them left out. Whichever is left out — the first (rows before the rotation), one in the
// middle, or the last — the sentence names exactly the seqs no key verifies and says a key may be
// missing; the same runs inside one key's run (an edit), or broken by a link or body finding, are
// never explained away as a missing key. End to end: the CLI's text and the HTML report say it.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { keyGaps, keyMissingFrom, keysSentence } from '../../src/shared/key-words'
import type { Finding, KeySegment, VerifyVerdict } from '../../src/shared/verify-types'
import { Rng, scratchDir } from '../main/reliability/chainkit'
import { bijotel, ensureBuilt } from '../main/testing/cli'
import { dbPath, SECRETS } from '../main/testing/fixtures'

function verdict(n: number, segments: KeySegment[], findings: Finding[]): VerifyVerdict {
  return {
    valid: findings.length === 0,
    entries: n,
    first_seq: 1,
    last_seq: n,
    head_hmac: '',
    first_bad_seq: findings[0]?.from_seq ?? null,
    findings,
    key_segments: segments,
  } as unknown as VerifyVerdict
}
const run = (kind: Finding['kind'], from_seq: number, to_seq: number): Finding =>
  ({ kind, from_seq, to_seq, count: to_seq - from_seq + 1 }) as Finding

/** `k` keys in turn over n rows; key `missing` not given: its run is an hmac_mismatch. */
function rotation(rng: Rng): { v: VerifyVerdict; gap: [number, number]; at: 'head' | 'between' | 'tail' } {
  const k = 2 + Math.floor(rng.next() * 3)
  const n = k * 20 + Math.floor(rng.next() * 200)
  const cuts = [1]
  for (let i = 1; i < k; i++)
    cuts.push(cuts[i - 1]! + 10 + Math.floor(rng.next() * ((n - cuts[i - 1]!) / (k - i + 1) - 10)))
  cuts.push(n + 1)
  const missing = Math.floor(rng.next() * k)
  const segments: KeySegment[] = []
  let gap: [number, number] = [0, 0]
  for (let i = 0; i < k; i++) {
    const [a, b] = [cuts[i]!, cuts[i + 1]! - 1]
    if (i === missing) gap = [a, b]
    else segments.push({ key_index: i, from_seq: a, to_seq: b, count: b - a + 1 })
  }
  const at = missing === 0 ? 'head' : missing === k - 1 ? 'tail' : 'between'
  return { v: verdict(n, segments, [run('hmac_mismatch', gap[0], gap[1])]), gap, at }
}

describe('Keys: a rotated key left out is named wherever it was used', () => {
  it('names exactly the run no key verifies, for 300 generated rotations', () => {
    const rng = new Rng(0x4b5)
    for (let i = 0; i < 300; i++) {
      const { v, gap, at } = rotation(rng)
      const s = keysSentence(v, ['abcd1234'])
      expect(s, JSON.stringify(v)).not.toBeNull()
      expect(s).toContain('may be missing')
      if (at === 'tail') expect(keyMissingFrom(v)).toBe(gap[0])
      else expect(keyGaps(v)).toEqual([{ from: gap[0], to: gap[1], at }])
      expect(s).toContain(at === 'tail' ? `from seq ${gap[0]}` : `seq ${gap[0]}–${gap[1]}`)
    }
  })

  it('never explains an edit inside one key’s run, or a run with a broken link or body, as a missing key', () => {
    const rng = new Rng(0x4b6)
    for (let i = 0; i < 200; i++) {
      const n = 50 + Math.floor(rng.next() * 200)
      const a = 2 + Math.floor(rng.next() * (n - 10))
      const b = a + Math.floor(rng.next() * 5)
      // One key on both sides: rows whose hmac_hash no longer matches (an edit without the key).
      const same = verdict(
        n,
        [
          { key_index: 0, from_seq: 1, to_seq: a - 1, count: a - 1 },
          { key_index: 0, from_seq: b + 1, to_seq: n, count: n - b },
        ],
        [run('hmac_mismatch', a, b)],
      )
      expect(keysSentence(same, ['x'])).toBeNull()
      // Two keys, but the run breaks a link or a body: tampering, said by the findings alone.
      const broken = verdict(
        n,
        [
          { key_index: 0, from_seq: 1, to_seq: a - 1, count: a - 1 },
          { key_index: 1, from_seq: b + 1, to_seq: n, count: n - b },
        ],
        [run('hmac_mismatch', a, b), run(rng.next() < 0.5 ? 'link_mismatch' : 'body_hash_mismatch', b, b)],
      )
      expect(keysSentence(broken, ['x'])).toBeNull()
      // Rows a–b rewritten without a key before a key's run: the row after them, sealed by that key,
      // no longer links to them — an edit, at the head as between two keys.
      for (const first of [1, a]) {
        const before = first === 1 ? [] : [{ key_index: 0, from_seq: 1, to_seq: first - 1, count: first - 1 }]
        const rewritten = verdict(
          n,
          [...before, { key_index: 1, from_seq: b + 1, to_seq: n, count: n - b }],
          [run('hmac_mismatch', first, b), run('link_mismatch', b + 1, b + 1)],
        )
        expect(keysSentence(rewritten, ['x'])).toBeNull()
      }
    }
  })

  it('the CLI and the HTML report name a key missing before the rotation', () => {
    ensureBuilt()
    const dir = scratchDir('key-words')
    try {
      const key = ['--secret-hex', SECRETS['rotated']!]
      const text = bijotel(['verify', '--db', dbPath('rotation'), ...key])
      expect(text.stdout).toContain(
        'Keys: rows seq 1–160 verify under none of the given keys while later rows do: the key used before the rotation at seq 161 may be missing',
      )
      const out = join(dir.dir, 'r.html')
      expect(
        bijotel(['report', '--db', dbPath('rotation'), ...key, '--format', 'html', '-o', out]).code,
      ).toBe(0)
      expect(readFileSync(out, 'utf8')).toContain('Keys: rows seq 1–160 verify under none of the given keys')
      const wrong = join(dir.dir, 'w.html')
      const attacker = ['--secret-hex', SECRETS['attacker']!]
      expect(
        bijotel(['report', '--db', dbPath('clean'), ...attacker, '--format', 'html', '-o', wrong]).code,
      ).toBe(0)
      expect(readFileSync(wrong, 'utf8')).toMatch(
        /Keys: no row of this chain verifies under the given key\(s\)/,
      )
    } finally {
      dir.cleanup()
    }
  }, 60_000)
})
