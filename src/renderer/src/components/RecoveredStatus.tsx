// A recovered row's status pill, in the words the verdict's findings use (src/shared/recovery-words.ts):
// a deleted row a `truncated` finding covers says "truncated", as the finding does.
import type { RecoveredRow } from '../../../shared/recovery-types'
import type { Finding } from '../../../shared/verify-types'
import { recoveredStatusWord, TRUNCATED_MEANING } from '../../../shared/recovery-words'

interface Props {
  row: RecoveredRow
  findings: readonly Finding[]
}

export function RecoveredStatus({ row, findings }: Props) {
  const word = recoveredStatusWord(row, findings)
  const tone = row.status === 'deleted' ? 'bad' : row.status === 'superseded' ? 'warn' : 'muted'
  return (
    <span
      className={`pill ${tone}`}
      data-testid="recovered-status"
      data-word={word}
      title={word === 'truncated' ? TRUNCATED_MEANING : undefined}
    >
      {word === 'truncated' ? `truncated (${TRUNCATED_MEANING})` : word}
    </span>
  )
}
