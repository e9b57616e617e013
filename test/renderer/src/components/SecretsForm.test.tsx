// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { SecretsForm } from '../../../../src/renderer/src/components/SecretsForm'

afterEach(cleanup)

describe('SecretsForm', () => {
  it('sends several secrets with their encodings and clears the fields', async () => {
    const onSubmit = vi.fn(async () => undefined)
    render(<SecretsForm keys={[]} onSubmit={onSubmit} />)
    expect((screen.getByTestId('secret-input-0') as HTMLInputElement).type).toBe('password')
    fireEvent.change(screen.getByTestId('secret-input-0'), { target: { value: 'a5a5' } })
    fireEvent.click(screen.getByTestId('secret-add'))
    fireEvent.change(screen.getByTestId('secret-input-1'), { target: { value: 'not hex' } })
    fireEvent.click(screen.getByTestId('secret-encoding-1-text'))
    fireEvent.click(screen.getByTestId('secrets-submit'))
    await waitFor(() => expect(onSubmit).toHaveBeenCalledTimes(1))
    expect(onSubmit).toHaveBeenCalledWith(
      [
        { encoding: 'hex', value: 'a5a5' },
        { encoding: 'text', value: 'not hex' },
      ],
      [],
    )
    // Back to one empty field: the renderer holds no secret any more.
    expect(screen.queryByTestId('secret-input-1')).toBeNull()
    expect((screen.getByTestId('secret-input-0') as HTMLInputElement).value).toBe('')
    expect(document.body.innerHTML).not.toContain('a5a5')
  })

  it('does not submit empty fields and shows the key info it gets back', () => {
    const onSubmit = vi.fn(async () => undefined)
    const { rerender } = render(<SecretsForm keys={[]} onSubmit={onSubmit} />)
    expect((screen.getByTestId('secrets-submit') as HTMLButtonElement).disabled).toBe(true)
    expect(screen.getByTestId('no-keys')).toBeTruthy()
    rerender(
      <SecretsForm
        keys={[
          { index: 0, encoding: 'hex', bytes: 28, fingerprint: '84e9ca07' },
          { index: 1, encoding: 'hex', bytes: 32, fingerprint: '1f2e3d4c' },
        ]}
        onSubmit={onSubmit}
      />,
    )
    const table = screen.getByTestId('key-info')
    expect(table.querySelectorAll('tbody tr')).toHaveLength(2)
    expect(table.textContent).toContain('84e9ca07')
    expect(table.textContent).toContain('#1')
  })

  // Issue 35: entered keys are shown back (number, fingerprint), and a rotated key added with the
  // first field left empty never drops the key held — for every number of held keys.
  it('adding a rotated key keeps every key held, whatever the fields left empty', async () => {
    for (let held = 1; held <= 4; held++) {
      const keys = Array.from({ length: held }, (_, i) => ({
        index: i,
        encoding: 'hex' as const,
        bytes: 32,
        fingerprint: `fp${i}`.padEnd(8, '0'),
      }))
      const onSubmit = vi.fn(async () => undefined)
      const { unmount } = render(<SecretsForm keys={keys} onSubmit={onSubmit} />)
      expect(screen.getAllByTestId('key-number').map((e) => e.textContent)).toEqual(
        keys.map((k) => `key #${k.index + 1}`),
      )
      expect(screen.getAllByTestId('key-fingerprint').map((e) => e.textContent)).toEqual(
        keys.map((k) => k.fingerprint),
      )
      fireEvent.click(screen.getByTestId('secret-add'))
      fireEvent.change(screen.getByTestId('secret-input-1'), { target: { value: 'd1ce' } })
      fireEvent.click(screen.getByTestId('secrets-submit'))
      await waitFor(() => expect(onSubmit).toHaveBeenCalledTimes(1))
      expect(onSubmit).toHaveBeenCalledWith(
        [{ encoding: 'hex', value: 'd1ce' }],
        keys.map((k) => k.index),
      )
      unmount()
    }
  })

  it('removing one key keeps the others, in their order', async () => {
    const keys = [0, 1, 2].map((i) => ({
      index: i,
      encoding: 'hex' as const,
      bytes: 32,
      fingerprint: `f${i}`,
    }))
    for (const gone of [0, 1, 2]) {
      const onSubmit = vi.fn(async () => undefined)
      const { unmount } = render(<SecretsForm keys={keys} onSubmit={onSubmit} />)
      fireEvent.click(screen.getAllByTestId('key-remove')[gone]!)
      await waitFor(() => expect(onSubmit).toHaveBeenCalledTimes(1))
      expect(onSubmit).toHaveBeenCalledWith(
        [],
        [0, 1, 2].filter((i) => i !== gone),
      )
      unmount()
    }
  })
})
