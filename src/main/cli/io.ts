// What a command may touch of the process: its streams and environment. Tests pass their own.
export interface CliIO {
  out(text: string): void
  err(text: string): void
  env: Record<string, string | undefined>
  /** Whether stderr is a terminal (progress lines are drawn only then). */
  stderrIsTTY: boolean
  /** Redraw a transient progress line on stderr (no-op when not a terminal). */
  progress(text: string | null): void
  /** Stdin up to `maxBytes` (for --secret-stdin): reading stops there, the caller refuses the excess. */
  readStdin(maxBytes: number): Promise<Buffer>
}

/** Collect a stream up to `max` bytes (then stop reading it). */
function readAtMost(stream: NodeJS.ReadableStream & { destroy?: () => void }, max: number): Promise<Buffer> {
  return new Promise((resolveRead, reject) => {
    const chunks: Buffer[] = []
    let n = 0
    const done = (): void => {
      stream.removeListener('data', onData)
      resolveRead(Buffer.concat(chunks).subarray(0, max))
    }
    const onData = (c: Buffer | string): void => {
      const b = typeof c === 'string' ? Buffer.from(c) : c
      chunks.push(b)
      n += b.length
      if (n >= max) {
        stream.pause()
        stream.destroy?.()
        done()
      }
    }
    stream.on('data', onData)
    stream.once('end', done)
    stream.once('error', reject)
  })
}

export function processIO(): CliIO {
  // `bijotel … | head` closes the pipe early: that is the reader's choice, not an error.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0)
    throw e
  })
  const tty = Boolean(process.stderr.isTTY)
  let shown = false
  return {
    out: (t) => process.stdout.write(t),
    err: (t) => {
      if (shown) {
        process.stderr.write('\r\x1b[K')
        shown = false
      }
      process.stderr.write(t)
    },
    env: process.env,
    stderrIsTTY: tty,
    progress: (t) => {
      if (!tty) return
      process.stderr.write('\r\x1b[K' + (t ?? ''))
      shown = t !== null
    },
    readStdin: (maxBytes) => {
      if (process.stdin.isTTY)
        process.stderr.write(
          'Reading keys from stdin, one per line; end with Ctrl-D (Ctrl-Z Enter on Windows).\n',
        )
      return readAtMost(process.stdin, maxBytes)
    },
  }
}

/** Calls `draw` at most every `ms` milliseconds. */
export function throttle(
  ms: number,
  draw: (done: number, total: number) => void,
): (done: number, total: number) => void {
  let last = 0
  return (done, total) => {
    const now = Date.now()
    if (now - last < ms && done < total) return
    last = now
    draw(done, total)
  }
}
