// A titled panel block of the sidebar.
import type { ReactNode } from 'react'

interface Props {
  title: ReactNode
  actions?: ReactNode
  children: ReactNode
  testId?: string
}

export function Section({ title, actions, children, testId }: Props) {
  return (
    <section className="section" data-testid={testId}>
      <header className="section-head">
        <h2>{title}</h2>
        {actions ? <div className="section-actions">{actions}</div> : null}
      </header>
      <div className="section-body">{children}</div>
    </section>
  )
}
