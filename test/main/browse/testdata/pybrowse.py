# An independent Python re-implementation of Python BIJOTEL's read-only commands `list`, `inspect` and
# `stats` (reference §4.10) and `regression` (§8), written from the reference spec, used as a
# differential oracle by ../browse.cli.test.ts and ../../drift/regression.cli.test.ts: Python's own f-string
# padding, float formatting, json.dumps and datetime rounding give the expected text. It is NOT
# BIJOTEL's code. One departure, the project's: `list` applies its filters before LIMIT/OFFSET.
#   python3 pybrowse.py list DB_COPY [--blocked] [--rule R] [--model M] [--since D] [--limit N] [--offset N]
#   python3 pybrowse.py inspect DB_COPY ID
#   python3 pybrowse.py stats DB_COPY
#   python3 pybrowse.py regression DB_COPY [--dimension D] [--model M] [--window N] [--z-threshold Z] [--json]
# PRICES (USD per 1K tokens) come from the JSON file in the environment variable PRICES_JSON.
import datetime, json, os, sqlite3, statistics, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python", "testdata"))
import pycost  # noqa: E402 — the one model of the reference's _calc_cost

PRICES = pycost.PRICES


def body_of(b):
    try:
        return json.loads(b.decode("utf-8"))
    except (ValueError, UnicodeDecodeError, AttributeError):
        return {}


def attrs_of(d):
    a = d.get("attributes", {}) if isinstance(d, dict) else {}
    return a if isinstance(a, dict) else {}


def status(a):
    if a.get("bijotel.blocked") is True:
        return "BLOCKED"
    if "bijotel.policy.warning" in a:
        return "WARN"
    return "ALLOWED"


def cost(a):
    # The reference's rule is pycost's. Where it stops Python on a model that is not a string
    # (unhashable, or not subscriptable: TypeError), this tool prints what the row holds instead of
    # dying: `?` and the model's str()[:30], `?(none)` when it is falsy (docs/engines.md).
    try:
        return pycost.cost({"attributes": a})
    except TypeError:
        model = a.get("gen_ai.request.model", "")
        if isinstance(model, str):
            raise
        return "?" + (str(model)[:30] if model else "(none)")


def ftime(ns):
    return datetime.datetime.fromtimestamp(ns / 1e9, tz=datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def opt(args, name, default=None, flag=False):
    if name not in args:
        return default
    i = args.index(name)
    return True if flag else args[i + 1]


def do_list(conn, args):
    cond, params = [], []
    since = opt(args, "--since")
    if since:
        dt = datetime.datetime.strptime(since, "%Y-%m-%d").replace(tzinfo=datetime.timezone.utc)
        cond.append("timestamp_ns >= ?")
        params.append(int(dt.timestamp() * 1e9))
    where = (" WHERE " + " AND ".join(cond)) if cond else ""
    rows = conn.execute(f"SELECT seq, timestamp_ns, trace_id, canonical_body FROM chain{where} ORDER BY seq DESC", params)
    limit, offset = int(opt(args, "--limit", 50)), max(0, int(opt(args, "--offset", 0)))
    blocked, rule, model = opt(args, "--blocked", flag=True), opt(args, "--rule"), opt(args, "--model")
    out = []
    for seq, ts, trace, b in rows:
        a = attrs_of(body_of(b))
        if blocked and a.get("bijotel.blocked") is not True:
            continue
        if rule and not (a.get("bijotel.policy.rule") == rule or a.get("bijotel.policy.warning") == rule):
            continue
        if model and a.get("gen_ai.request.model") != model:
            continue
        if offset:
            offset -= 1
            continue
        if 0 <= limit <= len(out):
            break
        out.append((seq, ts, trace, a))
    if not out:
        print("(no spans match filters)")
        return
    print(f"{'seq':<6} {'timestamp':<22} {'trace_id':<18} {'model':<28} {'status':<8} {'cost':<10}")
    print("-" * 92)
    for seq, ts, trace, a in out:
        m = str(a.get("gen_ai.request.model") or "-")[:27]
        print(f"{seq:<6} {ftime(ts):<22} {trace[:16] + '..':<18} {m:<28} {status(a):<8} {cost(a):<10}")
    print(f"\n({len(out)} spans)")


def rag(a):
    # v2.6.0's RAG Provenance block: only with a source count; up to five sources, then a count of
    # the rest. Values Python's formatting cannot take raise here as they do there.
    if a.get("bijotel.rag.source_count") is None:
        return
    out = ["", "=== RAG Provenance ===", "source_count:   %s" % (a["bijotel.rag.source_count"],)]
    out.append("retriever:      %s" % (a.get("bijotel.rag.retriever_id") or "(none)",))
    out.append("embedding:      %s" % (a.get("bijotel.rag.embedding_model") or "(none)",))
    if a.get("bijotel.rag.total_context_tokens") is not None:
        out.append("context_tokens: %s" % (a["bijotel.rag.total_context_tokens"],))
    print("\n".join(out))
    raw = a.get("bijotel.rag.sources")
    if not raw:
        return
    try:
        items = json.loads(raw)
    except (TypeError, ValueError):
        print("  (sources JSON unparseable: %r)" % (raw,))
        return
    if type(items) is not list:
        return
    for n, src in enumerate(items[:5]):
        doc = (src.get("document_id") or "")[:36]
        sim = format(src.get("similarity_score", 0.0), ".3f")
        print("  source %d: doc=%s  chunk=%s  retriever=%s  sim=%s" % (n + 1, doc, src.get("chunk_index", "?"), src.get("retriever") or "-", sim))
    if len(items) > 5:
        print("  ... and %d more" % (len(items) - 5))


def do_inspect(conn, args):
    ident = args[0]
    q = "SELECT * FROM chain WHERE seq = ?" if ident.isdigit() else "SELECT * FROM chain WHERE span_id = ? ORDER BY seq"
    cur = conn.execute(q, (int(ident) if ident.isdigit() else ident,))
    row = cur.fetchone()
    if not row:
        print(f"No span found for: {ident}", file=sys.stderr)
        return 1
    r = dict(zip([d[0] for d in cur.description], row))
    print("=== Span Metadata ===")
    print(f"seq:                 {r['seq']}")
    print(f"timestamp:           {ftime(r['timestamp_ns'])}")
    for k in ("trace_id", "span_id", "span_name", "span_kind", "canonical_hash"):
        print(f"{k + ':':<21}{r[k]}")
    print(f"semantic_body_hash:  {r.get('semantic_body_hash') or '(none)'}")
    print(f"prev_hash:           {r['prev_hash']}")
    print(f"hmac_hash:           {r['hmac_hash']}")
    d = body_of(r["canonical_body"])
    a = attrs_of(d)
    print(f"\n=== Status: {status(a)} ===")
    print(f"Cost (real): {cost(a)}")
    rag(a)
    print("\n=== Canonical Body (decoded) ===")
    print(json.dumps(d, indent=2, ensure_ascii=False))
    sem = r.get("semantic_body_hash")
    if sem:
        try:
            hit = conn.execute("SELECT body, first_seen_ns, ref_count FROM cas WHERE body_hash = ?", (sem,)).fetchone()
        except sqlite3.OperationalError:
            print("\n=== CAS: table not present ===")
            return 0
        if hit:
            print("\n=== CAS Entry ===")
            print(f"body_hash:     {sem}")
            print(f"first_seen:    {ftime(hit[1])}")
            print(f"ref_count:     {hit[2]}")
        else:
            print("\n=== CAS: no entry (no semantic_body_hash) ===")
    return 0


def do_stats(conn, args):
    n = conn.execute("SELECT COUNT(*) FROM chain").fetchone()[0]
    c = {"ALLOWED": 0, "WARN": 0, "BLOCKED": 0}
    for (b,) in conn.execute("SELECT canonical_body FROM chain"):
        c[status(attrs_of(body_of(b)))] += 1
    print("=== Chain ===")
    print(f"Total spans:    {n}")
    print(f"  ALLOWED:      {c['ALLOWED']}")
    print(f"  WARN:         {c['WARN']}")
    print(f"  BLOCKED:      {c['BLOCKED']}")
    try:
        u, t = conn.execute("SELECT COUNT(*), COALESCE(SUM(ref_count), 0) FROM cas").fetchone()
        print("\n=== CAS ===")
        print(f"Unique bodies:  {u}")
        print(f"Total refs:     {t}")
        print(f"Dedup factor:   {(t / u if u > 0 else 0):.2f}x")
    except sqlite3.OperationalError:
        print("\n=== CAS: table not present ===")
    try:
        rows = conn.execute("SELECT date, total_tokens FROM policy_daily_state ORDER BY date DESC LIMIT 7").fetchall()
        if rows:
            print("\n=== Policy Daily State (last 7 days) ===")
            for d, tok in rows:
                print(f"  {d}:  {tok:,} tokens")
    except sqlite3.OperationalError:
        pass


DIMENSIONS = ("input_tokens", "output_tokens", "cost", "cache_ratio", "reasoning_ratio", "ttfc_ms")


def dim_value(d, dim):
    a = attrs_of(d)
    if dim in ("input_tokens", "output_tokens"):
        v = a.get("gen_ai.usage." + dim)
        return float(v) if v is not None else None
    if dim == "cost":
        m, i, o = a.get("gen_ai.request.model", ""), a.get("gen_ai.usage.input_tokens"), a.get("gen_ai.usage.output_tokens")
        if not isinstance(m, str) or m not in PRICES or i is None or o is None:
            return None
        return (i * PRICES[m]["input"] + o * PRICES[m]["output"]) / 1000
    if dim == "cache_ratio":
        i, c = a.get("gen_ai.usage.input_tokens"), a.get("gen_ai.usage.cache_read.input_tokens")
        if i is None or c is None or float(i) + float(c) <= 0:
            return None
        return float(c) / (float(i) + float(c))
    if dim == "reasoning_ratio":
        o, r = a.get("gen_ai.usage.output_tokens"), a.get("gen_ai.usage.reasoning.output_tokens")
        if o is None or r is None or float(o) + float(r) <= 0:
            return None
        return float(r) / (float(o) + float(r))
    v = a.get("gen_ai.response.time_to_first_chunk")
    return float(v) if v is not None else None


def pct(s, p):
    n = len(s)
    if n == 1:
        return s[0]
    rank = (n - 1) * (p / 100)
    lo = int(rank)
    hi = min(lo + 1, n - 1)
    w = rank - lo
    return s[lo] * (1 - w) + s[hi] * w


def parsed(b):
    try:
        d = json.loads(b.decode("utf-8") if isinstance(b, bytes) else b)
    except (ValueError, UnicodeDecodeError, AttributeError):
        return None
    return d if isinstance(d, dict) else None


def detect(conn, dim, model, window, z_thr):
    mx = conn.execute("SELECT MAX(seq) FROM chain").fetchone()[0] or 0
    since = max(1, mx - 49)
    vals = []
    for (b,) in conn.execute("SELECT canonical_body FROM chain WHERE seq < ? ORDER BY seq DESC", (since,)):
        d = parsed(b)
        if d is None or (model is not None and attrs_of(d).get("gen_ai.request.model") != model):
            continue
        v = dim_value(d, dim)
        if v is None:
            continue
        vals.append(v)
        if len(vals) >= window:
            break
    if len(vals) < 5:
        return []
    s = sorted(vals)
    mean, sd = statistics.fmean(vals), statistics.stdev(vals)
    p25, p50, p75 = pct(s, 25), pct(s, 50), pct(s, 75)
    iqr = p75 - p25
    out = []
    for seq, ts, b in conn.execute("SELECT seq, timestamp_ns, canonical_body FROM chain WHERE seq >= ? ORDER BY seq", (since,)):
        d = parsed(b)
        if d is None or (model is not None and attrs_of(d).get("gen_ai.request.model") != model):
            continue
        v = dim_value(d, dim)
        if v is None:
            continue
        z, zt = None, False
        if sd > 0:
            z = (v - mean) / sd
            zt = abs(z) >= z_thr
        q, qt = None, False
        if iqr > 0 and (v < p25 - 1.5 * iqr or v > p75 + 1.5 * iqr):
            q, qt = (v - p50) / iqr, True
        if zt and qt:
            out.append({"seq": seq, "timestamp": ftime(ts), "dimension": dim, "value": v, "baseline_mean": mean,
                        "z_score": z, "iqr_distance": q, "method_triggered": "both", "severity": "anomaly"})
    return out


def do_regression(conn, args):
    dims = [opt(args, "--dimension")] if opt(args, "--dimension") else list(DIMENSIONS)
    model, window, z = opt(args, "--model"), int(opt(args, "--window", 100)), float(opt(args, "--z-threshold", 3.0))
    results = {d: detect(conn, d, model, window, z) for d in dims}
    if opt(args, "--json", flag=True):
        print(json.dumps({d: a for d, a in results.items()}))
        return
    total = 0
    for d, an in results.items():
        if not an:
            print(f"[{d}] no anomalies detected")
            continue
        print(f"\n[{d}] {len(an)} anomalies:")
        print(f"  {'seq':<6} {'timestamp':<22} {'value':<14} {'baseline':<14} {'z-score':<10} {'iqr-dist':<10} {'severity':<10}")
        print("  " + "-" * 90)
        for a in an:
            zs = f"{a['z_score']:+.2f}" if a["z_score"] is not None else "N/A"
            qs = f"{a['iqr_distance']:+.2f}" if a["iqr_distance"] is not None else "N/A"
            print(f"  {a['seq']:<6} {a['timestamp']:<22} {a['value']:<14.4f} {a['baseline_mean']:<14.4f} {zs:<10} {qs:<10} {a['severity']:<10}")
        total += len(an)
    print(f"\nTotal anomalies: {total}")


def main():
    cmd, path, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    rc = {"list": do_list, "inspect": do_inspect, "stats": do_stats, "regression": do_regression}[cmd](conn, args)
    sys.exit(rc or 0)


if __name__ == "__main__":
    main()
