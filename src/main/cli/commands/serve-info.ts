// `bijotel serve` as the command table sees it; the server is in ./serve, loaded on use.
import type { CommandInfo } from '../command'

export const EXIT = { clean: 0, unreadable: 1, usage: 2, listen: 3 } as const

const HELP = `usage: bijotel serve --db PATH [--port 8080] [--host 127.0.0.1] [--api-key KEY]
                     [--secret-hex HEX]... [--secret-text TEXT]... [--open-root DIR]... [--static-dir DIR]

Serve a chain to the browser UI and over HTTP (the API contract at /api/call/<name>, and the
reference REST routes /health, /version, /chain, /chain/{seq}, /chain/verify, /integrity,
/replay/verify). The chain is read through a verified private copy and never modified.

options:
  --db PATH            chain.db to open (default: $BIJOTEL_DB_PATH)
  --port N             port to listen on (default 8080; 0 picks a free port and prints it)
  --host ADDR          address to listen on (default 127.0.0.1); anything but loopback needs an API key
  --api-key KEY        require 'Authorization: Bearer KEY' on every route but /health and /version
                       (default: $BIJOTEL_API_KEY; at least 16 characters)
  --secret-hex HEX     candidate HMAC key as hex (Python BIJOTEL); repeat for rotated keys
  --secret-text TEXT   candidate key as raw UTF-8 bytes (the Go collector's fallback); repeatable
                       (without either flag, BIJOTEL_HMAC_SECRET is read as hex; keys are never
                       accepted from a request, except from the local app's own page on loopback)
  --open-root DIR      let clients open chains inside DIR by path (repeatable)
  --static-dir DIR     the built renderer to serve at / (default: out/renderer beside the CLI)
  -h, --help           show this help

exit codes: 0 clean shutdown (SIGINT/SIGTERM), 1 DB missing or not a readable chain,
            2 argument or secret error, 3 cannot listen (e.g. port in use)`

export const serveInfo: CommandInfo = {
  name: 'serve',
  summary: 'serve a chain to the browser UI and the REST API (loopback by default)',
  help: HELP,
  chainFileExit: EXIT.unreadable,
}
