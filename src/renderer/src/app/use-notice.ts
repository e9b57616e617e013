// A transient status line ("report copied", "web mode opens by path", errors of header actions).
import { useCallback, useEffect, useRef, useState } from 'react'

export interface Notice {
  text: string
  kind: 'info' | 'error'
  id: number
}

export type Notify = (text: string, kind?: 'info' | 'error') => void

export function useNotice(ms = 8000): [Notice | null, Notify, () => void] {
  const [notice, setNotice] = useState<Notice | null>(null)
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null)
  const seq = useRef(0)
  const clear = useCallback(() => setNotice(null), [])
  const notify = useCallback<Notify>(
    (text, kind = 'info') => {
      if (timer.current) clearTimeout(timer.current)
      seq.current += 1
      setNotice({ text, kind, id: seq.current })
      timer.current = setTimeout(() => setNotice(null), kind === 'error' ? ms * 2 : ms)
    },
    [ms],
  )
  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current)
    },
    [],
  )
  return [notice, notify, clear]
}
