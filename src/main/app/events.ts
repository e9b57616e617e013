// Main → renderer events over IPC: every event of src/shared/app-events.ts goes on its one channel,
// typed by the event map, to a window that is still there.
import type { AppEvent, AppEventName, AppEvents } from '../../shared/app-events'
import { APP_EVENT_CHANNEL } from '../../shared/app-events'

/** The part of a BrowserWindow an event needs (tests pass a stand-in). */
export interface EventWindow {
  isDestroyed(): boolean
  webContents: { send(channel: string, ...args: unknown[]): void; isDestroyed?(): boolean }
}

export function sendAppEvent(win: EventWindow | null, event: AppEvent): void {
  if (!win || win.isDestroyed() || win.webContents.isDestroyed?.()) return
  win.webContents.send(APP_EVENT_CHANNEL, event)
}

/** `send('menuVerify', null)`: the payload's type follows the name. */
export function appEventSender(
  getWindow: () => EventWindow | null,
): <E extends AppEventName>(name: E, payload: AppEvents[E]) => void {
  return (name, payload) => sendAppEvent(getWindow(), { name, payload } as AppEvent)
}
