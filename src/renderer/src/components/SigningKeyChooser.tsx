// The key exported reports are signed with. The engine reads and keeps the private key; the page
// sees only its fingerprint. Desktop: the open dialog; web mode: the key file's path on this machine.
import { useState, type FormEvent } from 'react'
import type { SigningKeyInfo } from '../../../shared/custody-types'

interface Props {
  signingKey: SigningKeyInfo | null
  hasDialogs: boolean
  busy: boolean
  error: string | null
  onPick: () => void
  onPath: (path: string) => void
  onForget: () => void
}

export function SigningKeyChooser({ signingKey, hasDialogs, busy, error, onPick, onPath, onForget }: Props) {
  const [path, setPath] = useState('')
  const submit = (e: FormEvent): void => {
    e.preventDefault()
    if (path.trim() !== '') onPath(path.trim())
  }
  return (
    <div className="signing-key" data-testid="signing-key">
      <p className="small">
        {signingKey ? (
          <>
            Exports are signed (Ed25519) with key{' '}
            <code data-testid="signing-key-fingerprint" title={signingKey.path}>
              {signingKey.fingerprint}
            </code>
          </>
        ) : (
          <span data-testid="signing-key-none">Exports are not signed: no signing key chosen</span>
        )}
      </p>
      <div className="row gap wrap">
        {hasDialogs ? (
          <button
            type="button"
            className="btn small"
            disabled={busy}
            onClick={onPick}
            data-testid="signing-key-pick"
          >
            Choose signing key…
          </button>
        ) : (
          <form className="row gap" onSubmit={submit} aria-label="signing key path">
            <input
              className="input mono"
              value={path}
              onChange={(e) => setPath(e.target.value)}
              placeholder="bijotel_private.pem path"
              aria-label="signing key path"
              data-testid="signing-key-path"
            />
            <button
              type="submit"
              className="btn small"
              disabled={busy || path.trim() === ''}
              data-testid="signing-key-use"
            >
              Use key
            </button>
          </form>
        )}
        {signingKey ? (
          <button
            type="button"
            className="btn small"
            disabled={busy}
            onClick={onForget}
            data-testid="signing-key-forget"
          >
            Forget
          </button>
        ) : null}
      </div>
      {error ? (
        <p className="error-line" role="alert" data-testid="signing-key-error">
          {error}
        </p>
      ) : null}
    </div>
  )
}
