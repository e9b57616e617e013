// Settings of the window that outlive a chain: the zone times are shown in (UTC or local), chosen
// once and kept in localStorage. One store for the page (`settings`); the formatters read the zone
// through time-zone.ts, and components that show a time subscribe with useTimeZone so they draw
// again when it changes.
import { setTimeZoneMode, type TimeZoneMode } from '../time-zone'
import { loadTimeZone, saveTimeZone } from './local-prefs'
import { Store, useStore } from './store'

export interface SettingsState {
  timeZone: TimeZoneMode
}

export class SettingsStore extends Store<SettingsState> {
  constructor(initial: TimeZoneMode = loadTimeZone()) {
    super({ timeZone: initial })
    setTimeZoneMode(initial)
  }

  readonly setTimeZone = (timeZone: TimeZoneMode): void => {
    setTimeZoneMode(timeZone)
    saveTimeZone(timeZone)
    this.update({ timeZone })
  }
}

export const settings = new SettingsStore()

/** The zone times are shown in; the component draws again when it changes. */
export function useTimeZone(): TimeZoneMode {
  return useStore(settings, (s) => s.timeZone)
}
