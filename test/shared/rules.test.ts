// The runtime lists in src/shared are the one statement of each rule: every side that checks or
// shows it (the engine, the CLI flags and help, the handler table, the renderer) must accept and
// refuse exactly what the list says. Generated over every threshold and bound, each probed at its
// edge, just past it, and with a non-integer where an integer belongs.
import { describe, expect, it } from 'vitest'
import { API_ERROR_CODES, isApiErrorCode } from '../../src/shared/api-errors'
import { CHAIN_COLUMNS } from '../../src/shared/chain-columns'
import { DRIFT_DIMENSIONS, DRIFT_WINDOW } from '../../src/shared/drift-rules'
import { DEFAULT_THRESHOLDS, INTEGRITY_WINDOW, THRESHOLD_RULES } from '../../src/shared/integrity-rules'
import { AuditError } from '../../src/main/base/errors'
import { STORED_SCHEMA } from '../../src/main/chain/schema'
import { DIMENSIONS } from '../../src/main/drift/dimensions'
import { checkWindow, resolveThresholds } from '../../src/main/integrity/thresholds'
import {
  INTEGRITY_OPTIONS_HELP,
  integrityOptionsFromFlags as cliOptions,
} from '../../src/main/cli/commands/integrity-options'
import { integrityOptionsFrom as callOptions } from '../../src/main/handlers/integrity'
import { THRESHOLD_LABELS, WINDOW_MAX, WINDOW_MIN } from '../../src/renderer/src/lib/integrity'
import { DRIFT_WINDOW_MAX, DRIFT_WINDOW_MIN } from '../../src/renderer/src/lib/drift'

const refused = (f: () => unknown): boolean => {
  try {
    f()
    return false
  } catch (e) {
    expect(e).toBeInstanceOf(AuditError)
    return true
  }
}

describe('integrity thresholds: one list, three gates that agree', () => {
  it('the defaults are the reference’s constants (§5.1)', () => {
    expect(DEFAULT_THRESHOLDS).toEqual({
      burst_threshold: 10,
      large_gap_sec: 3600,
      provider_shift_pct: 20,
      rate_tol: 0.5,
      min_split_size: 10,
    })
    expect(Object.keys(THRESHOLD_LABELS).sort()).toEqual(THRESHOLD_RULES.map((r) => r.key).sort())
  })

  for (const r of THRESHOLD_RULES) {
    const probes: [number, boolean][] = [
      [r.min, true],
      [r.min + 7, true],
      [r.min - 1, false],
      [r.integer ? r.min + 0.5 : r.min + 0.25, !r.integer],
      [r.default, true],
    ]
    for (const [v, ok] of probes)
      it(`${r.key} = ${v}: ${ok ? 'accepted' : 'refused'} by the engine, the CLI and the handler table`, () => {
        expect(refused(() => resolveThresholds({ [r.key]: v }))).toBe(!ok)
        expect(refused(() => cliOptions({ [r.flag]: String(v) }))).toBe(!ok)
        expect(refused(() => callOptions({ thresholds: { [r.key]: v } }))).toBe(!ok)
      })
    it(`--${r.flag}'s help line names the default`, () => {
      expect(INTEGRITY_OPTIONS_HELP).toContain(`--${r.flag} ${r.metavar}`)
      expect(INTEGRITY_OPTIONS_HELP).toContain(`${r.help} (default ${r.defaultText})`)
      expect(Number(r.defaultText)).toBe(r.default)
    })
  }

  for (const [w, ok] of [
    [INTEGRITY_WINDOW.min, true],
    [INTEGRITY_WINDOW.max, true],
    [INTEGRITY_WINDOW.min - 1, false],
    [INTEGRITY_WINDOW.max + 1, false],
  ] as const)
    it(`window ${w}: ${ok ? 'accepted' : 'refused'} everywhere`, () => {
      expect(refused(() => checkWindow(w))).toBe(!ok)
      expect(refused(() => cliOptions({ window: String(w) }))).toBe(!ok)
      expect(refused(() => callOptions({ window: w }))).toBe(!ok)
      expect(w >= WINDOW_MIN && w <= WINDOW_MAX).toBe(ok)
    })
})

describe('the other lists', () => {
  it('drift: the engine and the renderer use the shared dimensions and window', () => {
    expect(DIMENSIONS).toBe(DRIFT_DIMENSIONS)
    expect([DRIFT_WINDOW_MIN, DRIFT_WINDOW_MAX]).toEqual([DRIFT_WINDOW.min, DRIFT_WINDOW.max])
  })
  it('error codes: only the listed ones pass the client’s check', () => {
    for (const c of API_ERROR_CODES) expect(isApiErrorCode(c)).toBe(true)
    for (const c of ['db_missing', 'INTERNAL', '', 'not_found ', null, 3, {}])
      expect(isApiErrorCode(c)).toBe(false)
  })
  it('chain columns: exactly the reference schema’s columns, in its order', () => {
    const sql = STORED_SCHEMA['chain']!
    const declared = [...sql.matchAll(/^\s*(\w+)\s+(?:INTEGER|TEXT|BLOB)/gm)].map((m) => m[1])
    expect(declared).toEqual([...CHAIN_COLUMNS])
  })
})
