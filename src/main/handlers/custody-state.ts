// What the app keeps for chain of custody (issue 25), per session and in the main process only: the
// report-signing key (its private half never leaves this process) and the prior the next verify
// compares with, tied to the chain it was chosen for.
import type { KeyObject } from 'node:crypto'
import type { PriorInfo, SigningKeyInfo } from '../../shared/custody-types'
import type { PriorHead } from '../../shared/verify-types'
import type { AuditSession } from './session'

export interface CustodyState {
  signing: { key: KeyObject; info: SigningKeyInfo } | null
  prior: { head: PriorHead; info: PriorInfo; chainPath: string } | null
}

const states = new WeakMap<AuditSession, CustodyState>()

export function custodyOf(session: AuditSession): CustodyState {
  let s = states.get(session)
  if (!s) states.set(session, (s = { signing: null, prior: null }))
  return s
}

/** The open chain's evidence path (the prior applies to that chain only), or null. */
export function openChainPath(session: AuditSession): string | null {
  try {
    return session.current()?.overview.evidence.db.path ?? null
  } catch {
    return null
  }
}

/** The prior for the chain open now (a prior chosen for another chain is not applied). */
export function priorFor(session: AuditSession): PriorHead | undefined {
  const p = custodyOf(session).prior
  return p && p.chainPath === openChainPath(session) ? p.head : undefined
}
