// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { ErrorBoundary } from '../../../../src/renderer/src/components/ErrorBoundary'

afterEach(cleanup)

function Boom({ when }: { when: boolean }) {
  if (when) throw new Error('kaboom\n  at somewhere.js:1:1')
  return <p>fine</p>
}

describe('ErrorBoundary', () => {
  it('shows one line instead of the crashed panel, and recovers', () => {
    const spy = vi.spyOn(console, 'error').mockImplementation(() => undefined)
    const { rerender } = render(
      <ErrorBoundary where="timeline">
        <Boom when={true} />
      </ErrorBoundary>,
    )
    expect(screen.getByTestId('boundary-error').textContent).toContain(
      'The timeline failed to render: kaboom at somewhere.js:1:1',
    )
    rerender(
      <ErrorBoundary where="timeline">
        <Boom when={false} />
      </ErrorBoundary>,
    )
    fireEvent.click(screen.getByText('Retry'))
    expect(screen.getByText('fine')).toBeTruthy()
    spy.mockRestore()
  })

  it('clears when its reset key changes', () => {
    const spy = vi.spyOn(console, 'error').mockImplementation(() => undefined)
    const { rerender } = render(
      <ErrorBoundary where="x" resetKey={1}>
        <Boom when={true} />
      </ErrorBoundary>,
    )
    expect(screen.getByTestId('boundary-error')).toBeTruthy()
    rerender(
      <ErrorBoundary where="x" resetKey={2}>
        <Boom when={false} />
      </ErrorBoundary>,
    )
    expect(screen.getByText('fine')).toBeTruthy()
    spy.mockRestore()
  })
})
