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
    expect(onSubmit).toHaveBeenCalledWith([
      { encoding: 'hex', value: 'a5a5' },
      { encoding: 'text', value: 'not hex' },
    ])
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
})
