// Renderer entry: the API client chosen for the environment (IPC in Electron, HTTP in web mode),
// an error boundary around everything, the app. The global sheet (tokens, themes, resets, controls)
// is imported first so every component's sheet comes after it in the cascade; screen.css last.
import './styles.css'
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { api } from './api'
import { ApiProvider } from './app/api-context'
import { App } from './app/App'
import { ErrorBoundary } from './components/ErrorBoundary'
import './screen.css'

const root = document.getElementById('root')
if (root) {
  createRoot(root).render(
    <StrictMode>
      <ErrorBoundary where="application">
        <ApiProvider api={api}>
          <App />
        </ApiProvider>
      </ErrorBoundary>
    </StrictMode>,
  )
}
