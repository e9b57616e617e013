// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { VerifyVerdict } from '../../../../src/shared/verify-types'
import { VerdictView } from '../../../../src/renderer/src/components/VerdictView'

afterEach(cleanup)

const base: VerifyVerdict = {
  valid: true,
  entries: 240,
  first_seq: 1,
  last_seq: 240,
  head_hmac: '39dd10fe388ad06c174a56cfdae6f66f73f75acd3128967f6f1ac5eb20a75a8d',
  first_bad_seq: null,
  findings: [],
  key_segments: [{ key_index: 0, from_seq: 1, to_seq: 240, count: 240 }],
}

describe('VerdictView', () => {
  it('renders a valid verdict', () => {
    render(
      <VerdictView
        verdict={base}
        keys={[{ index: 0, encoding: 'hex', bytes: 28, fingerprint: '84e9ca07' }]}
      />,
    )
    expect(screen.getByTestId('verdict-word').textContent).toBe('VALID')
    expect(screen.queryByTestId('first-bad-seq')).toBeNull()
    expect(screen.queryByTestId('findings')).toBeNull()
    expect(screen.getByTestId('key-segments').textContent).toContain('84e9ca07')
    expect(screen.getByTestId('verdict').textContent).toContain(base.head_hmac!)
  })

  it('renders a broken verdict with its findings, and the first bad seq selects it', () => {
    const onSelect = vi.fn()
    const v: VerifyVerdict = {
      ...base,
      valid: false,
      first_bad_seq: 57,
      findings: [
        { kind: 'body_hash_mismatch', from_seq: 57, to_seq: 57, count: 1 },
        { kind: 'seq_gap', from_seq: 100, to_seq: 100, count: 1, missing: 3 },
        { kind: 'hmac_mismatch', from_seq: 200, to_seq: 240, count: 41 },
      ],
    }
    render(<VerdictView verdict={v} onSelectSeq={onSelect} />)
    expect(screen.getByTestId('verdict-word').textContent).toBe('BROKEN')
    expect(screen.getByTestId('first-bad-seq').textContent).toContain('57')
    const rows = screen.getAllByTestId('finding-row')
    expect(rows.map((r) => r.getAttribute('data-kind'))).toEqual([
      'body_hash_mismatch',
      'seq_gap',
      'hmac_mismatch',
    ])
    expect(rows[0]!.textContent).toContain('body hash mismatch')
    expect(rows[1]!.textContent).toContain('3')
    expect(rows[2]!.textContent).toContain('200–240')
    expect(rows[2]!.textContent).toContain('41')
    fireEvent.click(screen.getByTestId('first-bad-seq').querySelector('button')!)
    expect(onSelect).toHaveBeenCalledWith(57)
  })

  it('shows rotation boundaries between key segments', () => {
    const v: VerifyVerdict = {
      ...base,
      key_segments: [
        { key_index: 0, from_seq: 1, to_seq: 120, count: 120 },
        { key_index: 1, from_seq: 121, to_seq: 240, count: 120 },
      ],
    }
    render(<VerdictView verdict={v} />)
    expect(screen.getByTestId('rotation-points').textContent).toBe('key rotation at seq 121: key #1 → key #2')
  })

  it('marks a cancelled run as such', () => {
    render(<VerdictView verdict={{ ...base, cancelled: true }} />)
    expect(screen.getByTestId('verdict-word').textContent).toBe('CANCELLED')
  })
})
