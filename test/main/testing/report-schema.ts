// The audit report's JSON Schema (schema/integrity-report.schema.json) compiled with Ajv, for tests
// and for anyone who wants to check a report before trusting it.
import Ajv2020 from 'ajv/dist/2020'
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'

export const SCHEMA_PATH = resolve(__dirname, '../../../schema/integrity-report.schema.json')

export function loadSchema(path = SCHEMA_PATH): Record<string, unknown> {
  return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>
}

export function reportValidator(path = SCHEMA_PATH): ((data: unknown) => boolean) & { errors?: unknown } {
  const ajv = new Ajv2020({ allErrors: true, strict: true })
  return ajv.compile(loadSchema(path))
}
