// Candidate keys. The values live only in these password fields until submitted; then they go to
// the engine (setSecrets) and the fields are cleared. What comes back is KeyInfo, never a key: the
// keys held are shown by number and fingerprint, each removable, and a submitted field is added to
// them (issue 35: "+ rotated key" with an empty first field used to drop the key held).
import { useEffect, useId, useRef, useState, type FormEvent } from 'react'
import type { SecretInput } from '../../../shared/contract'
import type { KeyInfo } from '../../../shared/verify-types'
import { keyLabel } from '../lib/key-notes'
import './SecretsForm.css'

interface Props {
  keys: KeyInfo[]
  /** New secrets, added after the held keys named in `keep` (indexes). */
  onSubmit: (secrets: SecretInput[], keep: number[]) => Promise<void>
  busy?: boolean
  /** Bumped when a verify is asked for with no key: the first key field takes focus and comes into view. */
  prompt?: number
}

interface Field {
  id: number
  encoding: 'hex' | 'text'
  value: string
}

let nextId = 1
const blank = (): Field => ({ id: nextId++, encoding: 'hex', value: '' })

export function SecretsForm({ keys, onSubmit, busy, prompt = 0 }: Props) {
  const [fields, setFields] = useState<Field[]>(() => [blank()])
  const first = useRef<HTMLInputElement>(null)
  useEffect(() => {
    if (prompt === 0 || !first.current) return
    first.current.scrollIntoView({ block: 'nearest' })
    first.current.focus()
  }, [prompt])
  const [reveal, setReveal] = useState(false)
  const formId = useId()
  const filled = fields.filter((f) => f.value.trim().length > 0)

  const update = (id: number, patch: Partial<Field>): void =>
    setFields((fs) => fs.map((f) => (f.id === id ? { ...f, ...patch } : f)))

  const submit = async (e: FormEvent): Promise<void> => {
    e.preventDefault()
    const secrets: SecretInput[] = filled.map((f) => ({ encoding: f.encoding, value: f.value }))
    if (secrets.length === 0) return
    // Clear the fields first: whatever happens next, the renderer no longer holds the values.
    setFields([blank()])
    setReveal(false)
    await onSubmit(
      secrets,
      keys.map((k) => k.index),
    )
  }
  const remove = (index: number): void =>
    void onSubmit(
      [],
      keys.filter((k) => k.index !== index).map((k) => k.index),
    )
  const held = keys.length

  return (
    <div className="secrets" data-testid="secrets">
      {keys.length > 0 ? (
        <table className="grid compact" data-testid="key-info">
          <thead>
            <tr>
              <th>key</th>
              <th>encoding</th>
              <th>bytes</th>
              <th title="first 8 hex chars of SHA-256(key)">fingerprint</th>
              <th>
                <span className="sr-only">remove</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {keys.map((k) => (
              <tr key={k.index}>
                <td data-testid="key-number">{keyLabel(k.index)}</td>
                <td>{k.encoding}</td>
                <td>{k.bytes}</td>
                <td>
                  <code data-testid="key-fingerprint">{k.fingerprint}</code>
                </td>
                <td>
                  <button
                    type="button"
                    className="btn icon"
                    aria-label={`remove ${keyLabel(k.index)} (${k.fingerprint})`}
                    disabled={busy}
                    onClick={() => remove(k.index)}
                    data-testid="key-remove"
                  >
                    ×
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p className="muted small" data-testid="no-keys">
          No key yet: the chain’s HMACs cannot be checked without the secret. Several keys may be given
          (rotation); keys belong to this chain and are cleared when another chain is opened.
        </p>
      )}
      <form onSubmit={(e) => void submit(e)} autoComplete="off" aria-label="chain secrets">
        {fields.map((f, i) => (
          <div className="secret-row" key={f.id}>
            <label className="sr-only" htmlFor={`${formId}-${f.id}`}>
              {keyLabel(held + i)}
            </label>
            <input
              id={`${formId}-${f.id}`}
              className="input mono grow"
              type={reveal ? 'text' : 'password'}
              value={f.value}
              placeholder={
                i === 0 && held === 0
                  ? f.encoding === 'hex'
                    ? 'chain secret (hex)'
                    : 'chain secret (text)'
                  : `${keyLabel(held + i)} (rotated, ${f.encoding})`
              }
              onChange={(e) => update(f.id, { value: e.target.value })}
              autoComplete="off"
              spellCheck={false}
              data-testid={`secret-input-${i}`}
              ref={i === 0 ? first : undefined}
              aria-invalid={i === 0 && prompt > 0 && keys.length === 0 ? true : undefined}
            />
            <div className="seg" role="radiogroup" aria-label={`encoding of ${keyLabel(held + i)}`}>
              {(['hex', 'text'] as const).map((enc) => (
                <button
                  key={enc}
                  type="button"
                  role="radio"
                  aria-checked={f.encoding === enc}
                  className={f.encoding === enc ? 'on' : ''}
                  onClick={() => update(f.id, { encoding: enc })}
                  data-testid={`secret-encoding-${i}-${enc}`}
                  title={
                    enc === 'hex'
                      ? 'hex bytes, as Python BIJOTEL'
                      : 'raw UTF-8 bytes (the Go writer’s fallback)'
                  }
                >
                  {enc}
                </button>
              ))}
            </div>
            {fields.length > 1 ? (
              <button
                type="button"
                className="btn icon"
                aria-label={`remove field of ${keyLabel(held + i)}`}
                onClick={() => setFields((fs) => fs.filter((x) => x.id !== f.id))}
              >
                ×
              </button>
            ) : null}
          </div>
        ))}
        <div className="row gap">
          <button
            type="submit"
            className="btn primary"
            disabled={busy || filled.length === 0}
            data-testid="secrets-submit"
          >
            {held > 0 ? 'Add' : 'Use'} {filled.length > 1 ? `${filled.length} keys` : 'key'} and verify
          </button>
          <button
            type="button"
            className="btn"
            onClick={() => setFields((fs) => [...fs, blank()])}
            disabled={fields.length >= 32}
            data-testid="secret-add"
          >
            + rotated key
          </button>
          {held > 0 ? (
            <button
              type="button"
              className="btn"
              onClick={() => void onSubmit([], [])}
              disabled={busy}
              data-testid="key-clear-all"
            >
              Clear keys
            </button>
          ) : null}
          <label className="check">
            <input type="checkbox" checked={reveal} onChange={(e) => setReveal(e.target.checked)} /> show
          </label>
        </div>
      </form>
    </div>
  )
}
