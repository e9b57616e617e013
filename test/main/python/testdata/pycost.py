# A model of Python BIJOTEL's `_calc_cost` (reference §4.10, the cost line of `list` and `inspect`),
# written from the reference's description, used as the oracle of ../cost-text.test.ts. It is NOT
# BIJOTEL's code. Reads a JSON list of canonical-body texts on stdin; prints a JSON list with, per
# body, the cost string Python prints, or "RAISE:<exception type>" where Python's command would
# stop with a traceback (its list/inspect print no cost line then).
# The settled model of the rule (round 11): the reference's `model not in PRICES` and `model[:30]`
# take the model as it is, so a model that is not a string stops Python — a list or an object is
# unhashable, a truthy number or bool is not subscriptable (TypeError); null, 0, false and "" are
# falsy: `?(none)`. ../../browse/testdata/pybrowse.py imports `cost` from here.
# PRICES (USD per 1K tokens) come from the JSON file in the environment variable PRICES_JSON.
import json, os, sys

PRICES = json.load(open(os.environ["PRICES_JSON"]))["prices"]


def cost(body):
    attrs = body.get("attributes", {})
    model = attrs.get("gen_ai.request.model", "")
    i = attrs.get("gen_ai.usage.input_tokens")
    o = attrs.get("gen_ai.usage.output_tokens")
    if i is None or o is None:
        return "-"
    if model not in PRICES:
        return "?" + (model[:30] if model else "(none)")
    c = (i * PRICES[model]["input"] + o * PRICES[model]["output"]) / 1000
    if c == 0:
        return "$0.0000"
    if c < 0.0001:
        return "<$0.0001"
    return f"${c:.4f}"


if __name__ == "__main__":
    out = []
    for text in json.load(sys.stdin):
        try:
            out.append(cost(json.loads(text)))
        except Exception as e:  # what Python's command would die of
            out.append("RAISE:" + type(e).__name__)
    print(json.dumps(out))
