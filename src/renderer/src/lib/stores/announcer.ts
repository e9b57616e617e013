// What a screen reader is told without moving focus: verdicts and the end of jobs. One polite live
// region (WAI-ARIA 1.2 `aria-live`, rendered once by the App, always in the DOM so that changes to
// it are read) shows the latest message; a counter makes a repeated message a new one.
import { Store } from './store'

export interface Announcement {
  text: string
  id: number
}

export class Announcer extends Store<{ last: Announcement | null }> {
  private count = 0

  constructor() {
    super({ last: null })
  }

  readonly announce = (text: string): void => {
    this.update({ last: { text, id: ++this.count } })
  }
}

export const announcer = new Announcer()
