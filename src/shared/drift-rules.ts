// Payload drift's rules as data, for the engine, the CLI, the handlers and the renderer: the
// reference's six dimensions in its order (§8) and the defaults of `regression --window 100
// --z-threshold 3.0`, with the bounds the app accepts for the window (at least 5 rows of baseline).

export const DRIFT_DIMENSIONS = Object.freeze([
  'input_tokens',
  'output_tokens',
  'cost',
  'cache_ratio',
  'reasoning_ratio',
  'ttfc_ms',
] as const)

export const DRIFT_WINDOW = Object.freeze({ min: 5, max: 10_000, default: 100 })

export const DRIFT_Z_THRESHOLD = Object.freeze({ min: 0, max: 100, default: 3.0 })
