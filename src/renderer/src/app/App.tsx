// The window: its store (AppStore: the chain the engine holds, opening, errors, recent paths),
// the main → renderer events, shortcuts and window drops; the opened chain is shown by Workspace.
import { useEffect, useRef, useState } from 'react'
import { ConfirmDialog } from '../components/ConfirmDialog'
import { ErrorBoundary } from '../components/ErrorBoundary'
import { LiveRegion } from '../components/LiveRegion'
import { OpenControls } from '../components/OpenControls'
import { ShortcutsHelp } from '../components/ShortcutsHelp'
import { handleAppEvent, pathOfDroppedFile, type SubscribeAppEvents } from '../lib/bridge'
import { parseLink } from '../lib/deep-link'
import { droppedFiles } from '../lib/dropped-files'
import { AppStore } from '../lib/stores/app-store'
import { browserTarget, DeepLinkSync } from '../lib/stores/deep-link-sync'
import { useStore } from '../lib/stores/store'
import { useApi, useAppEventSource } from './api-context'
import { appEventHandlers } from './app-events'
import { Switching, Welcome } from './Welcome'
import { Workspace } from './Workspace'
import './app.css'

const baseName = (p: string): string => p.split(/[\\/]/).pop() || p

function typingIn(t: EventTarget | null): boolean {
  if (!(t instanceof HTMLElement)) return false
  return t.isContentEditable || t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT'
}

export function App() {
  const api = useApi()
  const events = useAppEventSource()
  // One store per API client, made in an effect so that StrictMode's second mount gets a live one.
  const [store, setStore] = useState<AppStore | null>(null)
  useEffect(() => {
    const s = new AppStore(api)
    setStore(s)
    // Web mode: the URL's hash is a deep link (chain, seq, filters), read once and kept up to date.
    void s.start(parseLink(window.location.hash))
    const stopLink = new DeepLinkSync(s, browserTarget()).start()
    // A link pasted into this tab's address bar (the page's own URL writes never fire this).
    const onHash = (): void => s.followLink(parseLink(window.location.hash))
    window.addEventListener('hashchange', onHash)
    return () => {
      window.removeEventListener('hashchange', onHash)
      stopLink()
      s.dispose()
    }
  }, [api])
  return store ? <AppWindow store={store} events={events} /> : <div className="welcome muted">starting…</div>
}

function AppWindow({ store, events }: { store: AppStore; events: SubscribeAppEvents }) {
  const info = useStore(store, (s) => s.info)
  const fatal = useStore(store, (s) => s.fatal)
  const chain = useStore(store, (s) => s.chain)
  const workspace = useStore(store, (s) => s.workspace)
  const openError = useStore(store, (s) => s.openError)
  const opening = useStore(store, (s) => s.opening)
  const recent = useStore(store, (s) => s.recent)
  const notice = useStore(store, (s) => s.notice)
  const help = useStore(store, (s) => s.help)
  const confirmLink = useStore(store, (s) => s.confirmLink)
  const changedElsewhere = useStore(store, (s) => s.changedElsewhere)
  const [dragging, setDragging] = useState(false)
  const pathInput = useRef<HTMLInputElement | null>(null)

  // Main → renderer events, every one handled (AppEventHandlers).
  useEffect(() => {
    const handlers = appEventHandlers(store, { focusPathBox: () => pathInput.current?.focus() })
    return events((ev) => handleAppEvent(handlers, ev))
  }, [store, events])

  // In-page shortcuts (the desktop menu's accelerators send the same commands as events).
  useEffect(() => {
    const ws = () => store.getState().workspace
    const onKey = (e: KeyboardEvent): void => {
      const mod = e.ctrlKey || e.metaKey
      const k = e.key.toLowerCase()
      if (mod && !e.altKey) {
        if (k === 'o' && !e.shiftKey) {
          e.preventDefault()
          store.openCommand(() => pathInput.current?.focus())
        } else if (k === 'e') {
          e.preventDefault()
          if (e.shiftKey) void ws()?.copyReport()
          else void ws()?.exportReport()
        } else if (k === 'v' && e.shiftKey && !typingIn(e.target)) {
          e.preventDefault()
          void ws()?.verify()
        } else if (k === 'i' && !e.shiftKey && !typingIn(e.target)) {
          e.preventDefault()
          ws()?.rerunIntegrity()
        } else if (k === 'g' && !e.shiftKey) {
          e.preventDefault()
          document.querySelector<HTMLInputElement>('[data-testid="goto-seq"]')?.focus()
        }
        return
      }
      if (typingIn(e.target) || e.altKey) return
      if (e.key === '?') store.toggleHelp()
      else if (e.key === 'Escape') {
        store.setHelp(false)
        ws()?.resetZoom()
      } else if (e.key === '[') ws()?.step(-1)
      else if (e.key === ']') ws()?.step(1)
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [store])

  // Files dropped on the window (rows and the detail panel handle their own drops first).
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | null = null
    const isFiles = (e: DragEvent): boolean => Array.from(e.dataTransfer?.types ?? []).includes('Files')
    const over = (e: DragEvent): void => {
      if (!isFiles(e)) return
      e.preventDefault()
      if (e.dataTransfer) e.dataTransfer.dropEffect = 'copy'
      setDragging(true)
      if (timer) clearTimeout(timer)
      timer = setTimeout(() => setDragging(false), 200)
    }
    const drop = (e: DragEvent): void => {
      if (!isFiles(e)) return
      e.preventDefault()
      setDragging(false)
      void droppedFiles(e).then(({ files, folder }) => {
        if (files.length === 1 && !folder) store.dropFile(files[0]!, pathOfDroppedFile(files[0]!))
        else if (files.length > 0) store.dropFiles(files)
      })
    }
    window.addEventListener('dragover', over)
    window.addEventListener('drop', drop)
    return () => {
      if (timer) clearTimeout(timer)
      window.removeEventListener('dragover', over)
      window.removeEventListener('drop', drop)
    }
  }, [store])

  if (fatal) {
    return (
      <div className="welcome">
        <div className="welcome-card">
          <h1>BIJOTEL Auditor</h1>
          <p className="error-line" data-testid="fatal-error">
            Cannot reach the audit engine: {fatal}
          </p>
        </div>
      </div>
    )
  }
  if (!info) return <div className="welcome muted">starting…</div>

  const controls = (compact: boolean) => (
    <OpenControls
      info={info}
      recent={recent}
      opening={opening}
      onOpenPath={(p) => void store.openPath(p)}
      onPick={() => void store.pick()}
      inputRef={pathInput}
      compact={compact}
    />
  )
  const elsewhere = changedElsewhere ? (
    <div className="banner warn" role="alert">
      <span data-testid="changed-elsewhere">{changedElsewhere}</span>
      <button
        type="button"
        className="btn small"
        onClick={store.dismissChangedElsewhere}
        aria-label="dismiss"
      >
        ×
      </button>
    </div>
  ) : null
  const banner = (
    <>
      {openError ? (
        <div className="banner error" role="alert">
          <span data-testid="open-error">{openError}</span>
          <button type="button" className="btn small" onClick={store.dismissOpenError} aria-label="dismiss">
            ×
          </button>
        </div>
      ) : null}
      {elsewhere}
    </>
  )

  let body
  if (workspace) {
    // Keyed by the engine's open: another chain is another workspace, from a clean state.
    body = (
      <ErrorBoundary where="workspace" resetKey={workspace.chain.open_id}>
        <Workspace
          key={workspace.chain.open_id}
          store={workspace}
          info={info}
          header={controls(true)}
          banner={banner}
        />
      </ErrorBoundary>
    )
  } else if (chain && !openError) {
    body = <Switching path={chain.path} />
  } else {
    body = (
      <>
        {elsewhere}
        <Welcome
          info={info}
          controls={controls(false)}
          openError={openError}
          recent={recent}
          onOpenPath={(p) => void store.openPath(p)}
        />
      </>
    )
  }

  return (
    <>
      <LiveRegion />
      {body}
      {notice ? (
        <div
          className={`notice ${notice.kind}`}
          role="status"
          data-testid="notice"
          onClick={store.clearNotice}
        >
          {notice.text}
        </div>
      ) : null}
      {dragging ? <div className="drag-overlay" aria-hidden /> : null}
      {help ? <ShortcutsHelp onClose={() => store.setHelp(false)} /> : null}
      {confirmLink ? (
        <ConfirmDialog
          title={`Open ${baseName(confirmLink)}?`}
          yes={`Open ${baseName(confirmLink)}`}
          no={`Keep ${chain ? baseName(chain.path) : 'the current chain'}`}
          onYes={() => void store.confirmOpenLink()}
          onNo={store.cancelLink}
          testId="confirm-link"
        >
          <p>
            A link asks to open <code>{confirmLink}</code>.
            {chain ? (
              <>
                {' '}
                The server holds <code>{chain.path}</code> for every tab: its verdict, keys and views will be
                dropped, here and in every other open tab.
              </>
            ) : null}
          </p>
        </ConfirmDialog>
      ) : null}
    </>
  )
}
