/**
 * A buffer to read files into, starting 64 bytes past a 4 KB boundary: on some CPUs the kernel's
 * copy into a page-aligned buffer of 256 KB or more — which is what large allocations get — is
 * several times slower than into a skewed one (docs/performance.md has the measurements).
 * Harmless where the CPU has no such penalty.
 */
export function readBuffer(bytes: number): Buffer {
  return Buffer.allocUnsafeSlow(bytes + READ_SKEW).subarray(READ_SKEW, READ_SKEW + bytes)
}

export const READ_SKEW = 64
