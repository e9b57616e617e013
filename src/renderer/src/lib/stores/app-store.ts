// The window's state: the engine's info, the chain the engine holds (its identity, as the engine
// last told it) and that chain's workspace store, opening, errors, recent paths, the notice line.
// The chain the engine holds is the only truth: every change of it — an open from this page, from
// another client, Open Recent, a second instance, close — arrives as chainChanged (or is read with
// currentChain), and the workspace of any other chain is dropped at once, before anything is read
// for the new one.
import type { ChainIdentity, ChainState } from '../../../../shared/app-events'
import type { PriorInfo } from '../../../../shared/custody-types'
import type { ApiClient, AppInfo } from '../../../../shared/contract'
import type { DeepLink } from '../deep-link'
import { errorMessage } from '../format'
import { looksLikeChain } from '../replay-format'
import { firstRun, loadRecent, MAX_RECENT, saveRecent } from './local-prefs'
import { scopedApi } from './scoped-api'
import { Store } from './store'
import { WorkspaceStore } from './workspace-store'

export interface Notice {
  text: string
  kind: 'info' | 'error'
  id: number
}

export interface AppState {
  info: AppInfo | null
  /** The engine cannot be reached at all. */
  fatal: string | null
  /** The chain the engine holds; null when none is open. */
  chain: ChainIdentity | null
  /** The workspace of `chain`, once its overview is read; null while switching or with no chain. */
  workspace: WorkspaceStore | null
  /** The path being opened, '…' for the dialog, null when no open is under way. */
  opening: string | null
  openError: string | null
  recent: string[]
  notice: Notice | null
  help: boolean
  /** A deep link read on load is still waiting for its chain: nothing is written to the URL meanwhile. */
  linkPending: boolean
  /**
   * A link (on load, or pasted into this tab) names another chain than the one the engine holds:
   * the page asks before opening it, since every tab would lose the chain held (issue 34).
   */
  confirmLink: string | null
  /** Another tab or window changed the chain the engine holds: said here, never done silently. */
  changedElsewhere: string | null
}

const STAGE_POLL_MS = 300

const baseName = (p: string): string => p.split(/[\\/]/).pop() || p
const NOTICE_MS = 8000

export class AppStore extends Store<AppState> {
  private syncs = 0
  /** A priorChanged received while no workspace could show it (see sync). */
  private pendingPrior: PriorInfo | null | undefined = undefined
  private stagePoll: ReturnType<typeof setInterval> | null = null
  private noticeTimer: ReturnType<typeof setTimeout> | null = null
  private notices = 0
  private disposed = false
  /** A deep link read on load (web mode), applied to the workspace of the chain it names. */
  private pendingLink: DeepLink | null = null
  /** Workspaces the link was applied to (several when the chain is switched again during start). */
  private linked = new WeakSet<WorkspaceStore>()
  /** The keys of the chain just left, which the engine cleared with it. */
  private clearedKeys: { path: string; count: number } | null = null
  /** This tab is closing the chain: the event that follows is its own. */
  private closing = false

  constructor(private readonly api: ApiClient) {
    super({
      info: null,
      fatal: null,
      chain: null,
      workspace: null,
      opening: null,
      openError: null,
      recent: loadRecent(),
      notice: null,
      help: false,
      linkPending: false,
      confirmLink: null,
      changedElsewhere: null,
    })
  }

  /**
   * Startup: the chain a deep link names (web mode), else the chain the engine already holds, else
   * the command line's (at its `--seq`), else the sample (first run).
   */
  async start(link: DeepLink | null = null): Promise<void> {
    if (link?.dropped) this.notify(link.dropped, 'error')
    this.setLink(link)
    try {
      const info = await this.api.appInfo()
      if (this.disposed) return
      // Links are a web-mode thing: the desktop app's page address is its own.
      if (info.transport !== 'http') this.setLink(null)
      this.update((s) => ({
        info,
        recent: [...info.recent_paths, ...s.recent.filter((x) => !info.recent_paths.includes(x))].slice(
          0,
          MAX_RECENT,
        ),
      }))
      const held = await this.sync().catch(() => null)
      if (this.disposed) return
      const link = this.pendingLink
      const ws = this.getState().workspace
      if (link?.chain && held?.chain.path === link.chain) {
        // The link names the chain held (a reload, a second tab): no question to ask. The workspace
        // takes the link's view now, or when the sync under way builds it (adopt → applyLink).
        if (ws && ws.chain.path === link.chain) {
          if (!this.linked.has(ws)) this.applyLink(ws, true)
          this.setLink(null)
        }
        return
      }
      if (link?.chain && !(ws && this.linked.has(ws))) {
        // Another chain than the one held: with none held, open it; else ask first (issue 34:
        // a page elsewhere must not switch every tab's chain without this page's user).
        if (held) this.update({ confirmLink: link.chain })
        else await this.openLink(link)
        return
      }
      this.setLink(null)
      if (held) return
      if (info.initial_path) await this.openPath(info.initial_path, info.initial_seq ?? null)
      else if (info.sample_path && firstRun()) await this.openPath(info.sample_path)
    } catch (e) {
      if (!this.disposed) this.update({ fatal: errorMessage(e) })
    }
  }

  dispose(): void {
    this.disposed = true
    this.syncs++
    this.stopStagePoll()
    if (this.noticeTimer) clearTimeout(this.noticeTimer)
    this.getState().workspace?.dispose()
  }

  /** A link's chain, opened; its workspace takes the link's view (also when named otherwise). */
  private async openLink(link: DeepLink): Promise<void> {
    if (!link.chain) return
    this.pendingLink = link
    await this.openPath(link.chain, link.seq)
    const opened = this.getState().workspace
    if (!this.disposed && opened && !this.getState().openError && !this.linked.has(opened))
      this.applyLink(opened, true)
    this.setLink(null)
  }

  /** A link pasted into this tab (hashchange): applied to the chain shown, or another chain asked for. */
  followLink(link: DeepLink): void {
    if (link.dropped) this.notify(link.dropped, 'error')
    const ws = this.getState().workspace
    if (link.chain === null || (ws && link.chain === ws.chain.path)) {
      if (!ws) return
      this.pendingLink = link
      this.applyLink(ws, true)
      this.pendingLink = null
      return
    }
    if (!this.getState().chain) {
      void this.openLink(link)
      return
    }
    this.setLink(link)
    this.update({ confirmLink: link.chain })
  }

  /** The auditor agreed to open the link's chain in place of the one held. */
  readonly confirmOpenLink = async (): Promise<void> => {
    const link = this.pendingLink
    this.update({ confirmLink: null })
    if (link) await this.openLink(link)
    else this.setLink(null)
  }

  /** The auditor kept the chain held: the link is dropped, the URL names the chain shown again. */
  readonly cancelLink = (): void => {
    this.update({ confirmLink: null })
    this.setLink(null)
  }

  readonly dismissChangedElsewhere = (): void => this.update({ changedElsewhere: null })

  /**
   * AppEvents.priorChanged: shown by the workspace, or kept for the one the sync under way builds
   * (an event that arrives before a loaded page has a workspace was dropped).
   */
  priorChanged(prior: PriorInfo | null): void {
    const ws = this.getState().workspace
    if (ws) ws.custody.priorHeld(prior)
    else this.pendingPrior = prior
  }

  /** AppEvents.chainChanged: the engine holds `chain` now. */
  chainChanged(chain: ChainIdentity | null): void {
    const held = this.getState().chain
    // Not opened or closed from this tab: another tab, window or client did it. Say so here.
    if (
      held &&
      this.getState().info?.transport === 'http' &&
      this.getState().opening === null &&
      !this.closing &&
      held.open_id !== chain?.open_id
    )
      this.update({
        changedElsewhere:
          chain === null
            ? `Another tab or window closed ${baseName(held.path)}: its verdict and views were dropped here too.`
            : `Another tab or window opened ${baseName(chain.path)} in place of ${baseName(held.path)}: the verdict, keys and views of ${baseName(held.path)} were dropped here too.`,
      })
    if (chain === null) {
      this.syncs++ // an answer still on its way describes a chain that is gone
      this.adopt(null)
      return
    }
    if (held?.open_id !== chain.open_id) this.switchTo(chain)
    if (held?.open_id !== chain.open_id || held.sha256 !== chain.sha256)
      void this.sync().catch((e: unknown) => this.update({ openError: errorMessage(e) }))
  }

  /** Read the chain the engine holds (identity and overview together) and show it. */
  async sync(): Promise<ChainState | null> {
    const n = ++this.syncs
    // The answer holds the prior as of its reading; a priorChanged that arrives from now on, while
    // no workspace can show it, is at least as new (it was sent no earlier than the change the
    // answer may already hold), so it is kept and applied after the answer's.
    this.pendingPrior = undefined
    const state = await this.api.currentChain()
    if (n === this.syncs && !this.disposed) this.adopt(state)
    return state
  }

  /** Drop the shown chain's workspace at once: its data must not stay on screen for another chain. */
  private switchTo(chain: ChainIdentity): void {
    this.stopStagePoll()
    this.leaving(this.getState().workspace)
    this.getState().workspace?.dispose()
    this.update({ chain, workspace: null })
  }

  /** The engine clears the keys with the chain (keys belong to a chain): the next workspace says so. */
  private leaving(ws: WorkspaceStore | null): void {
    const n = ws?.getState().keys.length ?? 0
    if (ws && n > 0) this.clearedKeys = { path: ws.chain.path, count: n }
  }

  private adopt(state: ChainState | null): void {
    const s = this.getState()
    if (state === null) {
      this.stopStagePoll()
      s.workspace?.dispose()
      this.update({ chain: null, workspace: null })
      return
    }
    const { chain, overview } = state
    const ws = s.workspace
    if (ws && ws.chain.open_id === chain.open_id) {
      // The same open, further on (a staged open's final stage): what the auditor did is kept.
      ws.setOverview(overview)
      this.update({ chain })
    } else {
      this.leaving(ws)
      ws?.dispose()
      const isCurrent = (): boolean => !this.disposed && this.getState().chain?.open_id === chain.open_id
      const next = new WorkspaceStore(chain, scopedApi(this.api, isCurrent), overview, {
        hasDialogs: s.info?.has_dialogs ?? false,
        notify: this.notify,
      })
      this.update({ chain, workspace: next, openError: null })
      if (state.prior) next.custody.priorHeld(state.prior)
      if (this.pendingPrior !== undefined) next.custody.priorHeld(this.pendingPrior)
      this.pendingPrior = undefined
      if (this.clearedKeys) next.noteKeysCleared(this.clearedKeys.path, this.clearedKeys.count)
      this.clearedKeys = null
      next.load()
      if (state.focus_seq !== undefined) next.select(state.focus_seq)
      this.applyLink(next)
      if (this.linked.has(next)) this.setLink(null)
      this.addRecent(chain.path)
    }
    if (overview.pending) this.startStagePoll()
    else this.stopStagePoll()
  }

  // A large chain opens in stages: until its overview stops being pending, ask again (the event of
  // the final stage says so too; polling also covers a web page whose event stream is cut).
  private startStagePoll(): void {
    if (this.stagePoll) return
    this.stagePoll = setInterval(() => {
      this.sync().catch((e: unknown) => {
        // The background stage failed: say why, and stop asking.
        this.stopStagePoll()
        this.update({ openError: errorMessage(e) })
      })
    }, STAGE_POLL_MS)
  }

  private stopStagePoll(): void {
    if (this.stagePoll) clearInterval(this.stagePoll)
    this.stagePoll = null
  }

  private addRecent(p: string): void {
    this.update((s) => {
      const recent = [p, ...s.recent.filter((x) => x !== p)].slice(0, MAX_RECENT)
      saveRecent(recent)
      return { recent }
    })
  }

  private setLink(link: DeepLink | null): void {
    this.pendingLink = link
    this.update({ linkPending: link !== null })
  }

  private applyLink(ws: WorkspaceStore, force = false): void {
    const link = this.pendingLink
    if (!link || (!force && link.chain !== null && link.chain !== ws.chain.path)) return
    this.linked.add(ws)
    if (link.provider !== null) ws.dispatchView({ type: 'provider', value: link.provider })
    if (link.model !== null) ws.dispatchView({ type: 'model', value: link.model })
    if (link.range !== null) ws.dispatchView({ type: 'range', value: link.range })
    if (link.seq !== null) ws.select(link.seq)
  }

  /** Open a chain by path; `focusSeq`: the row to show first (a deep link, `--seq N`). */
  readonly openPath = async (path: string, focusSeq: number | null = null): Promise<void> => {
    this.update({ opening: path, openError: null })
    try {
      await this.api.openChain(focusSeq === null ? { path } : { path, focus_seq: focusSeq })
      await this.sync()
    } catch (e) {
      this.update({ openError: errorMessage(e) })
    } finally {
      this.update({ opening: null })
    }
  }

  readonly pick = async (): Promise<void> => {
    // (a dialog's open is this tab's own: `opening` is set, so no "another tab" line follows)
    this.update({ opening: '…', openError: null })
    try {
      if (await this.api.pickAndOpenChain()) await this.sync()
    } catch (e) {
      this.update({ openError: errorMessage(e) })
    } finally {
      this.update({ opening: null })
    }
  }

  /** File → Open…: the dialog in the desktop app; in web mode, the path box (`focusPathBox`). */
  openCommand(focusPathBox: () => void): void {
    if (this.getState().info?.has_dialogs) void this.pick()
    else focusPathBox()
  }

  readonly close = async (): Promise<void> => {
    this.closing = true
    try {
      await this.api.closeChain()
      this.chainChanged(null)
    } catch (e) {
      this.notify(`Close failed: ${errorMessage(e)}`, 'error')
    } finally {
      this.closing = false
    }
  }

  /** AppEvents.openFailed: an open the shell started (Open Recent, a second instance) failed. */
  openFailed(path: string, message: string): void {
    this.update({ openError: message.includes(path) ? message : `${path}: ${message}` })
  }

  /** A file dropped on the window: a chain opens (by its path, desktop only); anything else is a replay. */
  dropFile(file: File, path: string | null): void {
    const { workspace, info } = this.getState()
    if (looksLikeChain(file.name) || !workspace) {
      if (path) {
        void this.openPath(path)
        return
      }
      const roots = info?.open_roots.length ? ` (allowed under ${info.open_roots.join(', ')})` : ''
      const msg = `Web mode opens chains by path: type the path of ${file.name} in the Open box${roots}`
      this.update({ openError: workspace ? null : msg })
      this.notify(msg, 'error')
      return
    }
    workspace.dropReplay(file)
  }

  /** Several files, or a folder's, dropped on the window: a replay batch against the open chain. */
  dropFiles(files: File[]): void {
    const { workspace } = this.getState()
    const replays = files.filter((f) => !looksLikeChain(f.name))
    if (!workspace) {
      this.notify('Open a chain first: dropped replay files are checked against it', 'error')
      return
    }
    if (replays.length === 0) return
    workspace.dropReplays(replays)
  }

  readonly dismissOpenError = (): void => this.update({ openError: null })

  readonly notify = (text: string, kind: 'info' | 'error' = 'info'): void => {
    if (this.noticeTimer) clearTimeout(this.noticeTimer)
    this.update({ notice: { text, kind, id: ++this.notices } })
    this.noticeTimer = setTimeout(
      () => this.update({ notice: null }),
      kind === 'error' ? NOTICE_MS * 2 : NOTICE_MS,
    )
  }

  readonly clearNotice = (): void => this.update({ notice: null })
  readonly setHelp = (help: boolean): void => this.update({ help })
  readonly toggleHelp = (): void => this.update((s) => ({ help: !s.help }))
}
