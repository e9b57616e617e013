// Where the CLI takes HMAC keys from. A key given on the command line (--secret-hex, --secret-text)
// is readable by every local user in the process list (/proc/<pid>/cmdline, `ps`) for as long as the
// command runs, and stays in the shell's history; --secret-file and --secret-stdin keep it off both.
import { readClientFileOrPipe } from '../base/client-file'
import type { SecretInput } from '../../shared/contract'
import { AuditError, oneLine } from '../base/errors'
import { KEY_LIST_MAX_BYTES, parseKeyList } from '../chain/key-list'
import type { Options, Values } from './args'
import type { CliIO } from './io'

export const SECRET_OPTIONS: Options = {
  'secret-hex': { type: 'string', multiple: true },
  'secret-text': { type: 'string', multiple: true },
  'secret-file': { type: 'string', multiple: true },
  'secret-stdin': { type: 'boolean' },
}

function strings(v: unknown): string[] {
  if (v === undefined) return []
  return (Array.isArray(v) ? v : [v]).filter((x): x is string => typeof x === 'string')
}

/**
 * The bytes of a key file named after `option` (a pipe such as `<(pass show key)` too), read by the
 * one open step for client files: at most KEY_LIST_MAX_BYTES + 1 (more is refused by the caller).
 */
export function readBounded(path: string, option: string): Buffer {
  return readClientFileOrPipe(path, {
    label: option,
    maxBytes: KEY_LIST_MAX_BYTES,
    code: 'bad_secret',
    missingCode: 'bad_secret',
    tooLarge: () =>
      new AuditError('bad_secret', `${option} ${path}: over ${KEY_LIST_MAX_BYTES} bytes, not a key file`),
  })
}

/**
 * A one-line secret kept in a file (`serve --api-key-file`): the file's text without its final line
 * ending. Refused when empty, over one line, or not UTF-8 text; the error never shows the content.
 */
export function readOneLineSecret(path: string, option: string): string {
  const data = readBounded(path, option)
  const label = `${option} ${path}`
  if (data.length > KEY_LIST_MAX_BYTES || data.includes(0))
    throw new AuditError('bad_secret', `${label}: not a key file`)
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(data)
  } catch {
    throw new AuditError('bad_secret', `${label}: not UTF-8 text`)
  }
  const value = text.replace(/\r?\n$/, '')
  if (value === '') throw new AuditError('bad_secret', `${label}: the file is empty`)
  if (/[\r\n]/.test(value)) throw new AuditError('bad_secret', `${label}: the key must be one line`)
  return value
}

/**
 * Candidate keys in a fixed order: every --secret-hex, every --secret-text, the keys of each
 * --secret-file in the order given, then those of --secret-stdin. BIJOTEL_HMAC_SECRET (hex, as
 * Python reads it) is used only when none of them gave a key and `useEnv` is set.
 */
export async function secretInputsFrom(
  values: Values,
  io: CliIO,
  opts: { useEnv: boolean },
): Promise<SecretInput[]> {
  const out: SecretInput[] = [
    ...strings(values['secret-hex']).map((value) => ({ encoding: 'hex' as const, value })),
    ...strings(values['secret-text']).map((value) => ({ encoding: 'text' as const, value })),
  ]
  // An empty flag is most often a shell variable that did not expand: never fall back to another key.
  for (const s of out)
    if (s.value === '') throw new AuditError('no_secret', `an empty --secret-${s.encoding} was given`)
  for (const path of strings(values['secret-file'])) {
    out.push(...parseKeyList(readBounded(path, '--secret-file'), `--secret-file ${path}`))
  }
  if (values['secret-stdin'] === true) {
    let data: Buffer
    try {
      data = await io.readStdin(KEY_LIST_MAX_BYTES + 1)
    } catch (e) {
      throw new AuditError('bad_secret', `--secret-stdin: cannot read stdin (${oneLine(e)})`)
    }
    out.push(...parseKeyList(data, '--secret-stdin'))
  }
  if (out.length === 0 && opts.useEnv && io.env['BIJOTEL_HMAC_SECRET'])
    out.push({ encoding: 'hex', value: io.env['BIJOTEL_HMAC_SECRET'] })
  return out
}
