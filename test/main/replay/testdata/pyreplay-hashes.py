# Python BIJOTEL's replay block for sealed bijotel.replay.output_hash values of every JSON type
# (reference §6.2, §6.4), from a model written from the spec (not BIJOTEL's code): the body read by
# json.loads; `original = attrs.get(...)`, None -> no metadata; a match only when it equals the
# replayed output's SHA-256 hex (a str, exact, case-sensitive); the block printed by f-strings,
# `original_hash or '(none — …)'` and `model_version or '(unknown)'` (str() of the value).
# Values: the matching hash, it in upper case or with white space around, falsy values (0, 0.0,
# false, [], {}, ""), truthy non-strings, null. A minimal chain table (seq, canonical_body).
#   python3 pyreplay-hashes.py DB COUNT SEED  ->  JSON list of {seq, output, code, lines}
import hashlib, json, random, sqlite3, sys

NONE = "(none \u2014 entry has no replay metadata)"
OUTPUTS = ["x", "hello world", "- a bullet", "\u00e9t\u00e9", "the truth"]


def hash_literal(rnd, h):
    return rnd.choice([
        json.dumps(h), json.dumps(h.upper()), json.dumps(" " + h), json.dumps(h + " "), json.dumps(h[:63]),
        "0", "0.0", "-0.0", "false", "[]", "{}", '""', "null", "1", "true", "[0]", '{"h":"%s"}' % h,
        "1.0", "12345678901234567890", json.dumps(hashlib.sha256(b"other").hexdigest()),
    ])


def main():
    path, count, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rnd = random.Random(seed)
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE chain (seq INTEGER PRIMARY KEY, timestamp_ns INTEGER, canonical_hash TEXT, prev_hash TEXT, canonical_body BLOB)")
    out = []
    for seq in range(1, count + 1):
        output = rnd.choice(OUTPUTS)
        rh = hashlib.sha256(output.encode("utf-8")).hexdigest()
        oh = hash_literal(rnd, rh)
        det = rnd.choice(["true", "false", "0", "[1]"])
        mv = rnd.choice(['"m-1"', "0", "null", '""'])
        body = '{"attributes":{"bijotel.replay.output_hash":%s,"bijotel.replay.deterministic":%s,"bijotel.replay.model_version":%s}}' % (oh, det, mv)
        db.execute("INSERT INTO chain VALUES (?,?,?,?,?)", (seq, 1700000000000000000 + seq, "h", "0" * 64, body.encode()))
        a = json.loads(body)["attributes"]
        original, m, d = a.get("bijotel.replay.output_hash"), a.get("bijotel.replay.model_version"), bool(a.get("bijotel.replay.deterministic"))
        if original is None:
            match, reason = False, "chain entry has no bijotel.replay.output_hash (logged before v2.7.0 or replay metadata not attached)"
        elif original == rh:
            match, reason = True, None
        elif d:
            match, reason = False, f"output hash mismatch \u2014 re-execute against the SAME model version that produced the original ({m!r}) and verify the prompt hash before treating this as tampering"
        else:
            match, reason = False, "output hash mismatch \u2014 original call did not record a seed (deterministic=False); replay drift is expected"
        lines = [
            f"=== Replay {'MATCH' if match else 'MISMATCH'} (seq={seq}) ===",
            f"  original_hash:  {original or NONE}",
            f"  replay_hash:    {rh}",
            f"  deterministic:  {d}",
            f"  model_version:  {m or '(unknown)'}",
        ]
        if reason:
            lines.append(f"  reason:         {reason}")
        out.append({"seq": seq, "output": output, "code": 0 if match else 3, "lines": lines})
    db.commit()
    print(json.dumps(out))


main()
