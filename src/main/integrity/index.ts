// The integrity monitor's public surface.
export {
  runIntegrity,
  type IntegrityHooks,
  type IntegrityProgress,
  type RunIntegrityOptions,
} from './analyze'
export { assembleReport, reportJson, reportToPy } from './report'
export { integrityText, headerLine, EMPTY_LINE } from './text'
export * from './thresholds'
