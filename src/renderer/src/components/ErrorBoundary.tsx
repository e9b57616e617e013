// A render error in one panel shows one line in that panel instead of blanking the window.
import { Component, type ErrorInfo, type ReactNode } from 'react'
import { errorMessage } from '../lib/format'
import './ErrorBoundary.css'

interface Props {
  /** Where it happened, for the message ("timeline", "entry detail", …). */
  where: string
  children: ReactNode
  /** Changing it clears the error (e.g. a new chain was opened). */
  resetKey?: unknown
}

interface State {
  error: string | null
  resetKey: unknown
}

export class ErrorBoundary extends Component<Props, State> {
  override state: State = { error: null, resetKey: this.props.resetKey }

  static getDerivedStateFromError(e: unknown): Partial<State> {
    return { error: errorMessage(e) }
  }

  static getDerivedStateFromProps(props: Props, state: State): Partial<State> | null {
    if (props.resetKey !== state.resetKey) return { error: null, resetKey: props.resetKey }
    return null
  }

  override componentDidCatch(error: unknown, info: ErrorInfo): void {
    console.error(`[${this.props.where}]`, error, info.componentStack)
  }

  override render(): ReactNode {
    if (this.state.error !== null) {
      return (
        <div className="boundary-error" role="alert" data-testid="boundary-error">
          <span>
            The {this.props.where} failed to render: {this.state.error}
          </span>
          <button type="button" className="btn small" onClick={() => this.setState({ error: null })}>
            Retry
          </button>
        </div>
      )
    }
    return this.props.children
  }
}
