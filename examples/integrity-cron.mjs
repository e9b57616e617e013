// A cron job in Node: verify a BIJOTEL chain and run the integrity monitor on its newest rows, then
// exit 0 (valid and clean), 1 (anomalies) or 3 (broken) — like `bijotel verify` and `integrity`,
// in one process, with the results as JSON lines for a log collector.
//
//   BIJOTEL_HMAC_SECRET=<hex key> node examples/integrity-cron.mjs chain.db [window]
//   */15 * * * * BIJOTEL_HMAC_SECRET=... node /srv/audit/integrity-cron.mjs /srv/app/chain.db 500
//
// The chain is only read (in place, read-only), so it can run beside the service that writes it.
import { ChainIntegrityMonitor, integrityReportJson, verifyChain } from 'bijotel-auditor'

const [dbPath, windowArg = '100'] = process.argv.slice(2)
const secretHex = process.env.BIJOTEL_HMAC_SECRET
if (!dbPath || !secretHex) {
  process.stderr.write(
    'usage: BIJOTEL_HMAC_SECRET=<hex> node examples/integrity-cron.mjs chain.db [window]\n',
  )
  process.exit(2)
}

try {
  const verdict = await verifyChain(dbPath, { secrets: secretHex })
  process.stdout.write(`${JSON.stringify({ check: 'verify', ...verdict })}\n`)

  const monitor = new ChainIntegrityMonitor(dbPath, { window: Number(windowArg), secrets: secretHex })
  const report = await monitor.analyze()
  process.stdout.write(`${integrityReportJson(report)}\n`)

  process.exitCode = !verdict.valid ? 3 : report.clean ? 0 : 1
} catch (e) {
  // AuditError: one line with what is wrong (missing file, not a chain, bad key...).
  process.stderr.write(`ERROR: ${e.message}\n`)
  process.exitCode = 2
}
