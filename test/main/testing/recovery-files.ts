// The carver's view of a chain's files, opened by path through the chain's one open step (the app
// opens them once per session and hands the carver the same descriptors; tests open them here).
import { openEvidence } from '../../../src/main/chain/evidence-files'
import type { OpenOptions } from '../../../src/main/chain/evidence-files'
import { evidenceOf, type EvidenceFiles } from '../../../src/main/recovery/files'

export { closeEvidence } from '../../../src/main/recovery/files'

/** Open `path` and take the carver's hold on its files (closeEvidence gives it up). */
export function openRecoveryEvidence(path: string, opts: OpenOptions = {}): EvidenceFiles {
  const files = openEvidence(path, opts)
  try {
    return evidenceOf(files)
  } finally {
    files.close()
  }
}
