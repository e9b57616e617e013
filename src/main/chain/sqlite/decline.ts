// How strict decoding says "not this file". The direct reader declines any file shape it does not
// read exactly as SQLite would, and the caller falls back to SQLite on a verified copy: the reader
// may decline a file, never misread one. Tolerant decoding (carving) never throws this: it answers
// null, 0 or -1 instead.

/** Thrown for any file shape the direct reader leaves to SQLite. Internal: never shown to users. */
export class Unsupported extends Error {
  constructor(why: string) {
    super(why)
    this.name = 'Unsupported'
  }
}

/**
 * The two ways this module decodes bytes. `strict`: what the direct reader uses, throwing
 * Unsupported on anything SQLite would call corrupt or read differently. `tolerant`: what recovery
 * uses to carve garbage, answering null / 0 / -1 rather than throwing.
 */
export type Decoding = 'strict' | 'tolerant'
