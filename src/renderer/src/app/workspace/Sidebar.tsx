// The sidebar of an opened chain: keys and verification first (with the keyless check run on open:
// the key field is in view at 1024×700, issue 35), the evidence, the integrity monitor beside payload drift, and chain of custody (signing key, prior,
// report check).
import { ErrorBoundary } from '../../components/ErrorBoundary'
import { EvidencePanel } from '../../components/EvidencePanel'
import { IntegrityPanel } from '../../components/IntegrityPanel'
import { KeylessCard } from '../../components/KeylessCard'
import { SecretsForm } from '../../components/SecretsForm'
import { Section } from '../../components/Section'
import { VerifyPanel } from '../../components/VerifyPanel'
import { useStore } from '../../lib/stores/store'
import { wholeName } from '../../lib/whole-name'
import type { NameCount } from '../../../../shared/chain-types'
import { useWorkspace, useWorkspaceStore } from './context'
import { CustodySection } from './CustodySection'
import { DriftSection } from './DriftSection'

export function Sidebar() {
  const ws = useWorkspaceStore()
  // An overview chip filters by its whole name: a clipped one is asked for whole first (nothing is
  // filtered when the list moved in between, rather than another name's rows).
  const pickName = (field: 'provider' | 'model', n: NameCount, offset: number): void => {
    wholeName(
      (q, at) => ws.api.listNames({ field, query: q, offset: at, limit: 1, whole: true }),
      n,
      '',
      offset,
    ).then(
      (value) => ws.dispatchView({ type: field, value }),
      () => undefined,
    )
  }
  const overview = useWorkspace((s) => s.overview)
  const keys = useWorkspace((s) => s.keys)
  const keysError = useWorkspace((s) => s.keysError)
  const verdict = useWorkspace((s) => s.verdict)
  const integrity = useWorkspace((s) => s.integrity)
  const integrityOpts = useWorkspace((s) => s.integrityOpts)
  const integrityBusy = useWorkspace((s) => s.integrityBusy)
  const integrityError = useWorkspace((s) => s.integrityError)
  const keyGen = useWorkspace((s) => s.keyGen)
  const integrityKeyGen = useWorkspace((s) => s.integrityKeyGen)
  const keysNote = useWorkspace((s) => s.keysNote)
  const keyPrompt = useWorkspace((s) => s.keyPrompt)
  const verifyJob = useStore(ws.verifyJob, (s) => s)
  const integrityJob = useStore(ws.integrityJob, (s) => s)
  const keyless = useStore(ws.keyless, (s) => s.verdict)
  const keylessJob = useStore(ws.keyless.job, (s) => s)
  return (
    <aside className="sidebar">
      <ErrorBoundary where="verification panel">
        <Section title="Keys & verification" testId="section-verify">
          <SecretsForm keys={keys} onSubmit={ws.submitSecrets} prompt={keyPrompt} />
          {keysNote ? (
            <p className="keys-note" role="status" data-testid="keys-cleared">
              {keysNote}
            </p>
          ) : null}
          {keysError ? (
            <p className="error-line" role="alert" data-testid="secrets-error">
              {keysError}
            </p>
          ) : null}
          <KeylessCard
            verdict={keyless}
            status={keylessJob.status}
            error={keylessJob.error}
            hasKey={keys.length > 0}
            superseded={verdict !== null}
            onCancel={ws.keyless.cancel}
            onSelectSeq={ws.selectSeq}
          />
          <VerifyPanel
            keys={keys}
            verdict={verdict}
            status={verifyJob.status}
            error={verifyJob.error}
            onVerify={(r) => void ws.verify(r)}
            onCancel={ws.verifyJob.cancel}
            onSelectSeq={ws.selectSeq}
          />
        </Section>
      </ErrorBoundary>
      <ErrorBoundary where="evidence panel">
        <Section title="Evidence" testId="section-evidence">
          <EvidencePanel
            overview={overview}
            onPickProvider={(p, i) => pickName('provider', p, i)}
            onPickModel={(m, i) => pickName('model', m, i)}
          />
        </Section>
      </ErrorBoundary>
      <ErrorBoundary where="integrity panel">
        <Section title="Integrity monitor" testId="section-integrity">
          <IntegrityPanel
            run={integrity}
            options={integrityOpts}
            busy={integrityBusy || integrityJob.status !== null}
            status={integrityJob.status}
            error={integrityError ?? integrityJob.error}
            onRun={(o) => void ws.runIntegrity(o)}
            onCancel={ws.integrityJob.cancel}
            onSelectSeq={ws.selectSeq}
            totalRows={overview.entries}
            stale={integrity !== null && integrityKeyGen !== keyGen}
          />
        </Section>
      </ErrorBoundary>
      <ErrorBoundary where="payload drift panel">
        <Section title="Payload drift" testId="section-drift">
          <DriftSection />
        </Section>
      </ErrorBoundary>
      <ErrorBoundary where="chain of custody panel">
        <Section title="Chain of custody" testId="section-custody">
          <CustodySection />
        </Section>
      </ErrorBoundary>
    </aside>
  )
}
