// The key exported reports are signed with. The engine reads and keeps the private key; the page
// sees only its fingerprint. Desktop: the open dialog. Web mode: the server's `--sign-key`, given on
// its command line and used only for requests carrying the API key; never chosen from a page.
import type { SigningKeyInfo } from '../../../shared/custody-types'

interface Props {
  signingKey: SigningKeyInfo | null
  hasDialogs: boolean
  busy: boolean
  error: string | null
  onPick: () => void
  onForget: () => void
}

export function SigningKeyChooser({ signingKey, hasDialogs, busy, error, onPick, onForget }: Props) {
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
          <span className="small muted" data-testid="signing-key-server">
            Web mode signs only with the key this server was started with, for requests carrying its API key
          </span>
        )}
        {signingKey && hasDialogs ? (
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
