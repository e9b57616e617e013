// The handlers that open, name and close the chain: the app's facts, the open (web mode: only under
// --open-root, through the open step's policy), the desktop dialog, the overview and the chain held.
import { resolve } from 'node:path'
import type { ApiName, AppInfo } from '../../shared/contract'
import { AuditError } from '../base/errors'
import { TOOL_NAME, TOOL_VERSION } from '../base/version'
import type { AuditSession } from '../session/session'
import { heldPrior } from '../session/custody-state'
import type { CallContext, HandlerTable, Platform } from './handler-types'
import { openRefusal, refusalMessage } from './open-refusal'
import { obj, optInt, str } from './validate'

type OpenCall = Extract<
  ApiName,
  'appInfo' | 'openChain' | 'pickAndOpenChain' | 'closeChain' | 'overview' | 'currentChain'
>

export function openHandlers(session: AuditSession, platform: Platform): Pick<HandlerTable, OpenCall> {
  const openPath = async (path: string, ctx: CallContext) => {
    if (ctx.transport !== 'http') return session.open(path)
    const roots = (session.options.openRoots ?? []).map((r) => resolve(r))
    const refused = openRefusal(path, session.openPolicy())
    if (refused) throw new AuditError('bad_argument', refusalMessage(refused, path, roots))
    // The check above gives the usual message early; the open step applies the same policy to the
    // chain and every side file on the paths it opened (issue 29: no check-then-open by name).
    return session.open(path, undefined, { policy: session.openPolicy() })
  }

  return {
    appInfo: async (_req, ctx): Promise<AppInfo> => ({
      name: TOOL_NAME,
      version: TOOL_VERSION,
      transport: ctx.transport,
      can_open_paths: ctx.transport === 'ipc' || (session.options.openRoots?.length ?? 0) > 0,
      has_dialogs: platform.pickOpenPath !== undefined,
      initial_path: session.options.initialPath ?? null,
      initial_seq: session.options.initialSeq ?? null,
      sample_path: session.options.samplePath ?? null,
      recent_paths: ctx.transport === 'ipc' ? session.recent : [],
      open_roots: ctx.transport === 'ipc' ? [] : (session.options.openRoots ?? []).map((r) => resolve(r)),
    }),
    openChain: async (req, ctx) => {
      const o = obj(req)
      const focus = optInt(o, 'focus_seq')
      const overview = await openPath(str(o, 'path', 4096), ctx)
      // Set in the same turn as the open's announcement: the page's currentChain comes after it.
      const id = session.identity()
      session.focus = focus !== undefined && id ? { open_id: id.open_id, seq: focus } : null
      return overview
    },
    pickAndOpenChain: async () => {
      if (!platform.pickOpenPath) throw new AuditError('bad_argument', 'no file dialog in web mode')
      const p = await platform.pickOpenPath()
      return p === null ? null : session.open(p)
    },
    closeChain: async () => {
      session.close()
      return null
    },
    overview: async () => session.current()?.overview ?? null,
    currentChain: async () => {
      // Read together, synchronously: the identity always names the overview beside it.
      const view = session.current()
      const chain = session.identity()
      if (!view || !chain) return null
      const focus = session.focus?.open_id === chain.open_id ? session.focus.seq : undefined
      return {
        chain,
        overview: view.overview,
        ...(focus !== undefined ? { focus_seq: focus } : {}),
        prior: heldPrior(session),
      }
    },
  }
}
