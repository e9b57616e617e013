// Kept for the replay and writer tests' imports; the helper lives in src/main/testing/cli.ts.
export { BIN, bijotel, ensureBuilt, type CliResult } from '../testing/cli'
