# Side tables of generated values for `stats` (reference §4.10): `cas.ref_count` and
# `policy_daily_state.total_tokens` as INTEGER or REAL (floats of every magnitude, -0.0, inf, ints to
# ±2^63), written by Python's sqlite3 as the policy engine and the CAS would store them.
#   python3 stats-values.py DIR COUNT SEED  ->  JSON list of paths
import json, os, random, sqlite3, sys


def value(rnd):
    r = rnd.random()
    if r < 0.3:
        return rnd.choice([0, 1, -1, 999, 1000, 1234567, 2**63 - 1, -(2**63), 10**15, 10**16])
    if r < 0.45:
        return rnd.choice([-0.0, 0.0, float("inf"), float("-inf"), 0.1, 2.5, 1e16, 1e15, 999999999999999.9])
    return rnd.choice([1, -1]) * rnd.uniform(1, 10) * 10 ** rnd.randint(-12, 300)


def main():
    d, count, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rnd = random.Random(seed)
    out = []
    for k in range(count):
        p = os.path.join(d, f"s{k}.db")
        db = sqlite3.connect(p)
        db.execute("CREATE TABLE chain (seq INTEGER PRIMARY KEY, timestamp_ns INTEGER, trace_id TEXT, span_id TEXT, span_name TEXT, span_kind TEXT, canonical_body BLOB, canonical_hash TEXT, prev_hash TEXT, hmac_hash TEXT, semantic_body_hash TEXT)")
        db.execute("CREATE TABLE cas (body_hash TEXT, body BLOB, first_seen_ns INTEGER, ref_count)")
        db.execute("CREATE TABLE policy_daily_state (date TEXT, total_tokens)")
        refs = [value(rnd) if rnd.random() < 0.5 else rnd.randint(0, 50) for _ in range(rnd.randint(0, 3))]
        # SUM() of integers past 2^63 is SQLite's "integer overflow": keep the ints' sum inside.
        if sum(x for x in refs if isinstance(x, int)) not in range(-(2**63), 2**63):
            refs = [1]
        for i, v in enumerate(refs):
            db.execute("INSERT INTO cas VALUES (?, x'00', 1, ?)", (f"h{i}", v))
        for day in range(rnd.randint(1, 9)):
            db.execute("INSERT INTO policy_daily_state VALUES (?, ?)", (f"2025-01-{day + 1:02d}", value(rnd)))
        db.commit()
        db.close()
        out.append(p)
    print(json.dumps(out))


main()
