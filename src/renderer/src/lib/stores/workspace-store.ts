// Everything about one opened chain: what the auditor does with it (filters, selection, keys, the
// verdict, integrity runs, replay checks, export) and what the engine answered. One store per
// chain identity: when the engine holds another chain the app store drops this one, and its API
// (scopedApi) stops delivering answers, so nothing here can be shown for another chain.
import type { ChainIdentity } from '../../../../shared/app-events'
import type { ChainOverview, EntryDetail, EntrySummary } from '../../../../shared/chain-types'
import type { ApiClient, SecretInput } from '../../../../shared/contract'
import type { ReportFormat } from '../../../../shared/custody-types'
import type { IntegrityOptions, IntegrityRun } from '../../../../shared/integrity-types'
import type { ReplayCheck, ReplayCheckRequest, ReplayTextMode } from '../../../../shared/replay-types'
import type { KeyInfo, VerifyRangeOptions, VerifyVerdict } from '../../../../shared/verify-types'
import { initialView, viewReducer, type ViewAction, type ViewState } from '../filter-state'
import { errorMessage } from '../format'
import { CustodyStore } from './custody-store'
import { DriftStore } from './drift-store'
import { readFileBase64 } from '../replay-format'
import { integritySentence, jobEndSentence, verdictSentence } from '../announce-text'
import { announcer } from './announcer'
import { FindStore } from './find-store'
import { GapStore } from './gap-store'
import type { GapSpan } from '../gap-rows'
import { JobRunner } from './job-runner'
import { KeylessStore } from './keyless-store'
import { RecoveredStore } from './recovered-store'
import { ReplayBatchStore } from './replay-batch-store'
import { copyReport, exportReport, type ReportActionEnv } from './report-actions'
import { isJsonlName } from '../../../../shared/replay-names'
import { Store } from './store'

export type Notify = (text: string, kind?: 'info' | 'error') => void

export interface Selection {
  seq: number
  /** Its timestamp, once known (the timeline draws the selected entry). */
  ns: string | null
}

export type DetailTab = 'entry' | 'replays' | 'recovered'

export interface WorkspaceState {
  overview: ChainOverview
  view: ViewState
  selected: Selection | null
  neighbours: { prev: number | null; next: number | null }
  keys: KeyInfo[]
  keysError: string | null
  /** Why the key set is empty although keys were given (another chain's keys were cleared). */
  keysNote: string | null
  /** Bumped when a verify is asked for with no key: the key field takes focus (issue 35). */
  keyPrompt: number
  verdict: VerifyVerdict | null
  integrity: IntegrityRun | null
  integrityOpts: IntegrityOptions
  integrityBusy: boolean
  integrityError: string | null
  /** Bumped when the key set changes; the integrity run shown was made under `integrityKeyGen`. */
  keyGen: number
  integrityKeyGen: number
  checks: ReplayCheck[]
  replayMode: ReplayTextMode
  replayBusy: boolean
  replayError: string | null
  /** Bumped when a row's own check may have changed (new keys, a new verdict). */
  checkVersion: number
  /** Bumped when the flagged rows may have changed (a verdict, an integrity run, new keys). */
  flagVersion: number
  detailTab: DetailTab
  exporting: boolean
}

export const DEFAULT_INTEGRITY: IntegrityOptions = { window: 100 }
export const MAX_REPLAY_BYTES = 64 * 1024 * 1024
const ignore = (): void => undefined

export interface WorkspaceEnv {
  /** The desktop app saves reports with its dialog; web mode downloads them. */
  hasDialogs: boolean
  notify: Notify
}

export class WorkspaceStore extends Store<WorkspaceState> {
  readonly verifyJob: JobRunner<VerifyVerdict>
  readonly integrityJob: JobRunner<IntegrityRun>
  /** What the files remember (the verdict's recovered rows, or a recover job's). */
  readonly recovered: RecoveredStore
  /** Search and export of the rows in view (issue 26). */
  readonly find: FindStore
  /** Signing key, prior and report checks (chain of custody). */
  readonly custody: CustodyStore
  /** The keyless check the engine runs on open (issue 26): breaks before any key is typed. */
  readonly keyless: KeylessStore
  /** Payload drift per provider/model (F12, issue 26). */
  readonly drift: DriftStore
  /** Replays checked in bulk (issue 37). */
  readonly batch: ReplayBatchStore
  /** Where the listing skips seqs: the table's gap rows (issue 35). */
  readonly gaps: GapStore

  constructor(
    readonly chain: ChainIdentity,
    /** Bound to this chain (scopedApi): answers for another chain never arrive. */
    readonly api: ApiClient,
    overview: ChainOverview,
    private readonly env: WorkspaceEnv,
  ) {
    super({
      overview,
      view: initialView,
      selected: null,
      neighbours: { prev: null, next: null },
      keys: [],
      keysError: null,
      keysNote: null,
      keyPrompt: 0,
      verdict: null,
      integrity: null,
      integrityOpts: DEFAULT_INTEGRITY,
      integrityBusy: false,
      integrityError: null,
      keyGen: 0,
      integrityKeyGen: 0,
      checks: [],
      replayMode: 'python',
      replayBusy: false,
      replayError: null,
      checkVersion: 0,
      flagVersion: 0,
      detailTab: 'entry',
      exporting: false,
    })
    this.verifyJob = new JobRunner(api)
    this.integrityJob = new JobRunner(api)
    this.recovered = new RecoveredStore(api)
    this.subscribe(() => this.recovered.fromVerdict(this.getState().verdict))
    this.find = new FindStore(api, {
      hasDialogs: env.hasDialogs,
      notify: env.notify,
      dispatchView: this.dispatchView,
    })
    this.custody = new CustodyStore(api, { hasDialogs: env.hasDialogs, verify: () => this.verify() })
    // The engine flags the keyless check's rows while no keyed verdict is held: the marks follow.
    this.keyless = new KeylessStore(api, () => this.update((s) => ({ flagVersion: s.flagVersion + 1 })))
    this.drift = new DriftStore(api)
    this.batch = new ReplayBatchStore(api, {
      mode: () => this.getState().replayMode,
      checks: (checks) => this.update({ checks, detailTab: 'replays' }),
    })
    this.gaps = new GapStore(api)
    // What arrives after a selection may say more of it (see `follow`).
    const followUp = (): void => this.followUp()
    this.gaps.subscribe(followUp)
    this.recovered.subscribe(followUp)
    this.keyless.subscribe(followUp)
    this.subscribe(followUp)
  }

  /** What the engine already holds for this chain, and a first integrity run. */
  load(): void {
    this.api.listKeys().then((keys) => this.update({ keys }), ignore)
    this.api.lastVerdict().then((verdict) => this.update({ verdict }), ignore)
    this.reloadChecks()
    this.custody.load()
    this.gaps.load()
    void this.keyless.load()
    void this.runIntegrity(DEFAULT_INTEGRITY)
  }

  /** The same chain's overview again (a staged open's final stage: hashes, providers, models). */
  setOverview(overview: ChainOverview): void {
    this.update({ overview })
    this.gaps.load()
  }

  dispose(): void {
    this.verifyJob.dispose()
    this.integrityJob.dispose()
    this.recovered.dispose()
    this.find.dispose()
    this.keyless.dispose()
    this.drift.dispose()
  }

  /** The app's notice (a copy's confirmation from the table). */
  readonly notify: Notify = (text, kind) => this.env.notify(text, kind)

  readonly dispatchView = (action: ViewAction): void => {
    this.update((s) => ({ view: viewReducer(s.view, action) }))
  }

  /**
   * Show a seq. One no live row holds (issue 35) shows what is known of it (the entry panel and the
   * table's gap row), or — when the files gave back a row at that seq — that row in the Recovered tab;
   * `[` / `]` then step to the live rows around it. When that is not known yet (a deep link opened
   * before the gaps or the verdict arrived) the view follows what arrives (`follow`).
   */
  readonly select = (seq: number, ns: string | null = null): void => {
    // Not followed while the selection itself changes (its own updates reach followUp).
    this.follow = null
    const found = this.recoveredAt(seq)
    if (found) this.recovered.select(found)
    const span = this.missingSpan(seq)
    this.update((s) => ({
      selected:
        s.selected && s.selected.seq === seq && (ns === null || s.selected.ns === ns)
          ? s.selected
          : { seq, ns: ns ?? (s.selected?.seq === seq ? s.selected.ns : null) },
      detailTab: found ? 'recovered' : 'entry',
      ...(span ? { neighbours: { prev: span.after, next: span.before } } : {}),
    }))
    // A live seq is an entry for good; otherwise what arrives may still say more of it.
    if (!found && this.gaps.isLive(seq, this.getState().overview) !== true) this.follow = seq
  }

  /** The first placed recovered row at a seq no live row holds (its rowKey), or null. */
  private recoveredAt(seq: number): string | null {
    return this.missingSpan(seq) ? this.recovered.placedKeyAt(seq) : null
  }

  /**
   * The seq selected before it was known to be missing or recovered: while the auditor stays on it
   * (same seq, the entry panel, nothing else chosen), the gaps, the verdict and the recovered rows
   * that arrive later move the view — its neighbours, and the Recovered tab at its row.
   */
  private follow: number | null = null

  private followUp(): void {
    const seq = this.follow
    const { selected, detailTab } = this.getState()
    if (seq === null) return
    if (selected?.seq !== seq || detailTab !== 'entry') {
      this.follow = null // the auditor has moved: nothing is yanked
      return
    }
    if (this.gaps.isLive(seq, this.getState().overview) === true) {
      this.follow = null // a live row: its entry, as selected
      return
    }
    const span = this.missingSpan(seq)
    if (span)
      this.update((s) =>
        s.neighbours.prev === span.after && s.neighbours.next === span.before
          ? {}
          : { neighbours: { prev: span.after, next: span.before } },
      )
    const found = this.recoveredAt(seq)
    if (!found) return
    this.follow = null
    this.recovered.select(found)
    this.update({ detailTab: 'recovered' })
  }

  /** The seqs no live row holds around `seq`, when it is one of them (null: live, or not known yet). */
  readonly missingSpan = (seq: number): GapSpan | null =>
    this.gaps.missingSpan(
      seq,
      this.getState().overview,
      this.getState().verdict ?? this.keyless.getState().verdict,
      this.recovered.getState().rows,
    )

  readonly selectRow = (r: EntrySummary): void => this.select(r.seq, r.timestamp_ns)
  readonly selectSeq = (seq: number): void => this.select(seq)

  readonly detailLoaded = (e: EntryDetail): void => {
    this.update((s) => ({
      neighbours: { prev: e.prev_seq, next: e.next_seq },
      selected:
        s.selected && s.selected.seq === e.seq && s.selected.ns === null
          ? { ...s.selected, ns: e.timestamp_ns }
          : s.selected,
    }))
  }

  readonly setDetailTab = (detailTab: DetailTab): void => {
    this.follow = null
    this.update({ detailTab })
  }

  /** A recovered row (from the timeline or a link): shown in the Recovered tab. */
  readonly showRecovered = (key: string): void => {
    this.follow = null
    this.recovered.select(key)
    this.update({ detailTab: 'recovered' })
  }
  readonly setReplayMode = (replayMode: ReplayTextMode): void => this.update({ replayMode })

  /** `[` / `]`: the previous or next entry of the one shown. */
  step(dir: -1 | 1): void {
    const { neighbours } = this.getState()
    const s = dir < 0 ? neighbours.prev : neighbours.next
    if (s !== null) this.select(s)
  }

  resetZoom(): void {
    this.dispatchView({ type: 'range', value: null })
  }

  private ownKeyCalls = 0 // this page's setSecrets calls not yet answered
  /**
   * New keys, added after the held keys named in `keep` (all of them from the form; removing one
   * keeps the others). A new key set makes the verdict and the key-dependent panels out of date: the
   * chain is verified again when a key is held, and the integrity monitor reruns with them.
   */
  readonly submitSecrets = async (secrets: SecretInput[], keep: number[] = []): Promise<void> => {
    this.update({ keysError: null })
    let keys: KeyInfo[]
    this.ownKeyCalls++
    try {
      keys = await this.api.setSecrets(keep.length > 0 ? { secrets, keep } : { secrets })
    } catch (e) {
      this.update({ keysError: errorMessage(e) })
      return
    } finally {
      this.ownKeyCalls--
    }
    this.keysReplaced(keys, null)
    if (keys.length > 0) await this.verify(undefined, true)
  }

  /**
   * The engine's keys were replaced by another tab or window (AppEvents.keysChanged; one key set
   * for all): when they are not the ones this page shows, what it shows under its keys (the verdict,
   * replay words, batch lines, a verify under way) is taken down, as after its own change, and the
   * page says so. Its own change arrives too: after its answer, with the keys it shows; before it,
   * left to the answer (taken twice, the integrity run the first started landed out of date). */
  readonly keysHeld = (keys: KeyInfo[]): void => {
    if (this.ownKeyCalls > 0) return
    const same = (a: KeyInfo, b: KeyInfo | undefined): boolean =>
      b !== undefined && a.index === b.index && a.fingerprint === b.fingerprint && a.encoding === b.encoding
    const shown = this.getState().keys
    if (keys.length === shown.length && keys.every((k, i) => same(k, shown[i]))) return
    this.keysReplaced(
      keys,
      'The keys were changed in another tab or window: this page shows the keys the engine holds now; verify again to see their verdict.',
    )
  }

  /** A new key set: the verdict and the key-dependent panels were the old keys'. */
  private keysReplaced(keys: KeyInfo[], keysNote: string | null): void {
    this.update((s) => ({
      keys,
      keysNote,
      keyGen: s.keyGen + 1,
      verdict: null,
      checkVersion: s.checkVersion + 1,
      flagVersion: s.flagVersion + 1,
    }))
    // The replay checks' row words ("row verifies … key #N") were the old keys': the engine words
    // them again with the keys now held; a batch's lines are taken down.
    this.reloadChecks()
    this.batch.keysChanged()
    // A run under way was started with the old keys: when it lands the panel marks it out of date.
    this.rerunIntegrity()
    // A verify under way is the old keys' (a key typed wrong, then right): stopped.
    if (this.verifyJob.running) this.verifyJob.cancel()
  }

  /** The keys of the chain shown before this one were cleared (keys belong to a chain): say so. */
  noteKeysCleared(previous: string, count: number): void {
    const name = previous.split(/[\\/]/).pop() ?? previous
    this.update({
      keysNote: `${count === 1 ? 'The key' : `The ${count} keys`} given for ${name} ${count === 1 ? 'was' : 'were'} cleared: keys belong to the chain they were given for. Enter this chain’s key.`,
    })
  }

  readonly verify = async (range?: VerifyRangeOptions, restart = false): Promise<void> => {
    if (this.verifyJob.running && !restart) return
    // The verdict is for the keys held when it was asked for: one landing after they were replaced
    // is not shown (the engine keeps it neither).
    const gen = this.getState().keyGen
    if (this.getState().keys.length === 0) {
      // Said where the auditor is looking, whichever Verify was used (header, shortcut, menu, panel):
      // the key field takes focus and a notice says what is missing; the engine's refusal still
      // shows under the panel's button.
      this.update((s) => ({ keyPrompt: s.keyPrompt + 1 }))
      this.env.notify('Enter the chain secret to verify: the key field is ready', 'error')
    }
    const v = await this.verifyJob.run(() => this.api.startVerify(range ? { range } : {}))
    if (this.getState().keyGen !== gen) return
    if (v)
      this.update((s) => ({ verdict: v, checkVersion: s.checkVersion + 1, flagVersion: s.flagVersion + 1 }))
    const error = this.verifyJob.getState().error
    if (v) announcer.announce(verdictSentence(v))
    else if (error) announcer.announce(jobEndSentence('Verification', error))
  }

  readonly runIntegrity = async (opts: IntegrityOptions): Promise<void> => {
    this.update({ integrityError: null })
    const gen = this.getState().keyGen
    const adopt = (r: IntegrityRun): void =>
      this.update((s) => ({
        integrity: r,
        integrityOpts: opts,
        integrityKeyGen: gen,
        flagVersion: s.flagVersion + 1,
      }))
    if (opts.all) {
      const r = await this.integrityJob.run(() => this.api.startIntegrity(opts))
      const error = this.integrityJob.getState().error
      if (r) {
        adopt(r)
        announcer.announce(integritySentence(r))
      } else if (error) announcer.announce(jobEndSentence('Integrity monitor', error))
      return
    }
    this.update({ integrityBusy: true })
    try {
      const r = await this.api.runIntegrity(opts)
      adopt(r)
      announcer.announce(integritySentence(r))
    } catch (e) {
      this.update({ integrityError: errorMessage(e) })
    } finally {
      this.update({ integrityBusy: false })
    }
  }

  /** Audit → Run integrity monitor: again, with the window and thresholds of the last run. */
  rerunIntegrity(): void {
    if (this.getState().integrityBusy || this.integrityJob.running) return
    void this.runIntegrity(this.getState().integrityOpts)
  }

  /** The session's replay checks as the engine words them now: each with the keys held. */
  private reloadChecks(): void {
    const gen = this.getState().keyGen
    const take = (checks: ReplayCheck[]): void =>
      void (this.getState().keyGen === gen && this.update({ checks }))
    this.api.listReplayChecks().then(take, ignore)
  }

  readonly runReplay = async (req: ReplayCheckRequest): Promise<void> => {
    this.update({ replayBusy: true, replayError: null })
    const gen = this.getState().keyGen
    try {
      const c = await this.api.checkReplay(req)
      // Keys replaced while it ran: its answer has the old keys' row words; the engine's list is new.
      if (this.getState().keyGen !== gen) this.reloadChecks()
      this.update((s) => ({ checks: s.keyGen === gen ? [...s.checks, c] : s.checks, detailTab: 'entry' }))
    } catch (e) {
      this.update({ replayError: errorMessage(e) })
    } finally {
      this.update({ replayBusy: false })
    }
  }

  readonly replayFile = async (seq: number, file: File): Promise<void> => {
    if (file.size > MAX_REPLAY_BYTES) {
      this.update({
        replayError: `${file.name} is ${file.size} bytes: replay files above 64 MiB are not read`,
      })
      return
    }
    try {
      const b64 = await readFileBase64(file)
      await this.runReplay({ seq, file_base64: b64, file_name: file.name, mode: this.getState().replayMode })
    } catch (e) {
      this.update({ replayError: errorMessage(e) })
    }
  }

  /**
   * Several files (or a folder's) dropped on the window: a batch. Files named by seq go to their
   * entries, the others wait in the replay panel for a seq.
   */
  dropReplays(files: File[]): void {
    this.update({ detailTab: 'replays' })
    void this.batch.drop(files)
  }

  /** A replay file dropped on the window: checked against the selected entry (a JSONL file: a batch). */
  dropReplay(file: File): void {
    if (isJsonlName(file.name)) {
      void this.batch.drop([file])
      return
    }
    const { selected } = this.getState()
    if (!selected) {
      this.env.notify(`Select an entry first, or drop ${file.name} on a row`, 'error')
      return
    }
    void this.replayFile(selected.seq, file)
  }

  private readonly reportEnv = (): ReportActionEnv => ({
    api: this.api,
    hasDialogs: this.env.hasDialogs,
    notify: this.env.notify,
    integrity: () => this.getState().integrityOpts,
    exporting: (exporting) => this.update({ exporting }),
  })

  /** The report saved (desktop) or downloaded (web): report-actions.ts. */
  readonly exportReport = (format: ReportFormat = 'json'): Promise<void> =>
    exportReport(this.reportEnv(), format)

  readonly copyReport = (): Promise<void> => copyReport(this.reportEnv())
}
