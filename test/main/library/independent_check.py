#!/usr/bin/env python3
"""An independent checker of a BIJOTEL chain, written from the reference's rules alone (Python
stdlib only, no code of the project): §2.1 span body shape, §2.4 canonical JSON (RFC 8785 JCS) and
SHA-256, §3.2 HMAC formula and GENESIS link, seq contiguity, and §6.1 replay attributes.

usage: independent_check.py CHAIN_DB SECRET_HEX [EXPECTED_JSON]

EXPECTED_JSON (optional): {"outputs": {"<seq>": "<replayed output>"}} — each listed row's sealed
bijotel.replay.output_hash must be the SHA-256 of that output's UTF-8 bytes.
Prints one JSON object {valid, rows, head, problems[]}; exit 0 when valid, 3 when not.
"""
import hashlib
import hmac
import json
import math
import sqlite3
import sys

GENESIS = "0" * 64
SPAN_KEYS = {"attributes", "end_time_ns", "kind", "name", "start_time_ns", "status_code", "status_description"}


def es6_number(x):
    """ECMAScript Number::toString, as RFC 8785 §3.2.2.3 requires (ints and finite floats)."""
    if isinstance(x, bool):
        raise ValueError("bool is not a number")
    if isinstance(x, int):
        if abs(x) > 2**53 - 1:
            raise ValueError("integer beyond 2^53-1")
        return str(x)
    if not math.isfinite(x):
        raise ValueError("NaN/Infinity")
    if x == 0:
        return "0"
    if x.is_integer() and abs(x) < 1e21:
        return str(int(x))
    r = repr(x)  # shortest round-trip digits, as ES6
    mant, _, exp = r.partition("e")
    sign = "-" if mant.startswith("-") else ""
    mant = mant.lstrip("-")
    if not exp:
        return sign + mant
    digits = mant.replace(".", "").rstrip("0") or "0"
    e = int(exp) + (len(mant.split(".")[0]) - 1)  # exponent of the first digit
    if -7 < e < 21:
        if e < 0:
            return sign + "0." + "0" * (-e - 1) + digits
        digits = digits.ljust(e + 1, "0")
        return sign + digits[: e + 1] + ("." + digits[e + 1 :] if digits[e + 1 :] else "")
    frac = digits[1:]
    return sign + digits[0] + ("." + frac if frac else "") + "e" + ("+" if e > 0 else "-") + str(abs(e))


def jcs_string(s):
    out = ['"']
    for ch in s:
        c = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch in "\b\f\n\r\t":
            out.append({"\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}[ch])
        elif c < 0x20:
            out.append("\\u%04x" % c)
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def jcs(v):
    """RFC 8785: keys sorted by UTF-16 code units, no whitespace, ES6 numbers, minimal escaping."""
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, (int, float)):
        return es6_number(v)
    if isinstance(v, str):
        return jcs_string(v)
    if isinstance(v, list):
        return "[" + ",".join(jcs(x) for x in v) + "]"
    if isinstance(v, dict):
        keys = sorted(v.keys(), key=lambda k: k.encode("utf-16-be"))
        return "{" + ",".join(jcs_string(k) + ":" + jcs(v[k]) for k in keys) + "}"
    raise ValueError("not JSON: %r" % type(v))


def main():
    db_path, secret_hex = sys.argv[1], sys.argv[2]
    outputs = {}
    if len(sys.argv) > 3:
        with open(sys.argv[3], encoding="utf-8") as f:
            outputs = {int(k): v for k, v in json.load(f)["outputs"].items()}
    key = bytes.fromhex(secret_hex)
    con = sqlite3.connect("file:%s?mode=ro" % db_path, uri=True)
    rows = con.execute(
        "SELECT seq, timestamp_ns, span_name, canonical_body, canonical_hash, prev_hash, hmac_hash "
        "FROM chain ORDER BY seq"
    ).fetchall()
    con.close()
    problems = []
    prev = GENESIS
    expected_seq = 1
    seen = {}
    for seq, ts, span_name, body, canonical_hash, prev_hash, hmac_hash in rows:
        body = bytes(body)
        if seq != expected_seq:
            problems.append("seq %d: expected seq %d" % (seq, expected_seq))
        expected_seq = seq + 1
        if hashlib.sha256(body).hexdigest() != canonical_hash:
            problems.append("seq %d: canonical_hash is not SHA-256 of the body" % seq)
        if prev_hash != prev:
            problems.append("seq %d: prev_hash does not link to the previous row" % seq)
        mac = hmac.new(key, (prev_hash + canonical_hash).encode("utf-8"), hashlib.sha256).hexdigest()
        if mac != hmac_hash:
            problems.append("seq %d: hmac_hash is not HMAC-SHA256(key, prev_hash || canonical_hash)" % seq)
        prev = hmac_hash
        doc = json.loads(body.decode("utf-8"))
        if jcs(doc).encode("utf-8") != body:
            problems.append("seq %d: body is not in RFC 8785 canonical form" % seq)
        if isinstance(doc, dict) and set(doc.keys()) == SPAN_KEYS:
            if doc["name"] != span_name:
                problems.append("seq %d: span_name column differs from the sealed name" % seq)
            if doc["end_time_ns"] is not None and int(doc["end_time_ns"]) != ts:
                problems.append("seq %d: timestamp_ns column differs from the sealed end_time_ns" % seq)
            seen[seq] = doc["attributes"]
    for seq, output in outputs.items():
        attrs = seen.get(seq)
        want = hashlib.sha256(output.encode("utf-8")).hexdigest()
        if attrs is None or attrs.get("bijotel.replay.output_hash") != want:
            problems.append("seq %d: sealed output_hash is not SHA-256 of the output" % seq)
    result = {"valid": not problems, "rows": len(rows), "head": prev, "problems": problems}
    print(json.dumps(result))
    sys.exit(0 if not problems else 3)


if __name__ == "__main__":
    main()
