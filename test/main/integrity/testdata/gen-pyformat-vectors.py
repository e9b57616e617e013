# Regenerate from the repo root: python3 test/main/integrity/testdata/gen-pyformat-vectors.py
# (then run `npx prettier --write test/main/integrity/testdata` so `prettier --check .` stays green)
import random, json, struct, math
random.seed(20261202)
xs=set()
for k in range(-300,301):
    xs.add(k/8); xs.add(k/1000); xs.add(k/200); xs.add(k/20+0.005); xs.add(k*0.05)
for v in [0.125,2.675,0.5,1.5,2.5,-0.5,-2.5,1e16,1e15,9999999999999998.0,1e-5,1e-4,0.0001,0.00011,1.5e-7,123456789012345678.0,1e22,1e21,1e-323,5e-324,2.2250738585072014e-308,1.7976931348623157e308,0.1,0.2,0.3,1/3,2/3,100.0,-75.0,-0.0,0.0,94.0,21.05,5.26,-172.757,7520.869,1e100,1.234e-100, 12345678901234567890.0, 0.000123456789, 0.05, 0.15, 0.25, 0.35, 1.005, 1.0005, 8.345, 1234.5, 1235.5]:
    xs.add(v)
for _ in range(600):
    e=random.randint(-30,30)
    xs.add(random.uniform(-1,1)*10**e)
for _ in range(300):
    bits=random.getrandbits(64)
    v=struct.unpack('<d',struct.pack('<Q',bits))[0]
    if math.isfinite(v): xs.add(v)
for mid in range(10,40):
    for c in range(0,mid+1):
        xs.add(c/mid*100); xs.add(c/mid*100 - (mid-c)/mid*100)
out=[]
for x in sorted(xs, key=lambda v:(v, math.copysign(1,v))):
    small=abs(x)<1e60
    out.append([repr(x),repr(round(x,0)),repr(round(x,1)),repr(round(x,2)),repr(round(x,3)),repr(round(x,-1)),
                format(x,'.1f') if small else None, format(x,'.3f') if small else None, format(x,'+.1f') if small else None])
with open('test/main/integrity/testdata/pyformat-vectors.json','w') as f:
    json.dump({'generator':'CPython 3.11.7: per x: [repr(x), repr(round(x,0)), repr(round(x,1)), repr(round(x,2)), repr(round(x,3)), repr(round(x,-1)), format(x,".1f"), format(x,".3f"), format(x,"+.1f")] (formats null when |x| >= 1e60)','vectors':out},f,separators=(',',':'))
print(len(out))
