// The page's one polite live region: verdicts and finished jobs are read out from here (announcer).
import { announcer } from '../lib/stores/announcer'
import { useStore } from '../lib/stores/store'

export function LiveRegion() {
  const last = useStore(announcer, (s) => s.last)
  return (
    <div className="sr-only" role="status" aria-live="polite" aria-atomic="true" data-testid="announcer">
      {last ? <span key={last.id}>{last.text}</span> : null}
    </div>
  )
}
