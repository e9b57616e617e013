// A hash shown in full (monospace, selectable), optionally compared with an expected value.
interface Props {
  value: string | null | undefined
  expected?: string | null
  short?: boolean
  testId?: string
}

export function Hash({ value, expected, short, testId }: Props) {
  if (!value) return <span className="muted">—</span>
  const bad = expected !== undefined && expected !== null && expected !== value
  return (
    <code className={`hash${short ? ' short' : ''}${bad ? ' bad' : ''}`} title={value} data-testid={testId}>
      {short ? `${value.slice(0, 16)}…` : value}
    </code>
  )
}
