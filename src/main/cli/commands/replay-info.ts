// `bijotel replay` as the command table sees it; the check is in ./replay, loaded on use.
import type { CommandInfo } from '../command'
import { keySourceOptions, KEYS_OFF_COMMAND_LINE } from '../secret-help'

export const EXIT = { match: 0, missing: 1, usage: 2, mismatch: 3 } as const

const HELP = `usage: bijotel replay --db PATH --seq N (--output TEXT | --output-file PATH) [options]
       bijotel replay --db PATH --batch (FILE.jsonl | FOLDER | -) [--raw] [KEYS] [--json]

Compare a replayed LLM output with the bijotel.replay.output_hash sealed in chain entry N, as Python
BIJOTEL's \`bijotel replay\` does (same messages, output and exit codes). No LLM is called.

options:
  --db PATH             chain.db (read through a verified private copy, never modified)
  --seq N               seq of the chain entry
  --output TEXT         the replayed output, used verbatim (an empty value counts as absent)
  --output-file PATH    or read it from a file like Python: strict UTF-8, CRLF and lone CR become LF,
                        a UTF-8 BOM, NUL bytes and a trailing newline are kept; files over 64 MiB
                        are refused
  --raw                 with --output-file: hash the file's bytes exactly as they are instead
  --prompt TEXT         the original prompt: also check it against the sealed prompt_hash (as text,
                        and as a messages list when it is JSON)
  --prompt-file PATH    or read the prompt from a file (decoded like --output-file)
  --secret-hex HEX      candidate key (hex): also verify the entry's own row (body hash, link to its
                        predecessor, HMAC); repeat for rotated keys
  --secret-text TEXT    candidate key as raw UTF-8 bytes (the Go collector's fallback); repeatable
${keySourceOptions(24)}
  --json                print the result as JSON: match, original_hash, replay_hash, deterministic,
                        model_version, reason (+ row_verified/row_detail with a secret,
                        prompt_match/prompt_detail with a prompt)
  --batch FILE|FOLDER|- many replays at once, the chain read once. FILE: JSON Lines, one
                        {"seq": N, "output": "..."} or {"seq": N, "output_file": "path"} a line
                        (optional "prompt" or "prompt_file", "raw": true; relative paths are the
                        FILE's neighbours); FOLDER: files named replay-N.txt or N.txt; -: JSONL on
                        stdin. Each line gets the verdict --seq gives it, then a summary (per status
                        and per model); a bad line is reported and the batch goes on
  -h, --help            show this help

A value may begin with '-': --output "- a bullet" (a Markdown list), --seq -1; a value that
begins with '--' is given as --output=--text.

${KEYS_OFF_COMMAND_LINE}

exit codes: 0 match, 1 DB / file / seq missing or unreadable, 2 argument error,
            3 mismatch or no replay metadata (also: the row does not verify, or the prompt differs)
--batch:    0 every deterministic entry matched (a mismatch without a seed is drift, counted only),
            3 a seeded mismatch, no replay metadata, a row that does not verify or a prompt that
            differs, 1 otherwise some line was not checked (bad line, seq missing) or the DB is
            missing, 2 argument error`

export const replayInfo: CommandInfo = {
  name: 'replay',
  summary: 'check a replayed LLM output against the sealed output_hash of one entry',
  help: HELP,
  chainFileExit: EXIT.missing,
}
