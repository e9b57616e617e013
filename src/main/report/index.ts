export { buildAuditReport, chainSummary, verificationNote, type BuildReportInput } from './build'
