// The handlers of the HMAC keys held for the open chain: replaced from the local app only, listed by
// index, encoding, size and fingerprint (never the secret itself).
import type { ApiName, SecretInput } from '../../shared/contract'
import { AuditError } from '../base/errors'
import { keyInfo, parseSecrets } from '../chain/keys'
import type { AuditSession } from '../session/session'
import type { HandlerTable } from './handler-types'
import { obj, optEnum, requireTrusted, str } from './validate'

type KeyCall = Extract<ApiName, 'setSecrets' | 'listKeys'>

export function keyHandlers(session: AuditSession): Pick<HandlerTable, KeyCall> {
  return {
    setSecrets: async (req, ctx) => {
      requireTrusted(ctx, 'a secret')
      const list = obj(req)['secrets']
      if (!Array.isArray(list) || list.length > 32)
        throw new AuditError('bad_argument', 'secrets must be an array of at most 32 entries')
      const inputs: SecretInput[] = list.map((s) => {
        const o = obj(s)
        const encoding = optEnum(o, 'encoding', ['hex', 'text'] as const) ?? 'hex'
        return { encoding, value: str(o, 'value', 4096) }
      })
      // `keep`: the held keys (by their index) that stay, first and in their order; the new ones
      // follow. Adding a rotated key never drops one the auditor did not remove (issue 35).
      const keepRaw = obj(req)['keep'] ?? []
      if (
        !Array.isArray(keepRaw) ||
        keepRaw.length > 32 ||
        !keepRaw.every((v) => Number.isSafeInteger(v)) ||
        new Set(keepRaw).size !== keepRaw.length
      )
        throw new AuditError('bad_argument', 'keep must be an array of distinct key indexes')
      const keep = keepRaw.map((v: number) => {
        const k = session.keys.find((x) => x.index === v)
        if (!k)
          throw new AuditError(
            'bad_argument',
            `no key #${Number(v) + 1} is held (keys are cleared when the chain changes)`,
          )
        return k
      })
      if (keep.length + inputs.length > 32) throw new AuditError('bad_argument', 'at most 32 keys')
      let added
      try {
        added = parseSecrets(inputs)
      } catch (e) {
        // The page's words: the encoding is chosen beside the field, not with a command-line flag.
        if (e instanceof AuditError && e.code === 'bad_secret')
          throw new AuditError(
            'bad_secret',
            e.message.replace(/; use --secret-text.*$/, '; choose "text" beside it for a raw UTF-8 secret'),
          )
        throw e
      }
      session.replaceKeys([...keep, ...added].map((k, index) => ({ ...k, index })))
      session.setVerdict(null)
      return session.keys.map(keyInfo)
    },
    listKeys: async () => session.keys.map(keyInfo),
  }
}
