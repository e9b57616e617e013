// What a command may touch of the process: its streams and environment. Tests pass their own.
export interface CliIO {
  out(text: string): void
  err(text: string): void
  env: Record<string, string | undefined>
  /** Whether stderr is a terminal (progress lines are drawn only then). */
  stderrIsTTY: boolean
  /** Redraw a transient progress line on stderr (no-op when not a terminal). */
  progress(text: string | null): void
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
  }
}

/** Collects output in memory, for in-process tests. */
export function memoryIO(
  env: Record<string, string | undefined> = {},
): CliIO & { stdout: string; stderr: string } {
  const io = {
    stdout: '',
    stderr: '',
    env,
    stderrIsTTY: false,
    out(t: string) {
      io.stdout += t
    },
    err(t: string) {
      io.stderr += t
    },
    progress() {},
  }
  return io
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
