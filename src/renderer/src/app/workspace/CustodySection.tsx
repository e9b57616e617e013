// The sidebar's chain-of-custody block: the signing key, the prior to compare with, and checking
// an exported report again, all from the workspace's custody store. Its sheet is imported first, so
// that the report check's list (ReportCheckView.css) comes after it in the cascade, as it always has.
import './CustodySection.css'
import { PriorChooser } from '../../components/PriorChooser'
import { ReportCheckView } from '../../components/ReportCheckView'
import { ReportChecker } from '../../components/ReportChecker'
import { SigningKeyChooser } from '../../components/SigningKeyChooser'
import { useStore } from '../../lib/stores/store'
import { useWorkspaceStore } from './context'

export function CustodySection() {
  const custody = useWorkspaceStore().custody
  const s = useStore(custody, (x) => x)
  return (
    <div className="custody" data-testid="custody">
      <SigningKeyChooser
        signingKey={s.signingKey}
        hasDialogs={custody.hasDialogs}
        busy={s.keyBusy}
        error={s.keyError}
        onPick={() => void custody.pickKey()}
        onForget={() => void custody.forgetKey()}
      />
      <PriorChooser
        prior={s.prior}
        file={s.priorFile}
        busy={s.priorBusy}
        error={s.priorError}
        onFile={(f) => void custody.comparePrior(f)}
        onClear={() => void custody.clearPrior()}
      />
      <ReportChecker
        busy={s.checkBusy}
        error={s.checkError}
        onCheck={(f, k) => void custody.checkReport(f, k)}
      />
      {s.check ? (
        <ReportCheckView result={s.check} file={s.checkFile} onDismiss={custody.dismissCheck} />
      ) : null}
    </div>
  )
}
