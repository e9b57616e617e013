# Python's provider-shift detector (reference §5.2, §5.3.4, §5.4) over chains whose providers are
# JSON numbers, true, NaN/Infinity and strings (some bodies holding NaN or Infinity elsewhere), written with Python's sqlite3: providers counted in dicts (so 1,
# 1.0 and true are one key, named by the first seen), keys printed by json.dumps (JSON) and str()
# (text). Key order: sorted by the JSON key (the set order is hash-randomised); the text lines by
# descending |delta|, ties in that order. Not BIJOTEL's code: a model written from the spec.
#   python3 pyprov.py DIR COUNT SEED [same]  ->  JSON list of {path, json, text}
import json, os, random, sqlite3, sys

VALUES = ["1", "1.0", "true", "1e0", "10", "1E1", "10.0", "2", "2.0", "0.5", "5e-1", "-3", "-3.0",
          "1e400", "-1e400", "12345678901234567890", "1.2345678901234567e19", "9007199254740993",
          "9007199254740992.0", '"a"', '"b"', '"x y"', "0", "false", '""', "null", "[]", "{}",
          "NaN", "Infinity", "-Infinity"]
# Strings spelled as a number's JSON key: Python's dict holds "1" and 1 as two keys, and json.dumps
# prints the key "1" twice (mode `same`).
SAME = ['"1"', "1", "1.0", "true", '"true"', '"1.0"', '"Infinity"', "Infinity", '"NaN"', "NaN",
        '"-Infinity"', "-Infinity", '"10"', "1E1", "10.0", '"a"', '"1e0"', "1e0"]
# Attributes beside the provider that only json.loads reads (JSON.parse refuses the whole body).
EXTRAS = ["", "", ',"x":NaN', ',"y":[1,-Infinity]', ',"z":{"w":Infinity}']


def prov(b):
    try:
        d = json.loads(b.decode("utf-8"))
    except ValueError:
        return "unknown"
    a = d.get("attributes", {}) if isinstance(d, dict) else {}
    if not isinstance(a, dict):
        a = {}
    return a.get("gen_ai.provider.name") or a.get("gen_ai.system") or "unknown"


def jkey(p):
    return next(iter(json.loads(json.dumps({p: 0}))))


def report(path):
    rows = sqlite3.connect(path).execute("SELECT canonical_body FROM chain ORDER BY seq").fetchall()
    ps = [prov(r[0]) for r in rows]
    n = len(ps); mid = n // 2; base = {}; cur = {}; first = {}
    for i, p in enumerate(ps):
        first.setdefault(p, i)
    for p in ps[:mid]:
        base[p] = base.get(p, 0) + 1
    for p in ps[mid:]:
        cur[p] = cur.get(p, 0) + 1
    sh = {}
    # Ties of one JSON key (the set order is random there too) by the class's first row.
    for p in sorted(set(base) | set(cur), key=lambda p: (jkey(p), first[p])):
        bp = base.get(p, 0) / mid * 100; cp = cur.get(p, 0) / (n - mid) * 100
        if abs(cp - bp) > 20.0:
            sh[p] = {"baseline_pct": round(bp, 1), "current_pct": round(cp, 1), "delta_pct": round(cp - bp, 1)}
    js = json.dumps({"shifts": sh} if sh else None, separators=(",", ":"))
    lines = ["Provider distribution: stable"] if not sh else ["Provider distribution: SHIFT detected"] + [
        f"  WARN  {p}: {s['baseline_pct']}% -> {s['current_pct']}% ({s['delta_pct']:+.1f}pp)"
        for p, s in sorted(sh.items(), key=lambda kv: -abs(kv[1]["delta_pct"]))]
    return js, "\n".join(lines)


def main():
    d, count, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    values = SAME if sys.argv[4:] == ["same"] else VALUES
    rnd = random.Random(seed)
    out = []
    for k in range(count):
        path = os.path.join(d, f"prov{k}.db")
        db = sqlite3.connect(path)
        db.execute("CREATE TABLE chain (seq INTEGER PRIMARY KEY, timestamp_ns INTEGER, canonical_body BLOB, canonical_hash TEXT, prev_hash TEXT, hmac_hash TEXT)")
        n = rnd.choice([20, 21, 33, 40, 64])
        a, b = rnd.sample(values, rnd.randint(1, 4)), rnd.sample(values, rnd.randint(1, 4))
        for i in range(n):
            v = rnd.choice(a if i < n // 2 else b)
            key = "gen_ai.provider.name" if rnd.random() < 0.8 else "gen_ai.system"
            body = '{"attributes":{"%s":%s%s}}' % (key, v, rnd.choice(EXTRAS))
            db.execute("INSERT INTO chain VALUES (?,?,?,?,?,?)", (i + 1, 1_700_000_000_000_000_000 + i * 60 * 10**9, body.encode(), "h%d" % i, "0" * 64, "0" * 64))
        db.commit()
        db.close()
        js, text = report(path)
        out.append({"path": path, "json": js, "text": text})
    print(json.dumps(out))


main()
