# Writes chains whose token counts are JSON int literals of 300-320 digits (some past the double
# range, whose float() raises OverflowError in Python) among ordinary counts, and prints per chain and
# dimension how many rows give a datapoint — in the evaluated seqs and in the baseline — when a value
# whose float()/arithmetic raises gives none (README: regression, odd values give no datapoint).
#   python3 bigint-counts.py DIR COUNT SEED  ->  JSON list of {path, dims: {dim: [evaluated, samples]}}
import json, os, random, sqlite3, sys

PRICES = json.load(open(os.environ["PRICES_JSON"]))["prices"]


def value(a, dim):
    try:
        if dim == "input_tokens":
            v = a.get("gen_ai.usage.input_tokens")
            return float(v) if v is not None else None
        if dim == "cost":
            m, i, o = a.get("gen_ai.request.model", ""), a.get("gen_ai.usage.input_tokens"), a.get("gen_ai.usage.output_tokens")
            if m not in PRICES or i is None or o is None:
                return None
            return (i * PRICES[m]["input"] + o * PRICES[m]["output"]) / 1000
        i, c = a.get("gen_ai.usage.input_tokens"), a.get("gen_ai.usage.cache_read.input_tokens")
        if i is None or c is None or float(i) + float(c) <= 0:
            return None
        return float(c) / (float(i) + float(c))
    except OverflowError:
        return None


def main():
    d, count, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rnd = random.Random(seed)
    model = next(iter(PRICES))
    out = []
    for k in range(count):
        path = os.path.join(d, f"big{k}.db")
        db = sqlite3.connect(path)
        db.execute("CREATE TABLE chain (seq INTEGER PRIMARY KEY, timestamp_ns INTEGER, canonical_body BLOB, canonical_hash TEXT, prev_hash TEXT, hmac_hash TEXT)")
        n = rnd.randint(56, 140)
        attrs = []
        for i in range(n):
            def count_():
                if rnd.random() < 0.12:
                    return str(rnd.randint(1, 9)) + "".join(str(rnd.randint(0, 9)) for _ in range(rnd.randint(299, 319)))
                return str(rnd.randint(50, 150))
            fields = {"gen_ai.request.model": json.dumps(model), "gen_ai.usage.input_tokens": count_(),
                      "gen_ai.usage.output_tokens": count_(), "gen_ai.usage.cache_read.input_tokens": count_()}
            body = "{\"attributes\":{" + ",".join(f"{json.dumps(key)}:{v}" for key, v in sorted(fields.items())) + "}}"
            attrs.append(json.loads(body)["attributes"])
            db.execute("INSERT INTO chain VALUES (?,?,?,?,?,?)", (i + 1, 1_700_000_000_000_000_000 + i * 10**9, body.encode(), "h%d" % i, "0" * 64, "0" * 64))
        db.commit()
        db.close()
        since = max(1, n - 49)
        dims = {}
        for dim in ("input_tokens", "cost", "cache_ratio"):
            vals = [value(a, dim) for a in attrs]
            evaluated = sum(1 for s, v in enumerate(vals, 1) if s >= since and v is not None)
            base = sum(1 for s, v in enumerate(vals, 1) if s < since and v is not None)
            samples = min(100, base) if base >= 5 else 0
            dims[dim] = [evaluated, samples]
        out.append({"path": path, "dims": dims})
    print(json.dumps(out))


main()
