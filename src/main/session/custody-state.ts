// What the app keeps for chain of custody (issue 25), per session and in the main process only: the
// report-signing key (its private half never leaves this process) and the prior the next verify
// compares with, tied to the chain it was chosen for: one open of it (the session's open_id, the
// chain identity the renderer keys its workspace by), so a prior never outlives the workspace that
// shows it.
import type { KeyObject } from 'node:crypto'
import type { PriorInfo, SigningKeyInfo } from '../../shared/custody-types'
import type { PriorHead } from '../../shared/verify-types'
import type { AuditSession } from './session'

export interface CustodyState {
  signing: { key: KeyObject; info: SigningKeyInfo } | null
  prior: { head: PriorHead; info: PriorInfo; openId: number } | null
}

const states = new WeakMap<AuditSession, CustodyState>()

export function custodyOf(session: AuditSession): CustodyState {
  let s = states.get(session)
  if (!s) states.set(session, (s = { signing: null, prior: null }))
  return s
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
