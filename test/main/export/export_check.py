#!/usr/bin/env python3
"""An independent checker of a BIJOTEL export file, written from the reference's format alone
(§9.1 layout, §9.2 checks; Python stdlib, plus `cryptography` for the Ed25519 signature when it is
installed). No code of the project is used.

usage: export_check.py EXPORT CHAIN_DB_COPY SECRET_HEX [PUBLIC_KEY_PEM]

CHAIN_DB_COPY is a private copy of the chain the export was made from (SQLite opens it): every
entry is compared with its row field by field. Prints one JSON object
{ok, entries, problems[], ed25519: "verified" | "no library" | "unsigned"}; exit 0 when ok, 1 when not.
"""
import base64
import binascii
import hashlib
import hmac
import json
import sqlite3
import sys

GENESIS = "0" * 64
TOP_KEYS = ["version", "format", "created_at", "entries_count", "head_hash", "chain_signature", "entries"]
ENTRY_KEYS = [
    "seq", "timestamp_ns", "trace_id", "span_id", "span_name", "span_kind",
    "canonical_body_b64", "canonical_hash", "semantic_body_hash", "prev_hash", "hmac_hash",
]
SEGMENT_KEYS = [
    "first_seq", "last_seq", "total_in_segment", "total_in_full_chain", "boundary_prev_hash", "is_complete_chain",
]
SIGNATURE_KEYS = ["public_key", "signature", "signed_over", "algorithm"]


def pairs(items):
    # Keep every key in document order (and duplicates visible) for the key-order checks.
    return list(items)


def main():
    path, db_path, secret_hex = sys.argv[1:4]
    pub_pem = sys.argv[4] if len(sys.argv) > 4 else None
    secret = bytes.fromhex(secret_hex)
    problems = []
    text = open(path, encoding="utf-8").read()

    # §9.1: json.dumps(payload, indent=2), ASCII-escaped: re-dumping what was read gives the same text.
    doc = json.loads(text)
    if json.dumps(doc, indent=2) != text:
        problems.append("layout is not json.dumps(payload, indent=2)")

    raw = json.loads(text, object_pairs_hook=pairs)
    top = [k for k, _ in raw]
    extra = top[len(TOP_KEYS):]
    if top[: len(TOP_KEYS)] != TOP_KEYS or extra not in ([], ["segment"], ["ed25519_signature"], ["segment", "ed25519_signature"]):
        problems.append("top-level keys %r" % top)
    if doc.get("version") != "1.0":
        problems.append("version %r" % doc.get("version"))
    signed = "ed25519_signature" in doc
    if doc.get("format") != ("bijotel-chain-v2" if signed else "bijotel-chain-v1"):
        problems.append("format %r" % doc.get("format"))
    created = doc.get("created_at", "")
    if not (isinstance(created, str) and created.endswith("+00:00")):
        problems.append("created_at %r" % created)

    entries = doc.get("entries", [])
    if doc.get("entries_count") != len(entries):
        problems.append("entries_count")
    head = entries[-1]["hmac_hash"] if entries else GENESIS
    if doc.get("head_hash") != head:
        problems.append("head_hash")
    want_sig = hmac.new(secret, ("chain:%s:%d" % (doc.get("head_hash"), len(entries))).encode(), hashlib.sha256).hexdigest()
    if doc.get("chain_signature") != want_sig:
        problems.append("chain_signature")

    raw_entries = dict(raw).get("entries", [])
    for e in raw_entries:
        keys = [k for k, _ in e]
        if keys != ENTRY_KEYS:
            problems.append("entry keys %r" % keys)
            break

    segment = doc.get("segment")
    prev = segment["boundary_prev_hash"] if segment else GENESIS
    for e in entries:
        seq = e.get("seq")
        try:
            body = base64.b64decode(e["canonical_body_b64"], validate=True)
        except (binascii.Error, ValueError):
            problems.append("base64 at seq=%s" % seq)
            continue
        if hashlib.sha256(body).hexdigest() != e["canonical_hash"]:
            problems.append("body hash at seq=%s" % seq)
        mac = hmac.new(secret, (e["prev_hash"] + e["canonical_hash"]).encode(), hashlib.sha256).hexdigest()
        if mac != e["hmac_hash"]:
            problems.append("hmac at seq=%s" % seq)
        if e["prev_hash"] != prev:
            problems.append("link at seq=%s" % seq)
        prev = e["hmac_hash"]

    # Field by field against the chain's rows (read by SQLite from the private copy).
    conn = sqlite3.connect("file:%s?mode=ro" % db_path, uri=True)
    try:
        total = conn.execute("SELECT COUNT(*) FROM chain").fetchone()[0]
        if entries:
            rows = conn.execute(
                "SELECT seq, timestamp_ns, trace_id, span_id, span_name, span_kind, canonical_body, canonical_hash,"
                " semantic_body_hash, prev_hash, hmac_hash FROM chain WHERE seq BETWEEN ? AND ? ORDER BY seq",
                (entries[0]["seq"], entries[-1]["seq"]),
            ).fetchall()
        else:
            rows = []
    finally:
        conn.close()
    if len(rows) != len(entries):
        problems.append("rows %d vs entries %d" % (len(rows), len(entries)))
    for row, e in zip(rows, entries):
        body = row[6] if isinstance(row[6], bytes) else str(row[6]).encode("utf-8")
        want = dict(zip(ENTRY_KEYS, list(row[:6]) + [base64.b64encode(body).decode("ascii")] + list(row[7:])))
        for k in ENTRY_KEYS:
            if e.get(k) != want[k] or type(e.get(k)) is not type(want[k]):
                problems.append("seq=%s field %s" % (row[0], k))

    if segment is not None:
        keys = [k for k, _ in dict(raw)["segment"]]
        if keys != SEGMENT_KEYS:
            problems.append("segment keys %r" % keys)
        want = {
            "first_seq": entries[0]["seq"],
            "last_seq": entries[-1]["seq"],
            "total_in_segment": len(entries),
            "total_in_full_chain": total,
            "boundary_prev_hash": entries[0]["prev_hash"],
            "is_complete_chain": entries[0]["seq"] == 1 and entries[-1]["seq"] == total,
        }
        for k, v in want.items():
            if segment.get(k) != v:
                problems.append("segment %s: %r, expected %r" % (k, segment.get(k), v))

    ed = "unsigned"
    if signed:
        block = dict(raw)["ed25519_signature"]
        if [k for k, _ in block] != SIGNATURE_KEYS:
            problems.append("signature keys")
        sig = doc["ed25519_signature"]
        if sig.get("signed_over") != "chain_signature" or sig.get("algorithm") != "Ed25519":
            problems.append("signature block fields")
        raw_pub = base64.b64decode(sig["public_key"], validate=True)
        signature = base64.b64decode(sig["signature"], validate=True)
        if len(raw_pub) != 32 or len(signature) != 64:
            problems.append("signature sizes")
        try:
            from cryptography.exceptions import InvalidSignature
            from cryptography.hazmat.primitives import serialization
            from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
        except ImportError:
            ed = "no library"
        else:
            key = Ed25519PublicKey.from_public_bytes(raw_pub)
            try:
                key.verify(signature, doc["chain_signature"].encode("ascii"))
                ed = "verified"
            except InvalidSignature:
                problems.append("ed25519 signature does not verify")
                ed = "invalid"
            if pub_pem is not None:
                given = serialization.load_pem_public_key(open(pub_pem, "rb").read())
                mine = given.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
                if mine != raw_pub:
                    problems.append("embedded public key is not the given one")

    print(json.dumps({"ok": not problems, "entries": len(entries), "problems": problems[:20], "ed25519": ed}))
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main())
