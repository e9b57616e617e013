// The tool's version, as recorded in reports. Kept in step with package.json by a test.
export const TOOL_NAME = 'bijotel-auditor'
export const TOOL_VERSION = '0.1.0'
