// The renderer's state lives in stores (as GitHub Desktop's app/src/lib/stores): plain TypeScript
// objects that hold one immutable state, change it only through their own methods, and tell
// subscribers. React reads them with useSyncExternalStore (useStore), so a component re-renders
// when the part it selects changes, and nothing in React holds a copy that could go stale.
import { useSyncExternalStore } from 'react'

export type Listener = () => void

export class Store<S extends object> {
  private state: S
  private readonly listeners = new Set<Listener>()

  constructor(initial: S) {
    this.state = initial
  }

  readonly getState = (): S => this.state

  readonly subscribe = (listener: Listener): (() => void) => {
    this.listeners.add(listener)
    return () => {
      this.listeners.delete(listener)
    }
  }

  /** Merge a change into the state (a new object, so selectors see it) and tell the subscribers. */
  protected update(change: Partial<S> | ((s: S) => Partial<S>)): void {
    const patch = typeof change === 'function' ? change(this.state) : change
    let changed = false
    for (const k of Object.keys(patch) as (keyof S)[]) {
      if (!Object.is(this.state[k], patch[k])) {
        changed = true
        break
      }
    }
    if (!changed) return
    this.state = { ...this.state, ...patch }
    for (const l of [...this.listeners]) l()
  }
}

/**
 * Read part of a store in a component. `select` must return something the state already holds (a
 * field, or a value derived without allocating), or the component renders in a loop.
 */
export function useStore<S extends object, T>(store: Store<S>, select: (s: S) => T): T {
  return useSyncExternalStore(
    store.subscribe,
    () => select(store.getState()),
    () => select(store.getState()),
  )
}
