# The reference's FastAPI reads `seq: int` with pydantic v2 in lax mode (python mode, after
# json.loads of the body). Reads a JSON list of JSON texts on stdin; prints, for each, the int
# pydantic reads from it (as a decimal string) or null for its 422.
import json
import sys

from pydantic import BaseModel, ValidationError


class Body(BaseModel):
    seq: int


out = []
for text in json.load(sys.stdin):
    try:
        out.append(str(Body.model_validate({"seq": json.loads(text)}).seq))
    except (ValidationError, ValueError):
        out.append(None)
json.dump(out, sys.stdout)
