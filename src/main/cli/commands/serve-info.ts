// `bijotel serve` as the command table sees it; the server is in ./serve, loaded on use.
import type { CommandInfo } from '../command'
import { KEY_SOURCE_OPTIONS, KEYS_OFF_COMMAND_LINE } from '../secret-help'

export const EXIT = { clean: 0, unreadable: 1, usage: 2, listen: 3 } as const

const HELP = `usage: bijotel serve --db PATH [--port 8080] [--host 127.0.0.1] [--api-key-file PATH | --api-key KEY]
                     [keys] [--open-root DIR]... [--static-dir DIR] [--sign-key PEM]

Serve a chain to the browser UI and over HTTP (the API contract at /api/call/<name>, and the
reference REST routes /health, /version, /chain, /chain/{seq}, /chain/verify, /integrity,
/replay/verify). The chain is read through a verified private copy and never modified.

options:
  --db PATH            chain.db to open (default: $BIJOTEL_DB_PATH)
  --port N             port to listen on (default 8080; 0 picks a free port and prints it)
  --host ADDR          address to listen on (default 127.0.0.1); anything but loopback needs an API key
  --api-key-file PATH  require 'Authorization: Bearer KEY' on every route but /health and /version,
                       KEY being the file's one line (at least 16 characters)
  --api-key KEY        the same with the key on the command line: readable by every local user in
                       the process list while the server runs (default: $BIJOTEL_API_KEY)
  --secret-hex HEX     candidate HMAC key as hex (Python BIJOTEL); repeat for rotated keys
  --secret-text TEXT   candidate key as raw UTF-8 bytes (the Go collector's fallback); repeatable
${KEY_SOURCE_OPTIONS}
                       (without any of these, BIJOTEL_HMAC_SECRET is read as hex; keys are never
                       accepted from a request, except from the local app's own page on loopback)
  --open-root DIR      let clients open chains inside DIR by path (repeatable)
  --sign-key PEM       sign reports (Ed25519, PKCS#8 PEM) for requests carrying the API key only;
                       needs an API key; never set, replaced or removed over HTTP; each signature
                       is logged on stderr ("report signed with key <fingerprint>")
  --static-dir DIR     the built renderer to serve at / (default: out/renderer beside the CLI)
  -h, --help           show this help

${KEYS_OFF_COMMAND_LINE}
A server runs for hours: give it its keys with --secret-file, --secret-stdin or BIJOTEL_HMAC_SECRET,
and its API key with --api-key-file or BIJOTEL_API_KEY (a process's environment is readable only
by its own user and root, its command line by everyone).

exit codes: 0 clean shutdown (SIGINT/SIGTERM), 1 DB missing or not a readable chain,
            2 argument or secret error, 3 cannot listen (e.g. port in use)`

export const serveInfo: CommandInfo = {
  name: 'serve',
  summary: 'serve a chain to the browser UI and the REST API (loopback by default)',
  help: HELP,
  chainFileExit: EXIT.unreadable,
}
