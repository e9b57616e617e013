// The window: startup (what to open first), opening chains (dialog, path, drop), menus and
// shortcuts; the opened chain itself lives in Workspace.
import { useCallback, useEffect, useRef, useState } from 'react'
import type { ChainOverview } from '../../../shared/chain-types'
import type { AppInfo } from '../../../shared/contract'
import { ErrorBoundary } from '../components/ErrorBoundary'
import { OpenControls, RecentList } from '../components/OpenControls'
import { ShortcutsHelp } from '../components/ShortcutsHelp'
import { onMenu, pathOfDroppedFile } from '../lib/bridge'
import { errorMessage } from '../lib/format'
import { looksLikeChain } from '../lib/replay-format'
import { useApi } from './api-context'
import { useNotice } from './use-notice'
import { Workspace, type WorkspaceHandle } from './Workspace'

const RECENT_KEY = 'bijotel.recent'
const FIRST_RUN_KEY = 'bijotel.sample-opened'

function loadRecent(): string[] {
  try {
    const v: unknown = JSON.parse(localStorage.getItem(RECENT_KEY) ?? '[]')
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string').slice(0, 10) : []
  } catch {
    return []
  }
}

function saveRecent(list: string[]): void {
  try {
    localStorage.setItem(RECENT_KEY, JSON.stringify(list))
  } catch {
    // storage unavailable: recent paths stay in memory
  }
}

function firstRun(): boolean {
  try {
    if (localStorage.getItem(FIRST_RUN_KEY)) return false
    localStorage.setItem(FIRST_RUN_KEY, '1')
  } catch {
    // no storage: treat as first run
  }
  return true
}

function typingIn(t: EventTarget | null): boolean {
  if (!(t instanceof HTMLElement)) return false
  return t.isContentEditable || t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT'
}

export function App() {
  const api = useApi()
  const [info, setInfo] = useState<AppInfo | null>(null)
  const [fatal, setFatal] = useState<string | null>(null)
  const [overview, setOverview] = useState<ChainOverview | null>(null)
  const [generation, setGeneration] = useState(0)
  const [openError, setOpenError] = useState<string | null>(null)
  const [opening, setOpening] = useState<string | null>(null)
  const [recent, setRecent] = useState<string[]>(loadRecent)
  const [help, setHelp] = useState(false)
  const [dragging, setDragging] = useState(false)
  const [notice, notify, clearNotice] = useNotice()
  const pathInput = useRef<HTMLInputElement | null>(null)
  const workspace = useRef<WorkspaceHandle | null>(null)

  // A newly opened chain gets a fresh workspace; the final stage of a staged open only replaces the
  // overview, so what the auditor did meanwhile (keys typed, a verify started, zoom) is kept.
  const adopt = useCallback((ov: ChainOverview, sameChain = false) => {
    setOverview(ov)
    if (!sameChain) setGeneration((g) => g + 1)
    setOpenError(null)
    const p = ov.evidence.db.path
    setRecent((r) => {
      const next = [p, ...r.filter((x) => x !== p)].slice(0, 10)
      saveRecent(next)
      return next
    })
  }, [])

  const openPath = useCallback(
    async (path: string) => {
      setOpening(path)
      setOpenError(null)
      try {
        adopt(await api.openChain({ path }))
      } catch (e) {
        setOpenError(errorMessage(e))
      } finally {
        setOpening(null)
      }
    },
    [api, adopt],
  )

  const pick = useCallback(async () => {
    setOpenError(null)
    setOpening('…')
    try {
      const ov = await api.pickAndOpenChain()
      if (ov) adopt(ov)
    } catch (e) {
      setOpenError(errorMessage(e))
    } finally {
      setOpening(null)
    }
  }, [api, adopt])

  const openCommand = useCallback(() => {
    if (info?.has_dialogs) void pick()
    else pathInput.current?.focus()
  }, [info, pick])

  // A large chain opens in stages: until its overview stops being pending, ask again; the final one
  // (hashes, providers, the copy every other view reads) replaces it, and the workspace reloads
  // what depended on the first stage.
  useEffect(() => {
    if (!overview?.pending) return
    let live = true
    const timer = setInterval(() => {
      void api
        .overview()
        .then((ov) => {
          if (live && ov && !ov.pending) adopt(ov, ov.evidence.db.path === overview.evidence.db.path)
        })
        .catch((e: unknown) => {
          // The background stage failed: say why, and stop asking.
          if (!live) return
          live = false
          clearInterval(timer)
          setOpenError(errorMessage(e))
        })
    }, 300)
    return () => {
      live = false
      clearInterval(timer)
    }
  }, [api, adopt, overview])

  // Startup: the chain the engine already has, else the one given on the command line, else the
  // bundled sample on first run.
  useEffect(() => {
    let live = true
    void (async () => {
      try {
        const i = await api.appInfo()
        if (!live) return
        setInfo(i)
        setRecent((r) => {
          const merged = [...i.recent_paths, ...r.filter((x) => !i.recent_paths.includes(x))].slice(0, 10)
          return merged
        })
        const ov = await api.overview().catch(() => null)
        if (!live) return
        if (ov) adopt(ov)
        else if (i.initial_path) void openPath(i.initial_path)
        else if (i.sample_path && firstRun()) void openPath(i.sample_path)
      } catch (e) {
        if (live) setFatal(errorMessage(e))
      }
    })()
    return () => {
      live = false
    }
  }, [api, adopt, openPath])

  // Menus of the desktop app.
  useEffect(
    () =>
      onMenu((c) => {
        if (c === 'open') openCommand()
        else if (c === 'verify') workspace.current?.verify()
        else if (c === 'export') workspace.current?.exportReport()
        else if (c === 'copy-report') workspace.current?.copyReport()
      }),
    [openCommand],
  )

  // In-page shortcuts.
  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      const mod = e.ctrlKey || e.metaKey
      const k = e.key.toLowerCase()
      if (mod && !e.altKey) {
        if (k === 'o' && !e.shiftKey) {
          e.preventDefault()
          openCommand()
        } else if (k === 'e') {
          e.preventDefault()
          if (e.shiftKey) workspace.current?.copyReport()
          else workspace.current?.exportReport()
        } else if (k === 'v' && e.shiftKey && !typingIn(e.target)) {
          e.preventDefault()
          workspace.current?.verify()
        } else if (k === 'g' && !e.shiftKey) {
          e.preventDefault()
          document.querySelector<HTMLInputElement>('[data-testid="goto-seq"]')?.focus()
        }
        return
      }
      if (typingIn(e.target) || e.altKey) return
      if (e.key === '?') setHelp((h) => !h)
      else if (e.key === 'Escape') {
        setHelp(false)
        workspace.current?.resetZoom()
      } else if (e.key === '[') workspace.current?.step(-1)
      else if (e.key === ']') workspace.current?.step(1)
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [openCommand])

  // Files dropped on the window (rows and the detail panel handle their own drops first).
  const dropRef = useRef<(f: File) => void>(() => undefined)
  useEffect(() => {
    dropRef.current = (f: File) => {
      if (looksLikeChain(f.name) || !overview) {
        const p = pathOfDroppedFile(f)
        if (p) void openPath(p)
        else {
          const msg = `Web mode opens chains by path: type the path of ${f.name} in the Open box${info?.open_roots.length ? ` (allowed under ${info.open_roots.join(', ')})` : ''}`
          setOpenError(overview ? null : msg)
          notify(msg, 'error')
        }
        return
      }
      workspace.current?.dropReplay(f)
    }
  })
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
      const f = e.dataTransfer?.files?.[0]
      if (f) dropRef.current(f)
    }
    window.addEventListener('dragover', over)
    window.addEventListener('drop', drop)
    return () => {
      if (timer) clearTimeout(timer)
      window.removeEventListener('dragover', over)
      window.removeEventListener('drop', drop)
    }
  }, [])

  const noticeBar = notice ? (
    <div className={`notice ${notice.kind}`} role="status" data-testid="notice" onClick={clearNotice}>
      {notice.text}
    </div>
  ) : null

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
      onOpenPath={(p) => void openPath(p)}
      onPick={() => void pick()}
      inputRef={pathInput}
      compact={compact}
    />
  )

  return (
    <>
      {overview ? (
        <ErrorBoundary where="workspace" resetKey={generation}>
          <Workspace
            key={generation}
            ref={workspace}
            info={info}
            overview={overview}
            notify={notify}
            header={controls(true)}
            banner={
              openError ? (
                <div className="banner error" role="alert">
                  <span data-testid="open-error">{openError}</span>
                  <button
                    type="button"
                    className="btn small"
                    onClick={() => setOpenError(null)}
                    aria-label="dismiss"
                  >
                    ×
                  </button>
                </div>
              ) : null
            }
          />
        </ErrorBoundary>
      ) : (
        <div className="welcome" data-testid="welcome">
          <div className="welcome-card">
            <h1>
              <span className="logo">◆</span> BIJOTEL Auditor{' '}
              <span className="muted small">{info.version}</span>
            </h1>
            <p className="muted">
              Open a BIJOTEL chain.db to audit it. The file is never modified: a verified private copy is
              read.
            </p>
            {controls(false)}
            {openError ? (
              <p className="error-line" role="alert" data-testid="open-error">
                {openError}
              </p>
            ) : null}
            {info.open_roots.length > 0 ? (
              <p className="muted small">
                Web mode: chains are opened by path under {info.open_roots.join(', ')}.
              </p>
            ) : null}
            <div className="dropzone">
              {info.has_dialogs
                ? 'or drop a chain.db on this window'
                : 'dropping files opens nothing in web mode: type the path'}
            </div>
            {recent.length > 0 ? (
              <>
                <h2 className="small muted">Recent</h2>
                <RecentList recent={recent} onOpenPath={(p) => void openPath(p)} />
              </>
            ) : null}
          </div>
        </div>
      )}
      {noticeBar}
      {dragging ? <div className="drag-overlay" aria-hidden /> : null}
      {help ? <ShortcutsHelp onClose={() => setHelp(false)} /> : null}
    </>
  )
}
