// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { AppEvent } from '../../../../src/shared/app-events'
import type { ChainOverview } from '../../../../src/shared/chain-types'
import { fakeApi, overviewOf } from '../test/fake-api'
import { ApiProvider } from '../../../../src/renderer/src/app/api-context'
import { App } from '../../../../src/renderer/src/app/App'

// recharts' ResponsiveContainer needs ResizeObserver; jsdom has none.
class RO {
  observe(): void {}
  unobserve(): void {}
  disconnect(): void {}
}

beforeEach(() => {
  localStorage.clear()
  vi.stubGlobal('ResizeObserver', RO)
})
afterEach(() => {
  cleanup()
  vi.unstubAllGlobals()
})

const notAChain = () =>
  Promise.reject(Object.assign(new Error('not a SQLite database: /evidence/x.db'), { code: 'not_a_chain' }))

describe('App', () => {
  it('opens the initial path given on the command line', async () => {
    const { api, calls } = fakeApi({ info: { initial_path: '/evidence/chain.db' } })
    render(
      <ApiProvider api={api}>
        <App />
      </ApiProvider>,
    )
    await waitFor(() => expect(screen.getByTestId('workspace')).toBeTruthy())
    expect(calls.find((c) => c.name === 'openChain')?.req).toEqual({ path: '/evidence/chain.db' })
    expect(screen.getByTestId('overview-entries').textContent).toBe('240')
    expect(screen.getByTestId('current-file').textContent).toBe('chain.db')
  })

  it('a staged open shows the first overview, then the final one once the engine has it', async () => {
    let polls = 0
    // The first stage has no hashes yet (the engine's sha256 is '' until the copy is hashed).
    const pending = {
      ...overviewOf(240),
      pending: true,
      evidence: { ...overviewOf(240).evidence, db: { ...overviewOf(240).evidence.db, sha256: '' } },
    }
    const { api } = fakeApi({
      info: { initial_path: '/evidence/chain.db' },
      overrides: {
        openChain: async () => pending,
        // 1st call: startup (nothing open yet); then pending once; then the final overview.
        overview: async () => (++polls === 1 ? null : polls === 2 ? pending : overviewOf(241)),
      },
    })
    render(
      <ApiProvider api={api}>
        <App />
      </ApiProvider>,
    )
    await waitFor(() => expect(screen.getByTestId('evidence-db-sha256-pending')).toBeTruthy())
    expect(screen.getByTestId('overview-entries').textContent).toBe('240')
    await waitFor(() => expect(screen.getByTestId('overview-entries').textContent).toBe('241'), {
      timeout: 3000,
    })
    expect(screen.queryByTestId('evidence-db-sha256-pending')).toBeNull()
    expect(polls).toBeGreaterThanOrEqual(3)
  })

  it('keeps what the auditor typed while a staged open finishes, and asks for the timeline again', async () => {
    let polls = 0
    let ready = false
    const { api, calls } = fakeApi({
      info: { initial_path: '/evidence/chain.db' },
      overrides: {
        openChain: async () => ({ ...overviewOf(240), pending: true }),
        overview: async () =>
          ++polls === 1 ? null : ready ? overviewOf(240) : { ...overviewOf(240), pending: true },
      },
    })
    render(
      <ApiProvider api={api}>
        <App />
      </ApiProvider>,
    )
    await waitFor(() => expect(screen.getByTestId('secret-add')).toBeTruthy())
    fireEvent.click(screen.getByTestId('secret-add'))
    fireEvent.change(screen.getByTestId('secret-input-1'), { target: { value: 'ab'.repeat(32) } })
    const timelinesBefore = calls.filter((c) => c.name === 'timeline').length
    ready = true
    await waitFor(
      () => expect(calls.filter((c) => c.name === 'timeline').length).toBeGreaterThan(timelinesBefore),
      {
        timeout: 3000,
      },
    )
    expect((screen.getByTestId('secret-input-1') as HTMLInputElement).value).toBe('ab'.repeat(32))
  })

  it('opens the bundled sample on first run only', async () => {
    const first = fakeApi({ info: { sample_path: '/res/sample-chain.db' } })
    const { unmount } = render(
      <ApiProvider api={first.api}>
        <App />
      </ApiProvider>,
    )
    await waitFor(() => expect(first.calls.some((c) => c.name === 'openChain')).toBe(true))
    unmount()
    const second = fakeApi({ info: { sample_path: '/res/sample-chain.db' } })
    render(
      <ApiProvider api={second.api}>
        <App />
      </ApiProvider>,
    )
    await waitFor(() => expect(screen.getByTestId('welcome')).toBeTruthy())
    expect(second.calls.some((c) => c.name === 'openChain')).toBe(false)
    expect(screen.getByTestId('open-sample')).toBeTruthy()
    // The path just opened is offered as a recent one.
    expect(screen.getByTestId('recent-paths').textContent).toContain('/evidence/chain.db')
  })

  it('shows a non-chain file’s error on one line, and no crash', async () => {
    const { api } = fakeApi({ overrides: { openChain: notAChain } })
    render(
      <ApiProvider api={api}>
        <App />
      </ApiProvider>,
    )
    await waitFor(() => expect(screen.getByTestId('welcome')).toBeTruthy())
    fireEvent.change(screen.getByTestId('open-path'), { target: { value: '/evidence/x.db' } })
    fireEvent.click(screen.getByTestId('open-path-submit'))
    await waitFor(() =>
      expect(screen.getByTestId('open-error').textContent).toBe('not a SQLite database: /evidence/x.db'),
    )
    expect(screen.getByTestId('welcome')).toBeTruthy()
  })

  it('keeps the open chain when another open fails', async () => {
    let n = 0
    const { api } = fakeApi({
      info: { initial_path: '/evidence/chain.db' },
      overrides: { openChain: async () => (n++ === 0 ? overviewOf(240) : notAChain()) },
    })
    render(
      <ApiProvider api={api}>
        <App />
      </ApiProvider>,
    )
    await waitFor(() => expect(screen.getByTestId('workspace')).toBeTruthy())
    fireEvent.change(screen.getByTestId('open-path'), { target: { value: '/evidence/x.db' } })
    fireEvent.click(screen.getByTestId('open-path-submit'))
    await waitFor(() =>
      expect(screen.getByTestId('open-error').textContent).toContain('not a SQLite database'),
    )
    expect(screen.getByTestId('current-file').textContent).toBe('chain.db')
  })

  it('says that web mode opens by path when a .db is dropped', async () => {
    const { api, calls } = fakeApi()
    render(
      <ApiProvider api={api}>
        <App />
      </ApiProvider>,
    )
    await waitFor(() => expect(screen.getByTestId('welcome')).toBeTruthy())
    const file = new File(['x'], 'clean.db')
    const ev = new Event('drop', { bubbles: true, cancelable: true }) as Event & { dataTransfer: unknown }
    Object.defineProperty(ev, 'dataTransfer', { value: { files: [file], types: ['Files'] } })
    window.dispatchEvent(ev)
    await waitFor(() =>
      expect(screen.getByTestId('open-error').textContent).toContain('Web mode opens chains by path'),
    )
    expect(calls.some((c) => c.name === 'openChain')).toBe(false)
  })

  it('follows the engine: another chain’s event replaces the workspace, menuClose closes', async () => {
    let listener: ((e: AppEvent) => void) | null = null
    const events = (l: (e: AppEvent) => void) => ((listener = l), () => (listener = null))
    // The engine: what it holds, and the identity of its last open.
    let held: ChainOverview | null = null
    let openId = 0
    const { api, calls } = fakeApi({
      info: { initial_path: '/evidence/chain.db' },
      overrides: {
        openChain: async () => ((openId = 1), (held = overviewOf(240))),
        currentChain: async () =>
          held
            ? {
                chain: { open_id: openId, path: held.evidence.db.path, sha256: 'a'.repeat(64) },
                overview: held,
              }
            : null,
        closeChain: async () => ((held = null), null),
      },
    })
    render(
      <ApiProvider api={api} events={events}>
        <App />
      </ApiProvider>,
    )
    await waitFor(() => expect(screen.getByTestId('current-file').textContent).toBe('chain.db'))
    // Another caller (Open Recent in the main process) opened another chain.
    held = overviewOf(12, '/evidence/other.db')
    openId = 9
    act(() =>
      listener!({
        name: 'chainChanged',
        payload: { chain: { open_id: 9, path: '/evidence/other.db', sha256: 'a'.repeat(64) } },
      }),
    )
    await waitFor(() => expect(screen.getByTestId('current-file').textContent).toBe('other.db'))
    expect(screen.getByTestId('workspace').getAttribute('data-open-id')).toBe('9')
    expect(screen.getByTestId('overview-entries').textContent).toBe('12')
    act(() => listener!({ name: 'menuClose', payload: null }))
    await waitFor(() => expect(screen.getByTestId('welcome')).toBeTruthy())
    expect(calls.some((c) => c.name === 'closeChain')).toBe(true)
  })

  it('reports an unreachable engine instead of a blank window', async () => {
    const { api } = fakeApi({
      overrides: { appInfo: () => Promise.reject(new Error('cannot reach the server: fetch failed')) },
    })
    render(
      <ApiProvider api={api}>
        <App />
      </ApiProvider>,
    )
    await waitFor(() =>
      expect(screen.getByTestId('fatal-error').textContent).toContain('cannot reach the server'),
    )
  })
})
