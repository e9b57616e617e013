// An ApiClient bound to one chain: answers that arrive once the engine holds another chain (or none)
// are dropped, never delivered, so nothing read for one chain is ever shown for another. Every
// call of a workspace goes through one of these (the table, the entry detail, the charts too).
import { API_CALLS, type ApiClient } from '../../../../shared/contract'

/** A promise that never settles: a dropped answer runs no `then`, no `catch`, no `finally`. */
const never = (): Promise<never> => new Promise<never>(() => undefined)

export function scopedApi(api: ApiClient, isCurrent: () => boolean): ApiClient {
  return Object.fromEntries(
    API_CALLS.map((name) => [
      name,
      (req: unknown) =>
        isCurrent()
          ? (api[name] as (r: unknown) => Promise<unknown>)(req).then(
              (v) => (isCurrent() ? v : never()),
              (e: unknown) => (isCurrent() ? Promise.reject(e) : never()),
            )
          : never(),
    ]),
  ) as unknown as ApiClient
}
