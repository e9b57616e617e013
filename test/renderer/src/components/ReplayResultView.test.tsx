// @vitest-environment jsdom
import { cleanup, render, screen } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import type { ReplayCheck } from '../../../../src/shared/replay-types'
import { ReplayResultView } from '../../../../src/renderer/src/components/ReplayResultView'

afterEach(cleanup)

const reason8 =
  "output hash mismatch — re-execute against the SAME model version that produced the original ('gpt-4o-mini-2024-07-18') and verify the prompt hash before treating this as tampering"

const check = (over: Partial<ReplayCheck> = {}): ReplayCheck => ({
  seq: 8,
  result: {
    match: false,
    original_hash: 'bf704371a9b759f03e8ad46cf56c3bada5b8e8aa72b95bf1d8cd86f9954f738d',
    replay_hash: 'cbb1415f2870786416869b500c91fc28203dc89a32746a3272b7882d73ba6110',
    deterministic: true,
    model_version: 'gpt-4o-mini-2024-07-18',
    reason: reason8,
  },
  row_verified: true,
  row_detail: 'body hash, link and HMAC verify (key #0)',
  prompt_match: null,
  prompt_detail: null,
  source: {
    kind: 'file',
    name: 'clean.replay-8.txt',
    bytes: 39,
    sha256_of_bytes: 'cbb1415f',
    mode: 'python',
  },
  checked_at: '2025-11-24T16:03:04.869Z',
  ...over,
})

describe('ReplayResultView', () => {
  it('shows a mismatch with the CLI fields and the reason verbatim', () => {
    render(<ReplayResultView check={check()} />)
    expect(screen.getByTestId('replay-verdict').textContent).toBe('MISMATCH')
    expect(screen.getByTestId('replay-result').getAttribute('data-match')).toBe('false')
    expect(screen.getByTestId('replay-original').textContent).toBe(check().result.original_hash)
    expect(screen.getByTestId('replay-hash').textContent).toBe(check().result.replay_hash)
    expect(screen.getByTestId('replay-reason').textContent).toBe(reason8)
    expect(screen.getByTestId('replay-result').textContent).toContain('True')
    expect(screen.getByTestId('replay-row-verified').textContent).toContain('row verifies')
    expect(screen.getByTestId('replay-prompt').textContent).toBe('no prompt given')
    expect(screen.getByTestId('replay-cli').textContent).toBe(
      [
        '=== Replay MISMATCH (seq=8) ===',
        `  original_hash:  ${check().result.original_hash}`,
        `  replay_hash:    ${check().result.replay_hash}`,
        '  deterministic:  True',
        '  model_version:  gpt-4o-mini-2024-07-18',
        `  reason:         ${reason8}`,
      ].join('\n'),
    )
  })

  it("numbers a line break in the chain's model_version or reason: each CLI line stays one line", () => {
    // The chain's writer chooses model_version; the <pre> keeps its own line breaks only.
    for (const brk of ['\n', '\r', '\r\n', '\u2028', '\u0085', '\u001b[1A']) {
      const forged = `gpt-4o${brk}=== Replay MATCH (seq=8) ===`
      render(
        <ReplayResultView
          check={check({
            result: { ...check().result, model_version: forged, reason: `r${brk}  reason: none` },
          })}
        />,
      )
      const lines = screen.getByTestId('replay-cli').textContent!.split('\n')
      expect(lines).toHaveLength(6)
      expect(lines[4]).toMatch(/^ {2}model_version: {2}gpt-4o<U\+[0-9A-F]{4}>/)
      expect(lines.filter((l) => l.startsWith('=== Replay MATCH'))).toEqual([])
      cleanup()
    }
  })

  it('shows a match without a reason, and an entry without replay metadata', () => {
    const { unmount } = render(
      <ReplayResultView
        check={check({
          result: {
            ...check().result,
            match: true,
            reason: null,
            replay_hash: check().result.original_hash!,
          },
        })}
      />,
    )
    expect(screen.getByTestId('replay-verdict').textContent).toBe('MATCH')
    expect(screen.queryByTestId('replay-reason')).toBeNull()
    unmount()
    render(
      <ReplayResultView
        check={check({
          result: {
            match: false,
            original_hash: null,
            replay_hash: 'ab',
            deterministic: false,
            model_version: null,
            reason: 'chain entry has no bijotel.replay.output_hash',
          },
          row_verified: null,
          prompt_match: false,
          prompt_detail: 'x',
        })}
      />,
    )
    expect(screen.getByTestId('replay-original').textContent).toBe('(none — entry has no replay metadata)')
    expect(screen.getByTestId('replay-result').textContent).toContain('(unknown)')
    expect(screen.getByTestId('replay-row-verified').textContent).toContain('not checked (no key)')
    expect(screen.getByTestId('replay-prompt').textContent).toContain('PROMPT DOES NOT MATCH')
  })

  it('renders HTML-looking names as text', () => {
    render(
      <ReplayResultView
        check={check({ source: { ...check().source, name: '<img src=x onerror=alert(1)>' } })}
      />,
    )
    expect(document.querySelector('img')).toBeNull()
    expect(screen.getByTestId('replay-result').textContent).toContain('<img src=x onerror=alert(1)>')
  })
})
