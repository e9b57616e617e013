// The replay verdict as `bijotel replay` prints it (reference §6.4), plus the extra checks.
import type { ReplayCheck, ReplayResult } from '../../../shared/replay-types'
import { replayBlockLines } from '../../../shared/replay-lines'

export function pyBool(v: boolean): string {
  return v ? 'True' : 'False'
}

/** The CLI's lines, exactly (one spelling: shared/replay-lines.ts). */
export function replayCliLines(seq: number, r: ReplayResult): string[] {
  return replayBlockLines(seq, r)
}

export function rowVerifiedLabel(c: ReplayCheck): string {
  if (c.row_verified === null) return 'not checked (no key)'
  return c.row_verified ? 'row verifies' : 'ROW DOES NOT VERIFY'
}

export function promptLabel(c: ReplayCheck): string {
  if (c.prompt_match === null) return c.prompt_detail ?? 'no prompt given'
  return c.prompt_match ? 'prompt matches prompt_hash' : 'PROMPT DOES NOT MATCH prompt_hash'
}

/** Bytes of a File as base64 (FileReader, chunk-free: the data URL is cut after the comma). */
export function readFileBase64(file: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const r = new FileReader()
    r.onerror = () => reject(r.error ?? new Error('cannot read the file'))
    r.onload = () => {
      const url = typeof r.result === 'string' ? r.result : ''
      const comma = url.indexOf(',')
      resolve(comma >= 0 ? url.slice(comma + 1) : '')
    }
    r.readAsDataURL(file)
  })
}

/** A dropped file that looks like a chain database rather than a replay text. */
export function looksLikeChain(name: string): boolean {
  return /\.(db|sqlite|sqlite3|db3)$/i.test(name)
}
