// Check a replayed output against the entry's sealed output hash: drop a file, or paste the text.
import { useState, type FormEvent } from 'react'
import type { ReplayTextMode } from '../../../shared/replay-types'
import './replay.css'

interface Props {
  seq: number
  hasReplay: boolean
  mode: ReplayTextMode
  onModeChange: (m: ReplayTextMode) => void
  busy: boolean
  error: string | null
  onCheckText: (text: string, prompt: string | null) => void
  onPickFile: (file: File) => void
}

export function ReplayChecker({
  seq,
  hasReplay,
  mode,
  onModeChange,
  busy,
  error,
  onCheckText,
  onPickFile,
}: Props) {
  const [text, setText] = useState('')
  const [prompt, setPrompt] = useState('')
  const submit = (e: FormEvent): void => {
    e.preventDefault()
    onCheckText(text, prompt.trim() === '' ? null : prompt)
  }
  return (
    <div className="replay-checker" data-testid="replay-checker">
      <div className="dropzone small" data-testid="replay-dropzone">
        <span>
          Drop a replay file on this panel or on a row to check seq {seq}
          {hasReplay ? '' : ' (this entry records no replay output hash)'}
        </span>
        <label className="btn small">
          choose file…
          <input
            type="file"
            className="sr-only"
            onChange={(e) => {
              const f = e.target.files?.[0]
              if (f) onPickFile(f)
              e.target.value = ''
            }}
            data-testid="replay-file-input"
          />
        </label>
        <label
          className="field inline"
          title="python: the file read as Python BIJOTEL's replay reads it (strict UTF-8, CRLF/CR → LF, BOM kept); raw: the file's bytes as they are"
        >
          <span>file mode</span>
          <select
            className="input"
            value={mode}
            onChange={(e) => onModeChange(e.target.value === 'raw' ? 'raw' : 'python')}
            data-testid="replay-mode"
          >
            <option value="python">python (CLI)</option>
            <option value="raw">raw bytes</option>
          </select>
        </label>
      </div>
      <details>
        <summary className="small">or paste the replayed output</summary>
        <form onSubmit={submit} className="replay-form">
          <textarea
            className="input mono"
            rows={4}
            value={text}
            onChange={(e) => setText(e.target.value)}
            placeholder="replayed output, used verbatim"
            data-testid="replay-text"
          />
          <textarea
            className="input mono"
            rows={2}
            value={prompt}
            onChange={(e) => setPrompt(e.target.value)}
            placeholder="original prompt (optional: checked against the sealed prompt_hash)"
            data-testid="replay-prompt-input"
          />
          <button
            type="submit"
            className="btn primary small"
            disabled={busy || text.length === 0}
            data-testid="replay-text-submit"
          >
            Check text
          </button>
        </form>
      </details>
      {error ? (
        <p className="error-line" role="alert" data-testid="replay-error">
          {error}
        </p>
      ) : null}
    </div>
  )
}
