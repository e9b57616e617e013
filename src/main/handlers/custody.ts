// The contract's chain-of-custody calls (issue 25): the signing key chosen in the app (read and kept
// here, in the main process), "compare with an earlier report…" (the prior of the next verify),
// "Check a report…" (report verify against the open chain), and the report as an HTML page.
import { createPublicKey } from 'node:crypto'
import { resolve } from 'node:path'
import type { PriorInfo, SigningKeyInfo } from '../../shared/custody-types'
import type { ApiName } from '../../shared/contract'
import type { PriorHead } from '../../shared/verify-types'
import { checkReport } from '../audit/check-report'
import { fingerprintOf, loadPrivateKey, publicKeyFromPem, rawPublicKey } from '../custody/ed25519'
import { renderReportHtml } from '../custody/html/render'
import { requirePriorOfOpenChain } from '../audit/prior-chain'
import { parseReportText, priorFrom, readReportFile, type ReadReport } from '../custody/report-file'
import { AuditError } from '../base/errors'
import { announcePrior, custodyOf, openChainId } from '../session/custody-state'
import { buildReportFor, maySign } from './engine'
import type { AuditSession } from '../session/session'
import type { CallContext, HandlerTable, Platform } from './handler-types'
import { integrityOptionsFrom } from './integrity'
import { obj, optBool, optObj, optStr, requireTrusted } from './validate'
import { openRefusal, refusalMessage } from './open-refusal'

export type CustodyCall = Extract<
  ApiName,
  'buildReportHtml' | 'setSigningKey' | 'pickSigningKey' | 'signingKey' | 'setPrior' | 'checkReport'
>

/** Report text up to the HTTP body limit's size; a path is read in the main process. */
const MAX_TEXT = 64 * 1024 * 1024

/**
 * The auditor's signing key, read from `path` (the desktop dialog's choice, or `serve --sign-key`)
 * through the one client-file open, and held by the session from now on.
 */
export function setSigningKeyFrom(session: AuditSession, path: string): SigningKeyInfo {
  const key = loadPrivateKey(path)
  const pub = createPublicKey(key)
  const info = { fingerprint: fingerprintOf(pub), public_key: rawPublicKey(pub).toString('base64'), path }
  custodyOf(session).signing = { key, info }
  return info
}

function priorInfo(head: PriorHead): PriorInfo {
  return {
    kind: head.source?.kind ?? 'verdict',
    last_seq: head.last_seq,
    head_hmac: head.head_hmac,
    rows: head.rows?.count ?? null,
    generated_at: head.source?.generated_at ?? null,
    signed_by: head.source?.signed_by ?? null,
  }
}

export function custodyHandlers(session: AuditSession, platform: Platform): Pick<HandlerTable, CustodyCall> {
  /** A report given as text, or by a path the transport may read (web mode: under --open-root). */
  const readGiven = (req: unknown, ctx: CallContext, what: string): ReadReport => {
    const o = obj(req)
    const text = optStr(o, 'text', MAX_TEXT)
    const path = optStr(o, 'path', 4096)
    if ((text === undefined) === (path === undefined))
      throw new AuditError('bad_argument', `give exactly one of text or path for the ${what}`)
    if (text !== undefined) return parseReportText(text, what)
    if (ctx.transport === 'http') {
      // The page's words for why (issue 35); the read below is the one open, under the same policy.
      const roots = (session.options.openRoots ?? []).map((r) => resolve(r))
      const refused = openRefusal(path!, session.openPolicy())
      if (refused) throw new AuditError('bad_argument', refusalMessage(refused, path!, roots, 'file'))
    }
    // Resolved, opened and checked once (web mode: under the open roots), read through that
    // descriptor only: no check of one file and read of another (issue 34).
    return readReportFile(path!, what, ctx.transport === 'http' ? session.openPolicy() : undefined)
  }

  return {
    buildReportHtml: async (req, ctx) => {
      const opts = integrityOptionsFrom(optObj(obj(req), 'integrity'))
      const report = await buildReportFor(session, opts, maySign(ctx))
      return {
        html: renderReportHtml(report),
        file_name: `bijotel-report-${report.generated_at.replace(/[:.]/g, '-')}.html`,
      }
    },
    setSigningKey: async (req, ctx) => {
      // The key belongs to the auditor: web mode takes it on the command line only (serve
      // --sign-key), the desktop app in its own dialog; no path string from a page (issue 34).
      if (ctx.transport === 'http')
        throw new AuditError(
          'bad_argument',
          'the signing key is the one this server was started with; it is never set, replaced or removed over HTTP',
        )
      requireTrusted(ctx, 'a signing key')
      const o = obj(req)
      if (o['path'] === null) {
        custodyOf(session).signing = null
        return null
      }
      throw new AuditError(
        'bad_argument',
        'choose the signing key in the dialog (pickSigningKey), not by a path',
      )
    },
    pickSigningKey: async (_req, ctx) => {
      if (ctx.transport === 'http')
        throw new AuditError(
          'bad_argument',
          'the signing key is the one this server was started with; it is never set over HTTP',
        )
      requireTrusted(ctx, 'a signing key')
      if (!platform.pickKeyPath) throw new AuditError('bad_argument', 'no file dialog here')
      const p = await platform.pickKeyPath()
      // Cancelling the dialog keeps the key chosen before, if any.
      return p === null ? (custodyOf(session).signing?.info ?? null) : setSigningKeyFrom(session, p)
    },
    signingKey: async () => custodyOf(session).signing?.info ?? null,
    setPrior: async (req, ctx) => {
      const state = custodyOf(session)
      if (optBool(obj(req), 'clear')) {
        state.prior = null
        announcePrior(session)
        return null
      }
      const openId = openChainId(session)
      if (openId === null)
        throw new AuditError('no_chain', 'open the chain first: a prior belongs to one chain')
      const read = readGiven(req, ctx, 'prior')
      const head = priorFrom(read, 'prior')
      // A prior of another chain is refused here, in the words `verify --prior` uses.
      await requirePriorOfOpenChain((await session.ready()).chain, head, session.keys)
      const info = priorInfo(head)
      state.prior = { head, info, openId }
      announcePrior(session)
      return info
    },
    checkReport: async (req, ctx) => {
      const o = obj(req)
      const pem = optStr(o, 'public_key_pem', 64 * 1024)
      const read = readGiven(req, ctx, 'report')
      const opened = await session.ready()
      const dbPath = opened.overview.evidence.db.path
      return checkReport({
        read,
        reportPath: optStr(o, 'path', 4096) ?? 'report',
        dbPath,
        chain: opened.chain,
        keys: session.keys,
        ...(pem !== undefined ? { publicKey: publicKeyFromPem(pem) } : {}),
      })
    },
  }
}
