// Main → renderer events: the one-way messages the engine and the desktop shell send to the
// renderer, typed here beside the calls of contract.ts (as GitHub Desktop's ipc-shared.ts types its
// one-way channels). One map (name → payload), one runtime list of names with a compile-time proof
// that it is complete, one IPC channel (the preload carries every event on it), and in web mode the
// server's event stream (`GET /api/events`, Server-Sent Events: `event: <name>`, `data: <payload>`).
// The renderer handles every name: its handler table is an `AppEventHandlers`, so the compiler
// refuses an event without a handler.
// Adding an event: add it to AppEvents and APP_EVENTS, send it, handle it in the renderer.
import type { ChainOverview } from './chain-types'
import type { KeyInfo } from './verify-types'
import type { PriorInfo } from './custody-types'

/** Which chain the engine holds: everything the renderer shows belongs to exactly one of these. */
export interface ChainIdentity {
  /**
   * Counts the engine's opens. Two opens of one file are two chains: each starts without keys'
   * verdict, integrity run or replay checks, so nothing from the first may be shown for the second.
   */
  open_id: number
  /** chain.db as opened (the evidence panel's path). */
  path: string
  /** SHA-256 of chain.db; null while a staged open is still making the copy and the hashes. */
  sha256: string | null
}

/** The chain the engine holds and its overview, read in one call (`currentChain`). */
export interface ChainState {
  chain: ChainIdentity
  overview: ChainOverview
  /** The row to show first, when this open asked for one (openChain's focus_seq, `--seq N`). */
  focus_seq?: number
  /**
   * The prior the engine holds for this open, read with it: a page loaded after it was set (a
   * reload, another tab, the desktop window reloaded) shows it, where the connect-time priorChanged
   * arrived before the page had a workspace to show it in and was dropped (absent: none).
   */
  prior?: PriorInfo | null
}

export interface AppEvents {
  /**
   * The chain the engine holds changed: opened (by any transport, Open Recent, a second instance),
   * replaced, its staged open finished (same open_id, sha256 now known), or closed (null). The
   * renderer drops what it shows of any other chain and reads everything again.
   */
  chainChanged: { chain: ChainIdentity | null }
  /**
   * The keys held were replaced (by any tab or window: the engine holds one key set for all). A
   * verdict, replay words or batch lines a page shows were made under the keys held before; a page
   * whose key list differs from `keys` takes them down and shows these keys (fingerprints only).
   */
  keysChanged: { keys: KeyInfo[] }
  /**
   * The prior the next verify compares with was set or cleared (by any tab or window), or is the one
   * held when a page connects: every page shows the prior the engine will apply, never none while
   * one is held.
   */
  priorChanged: { prior: PriorInfo | null }
  /** An open the shell started itself (Open Recent, a second instance) failed: the one-line reason. */
  openFailed: { path: string; message: string }
  /**
   * A report was signed with the auditor's key (any transport, any tab): every signature made is
   * announced, so none is made unseen ("report signed with key <fingerprint>").
   */
  reportSigned: { fingerprint: string; generated_at: string }
  /** File → Open…: the native dialog (desktop) or the path box (web). */
  menuOpen: null
  /** File → Close chain. */
  menuClose: null
  /** File → Export integrity report…. */
  menuExport: null
  /** File → Copy report as JSON. */
  menuCopyReport: null
  /** Audit → Verify chain. */
  menuVerify: null
  /** Audit → Run integrity monitor (with the panel's window and thresholds). */
  menuIntegrity: null
}

export type AppEventName = keyof AppEvents

/** One event as it travels: `{ name, payload }`, a union discriminated by name. */
export type AppEvent = { [E in AppEventName]: { name: E; payload: AppEvents[E] } }[AppEventName]

/** The menu's events: the commands the desktop menu sends. */
export type MenuCommand = Extract<AppEventName, `menu${string}`>

/** A handler for every event: an object of this type cannot leave one out. */
export type AppEventHandlers = { [E in AppEventName]: (payload: AppEvents[E]) => void }

/** Runtime list of event names (the preload and the web event stream accept only these). */
export const APP_EVENTS = [
  'chainChanged',
  'keysChanged',
  'priorChanged',
  'openFailed',
  'reportSigned',
  'menuOpen',
  'menuClose',
  'menuExport',
  'menuCopyReport',
  'menuVerify',
  'menuIntegrity',
] as const satisfies readonly AppEventName[]

// Compile-time proof that APP_EVENTS names every event of the map, no more, no less.
type MissingEvent = Exclude<AppEventName, (typeof APP_EVENTS)[number]>
const _eventsExhaustive: MissingEvent extends never ? true : MissingEvent = true
void _eventsExhaustive

/** The one IPC channel of main → renderer events (the calls use IPC_CHANNEL). */
export const APP_EVENT_CHANNEL = 'bijotel:event'

/** Where the web event stream is served. */
export const APP_EVENTS_PATH = '/api/events'
