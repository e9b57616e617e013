# Python BIJOTEL's replay text lines for sealed model_version values of every JSON type (reference
# §6.2, §6.4), from a model written from the spec (not BIJOTEL's code): the body read by json.loads,
# `model_version or '(unknown)'` printed by an f-string (str()), the deterministic reason quoting
# repr(). Values: ints past 2^53, floats written 1.0 / 1e2 / 1E400, nested lists and dicts of them,
# booleans, falsy values, text. A minimal chain table (seq, canonical_body), as the reference's tests.
#   python3 pyreplay-values.py DB COUNT SEED  ->  JSON list of {seq, lines}
import hashlib, json, random, sqlite3, sys

ATOMS = ["0", "1", "-7", "1.0", "-0.0", "2.50", "1e2", "1E400", "-1e400", "12345678901234567890",
         "9007199254740993", "true", "false", "null", '"claude-haiku-4-5"', '""', '"it\'s"', '"a\\"b"',
         '"\\u00e9"', "NaN", "Infinity", "0.1", "1e-7", "123456789.0"]


def value(rnd, depth=0):
    r = rnd.random()
    if depth < 2 and r < 0.2:
        return "[" + ",".join(value(rnd, depth + 1) for _ in range(rnd.randint(0, 3))) + "]"
    if depth < 2 and r < 0.35:
        return "{" + ",".join('"k%d":%s' % (i, value(rnd, depth + 1)) for i in range(rnd.randint(0, 3))) + "}"
    return rnd.choice(ATOMS)


def main():
    path, count, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rnd = random.Random(seed)
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE chain (seq INTEGER PRIMARY KEY, timestamp_ns INTEGER, canonical_hash TEXT, prev_hash TEXT, canonical_body BLOB)")
    out = []
    for seq in range(1, count + 1):
        mv = value(rnd)
        det = rnd.choice(["true", "1", "1.0", "false"])
        body = '{"attributes":{"bijotel.replay.output_hash":"%s","bijotel.replay.deterministic":%s,"bijotel.replay.model_version":%s}}' % ("0" * 64, det, mv)
        db.execute("INSERT INTO chain VALUES (?,?,?,?,?)", (seq, 1700000000000000000 + seq, "h", "0" * 64, body.encode()))
        a = json.loads(body)["attributes"]
        m = a["bijotel.replay.model_version"]
        lines = [f"  model_version:  {m or '(unknown)'}"]
        if a["bijotel.replay.deterministic"]:
            lines.append(f"  reason:         output hash mismatch \u2014 re-execute against the SAME model version that produced the original ({m!r}) and verify the prompt hash before treating this as tampering")
        else:
            lines.append("  reason:         output hash mismatch \u2014 original call did not record a seed (deterministic=False); replay drift is expected")
        out.append({"seq": seq, "lines": lines})
    db.commit()
    print(json.dumps(out))


main()
