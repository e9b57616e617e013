// What the app keeps for chain of custody (issue 25), per session and in the main process only: the
// report-signing key (its private half never leaves this process) and the prior the next verify
// compares with, tied to the chain it was chosen for: one open of it (the session's open_id, the
// chain identity the renderer keys its workspace by), so a prior never outlives the workspace that
// shows it.
import type { KeyObject } from 'node:crypto'
import type { PriorInfo, SigningKeyInfo } from '../../shared/custody-types'
import type { PriorHead } from '../../shared/verify-types'
import type { AuditSession } from './session'

/** One signature made with the auditor's key: every one is announced (issue 34). */
export interface SignedReport {
  fingerprint: string
  generated_at: string
}

export interface CustodyState {
  signing: { key: KeyObject; info: SigningKeyInfo } | null
  prior: { head: PriorHead; info: PriorInfo; openId: number } | null
  /** Told of every report signed (the UI's event, the server's stderr line). */
  readonly signedListeners: Set<(signed: SignedReport) => void>
  /** Told whenever a caller sets or clears the prior (every page shows the one the engine holds). */
  readonly priorListeners: Set<(prior: PriorInfo | null) => void>
}

const states = new WeakMap<AuditSession, CustodyState>()

export function custodyOf(session: AuditSession): CustodyState {
  let s = states.get(session)
  if (!s)
    states.set(
      session,
      (s = { signing: null, prior: null, signedListeners: new Set(), priorListeners: new Set() }),
    )
  return s
}

/** Listen to the signatures made with the auditor's key; returns the unsubscribe. */
export function onReportSigned(session: AuditSession, listener: (signed: SignedReport) => void): () => void {
  const set = custodyOf(session).signedListeners
  set.add(listener)
  return () => set.delete(listener)
}

export function announceSigned(session: AuditSession, signed: SignedReport): void {
  for (const l of [...custodyOf(session).signedListeners]) {
    try {
      l(signed)
    } catch {
      // A closed window or stream must not stop the report.
    }
  }
}

/** The open id of the chain held now, or null. */
export function openChainId(session: AuditSession): number | null {
  return session.identity()?.open_id ?? null
}

/** The prior for the chain open now (a prior chosen for another chain, or another open, is not applied). */
export function priorFor(session: AuditSession): PriorHead | undefined {
  const p = custodyOf(session).prior
  return p && p.openId === openChainId(session) ? p.head : undefined
}

/** The prior applied to the next verify of the chain open now, as a page shows it (null: none). */
export function heldPrior(session: AuditSession): PriorInfo | null {
  const p = custodyOf(session).prior
  return p && p.openId === openChainId(session) ? p.info : null
}

/** Listen to the prior being set or cleared (by any tab or window); returns the unsubscribe. */
export function onPriorChanged(
  session: AuditSession,
  listener: (prior: PriorInfo | null) => void,
): () => void {
  const set = custodyOf(session).priorListeners
  set.add(listener)
  return () => set.delete(listener)
}

export function announcePrior(session: AuditSession): void {
  const prior = heldPrior(session)
  for (const l of [...custodyOf(session).priorListeners]) {
    try {
      l(prior)
    } catch {
      // A closed window or stream must not stop the call.
    }
  }
}
