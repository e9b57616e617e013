// A button that chooses a file (a hidden file input inside a label, as the replay checker does).
interface Props {
  label: string
  accept?: string
  disabled?: boolean
  onFile: (file: File) => void
  testId: string
  small?: boolean
}

export function FileButton({ label, accept, disabled, onFile, testId, small }: Props) {
  return (
    <label className={`btn${small ? ' small' : ''}${disabled ? ' disabled' : ''}`} aria-disabled={disabled}>
      {label}
      <input
        type="file"
        className="sr-only"
        accept={accept}
        disabled={disabled}
        onChange={(e) => {
          const f = e.target.files?.[0]
          if (f) onFile(f)
          e.target.value = ''
        }}
        data-testid={testId}
      />
    </label>
  )
}
