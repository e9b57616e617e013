# An independent Python re-implementation of Python BIJOTEL's integrity monitor, written from the
# reference spec (§5.2-5.4; provider-shift keys sorted), used as a differential oracle by
# ../integrity.python-diff.test.ts: it writes random chains with Python's sqlite3 and prints what
# the spec says `integrity --json` must print for them. It is NOT BIJOTEL's own code; the fixtures'
# expected.json files are the ground truth from the real tool.
#   python3 pymon.py batch DIR COUNT  ->  JSON list of {"path", "window", "json"}
import sqlite3, json, sys, random
def analyze(path, window):
    db=sqlite3.connect(path)
    rows=db.execute("SELECT seq,timestamp_ns,canonical_hash,prev_hash,canonical_body FROM chain ORDER BY seq DESC LIMIT ?",(window,)).fetchall()[::-1]
    ents=[]
    for seq,ts,h,p,b in rows:
        try:
            d=json.loads(b.decode('utf-8'))
            a=d.get('attributes',{}) if isinstance(d,dict) else {}
            if not isinstance(a,dict): a={}
            prov=a.get('gen_ai.provider.name') or a.get('gen_ai.system') or 'unknown'
        except (ValueError,):
            prov='unknown'
        ents.append((int(seq),int(ts),h,prov))
    n=len(ents)
    gaps=[]; ta=[]; ha=[]
    for i in range(1,n):
        if ents[i][0]!=ents[i-1][0]+1: gaps.append({'after_seq':ents[i-1][0],'before_seq':ents[i][0],'missing_count':ents[i][0]-ents[i-1][0]-1})
    for i in range(1,n):
        delta=(ents[i][1]-ents[i-1][1])/1e9
        if delta<0: ta.append({'seq':ents[i][0],'type':'backward','delta_sec':round(delta,3),'detail':f"timestamp went back {abs(delta):.3f}s vs seq={ents[i-1][0]}"})
        elif delta>3600.0: ta.append({'seq':ents[i][0],'type':'large_gap','delta_sec':round(delta,3),'detail':f"{delta/60:.1f} min gap since seq={ents[i-1][0]}"})
    c={}
    for e in ents: c[e[1]//1_000_000_000]=c.get(e[1]//1_000_000_000,0)+1
    for s,k in c.items():
        if k>10: ta.append({'seq':0,'type':'burst','delta_sec':0.0,'detail':f"{k} entries in 1 second at epoch {s}"})
    seen={}
    for e in ents:
        if not e[2]: continue
        if e[2] in seen: ha.append({'seq':e[0],'type':'duplicate_canonical','detail':f"same canonical_hash as seq={seen[e[2]]}"})
        else: seen[e[2]]=e[0]
    shift=None
    if n>=20:
        mid=n//2; base={}; cur={}
        for e in ents[:mid]: base[e[3]]=base.get(e[3],0)+1
        for e in ents[mid:]: cur[e[3]]=cur.get(e[3],0)+1
        sh={}
        for p in sorted(set(base)|set(cur)):
            bp=base.get(p,0)/mid*100; cp=cur.get(p,0)/(n-mid)*100
            if abs(cp-bp)>20.0: sh[p]={'baseline_pct':round(bp,1),'current_pct':round(cp,1),'delta_pct':round(cp-bp,1)}
        if sh: shift={'shifts':sh}
    ra=[]
    if n>=20:
        mid=n//2
        fs=(ents[mid-1][1]-ents[0][1])/1e9; ss=(ents[n-1][1]-ents[mid][1])/1e9
        if fs>0 and ss>0:
            fr=mid/(fs/3600); sr=(n-mid)/(ss/3600); r=sr/fr
            if abs(r-1)>0.5: ra.append({'baseline_rate':round(fr,2),'current_rate':round(sr,2),'change_pct':round((r-1)*100,1)})
    cnt=len(gaps)+len(ta)+len(ha)+len(ra)+(1 if shift else 0)
    return {'window':n,'first_seq':ents[0][0] if ents else None,'last_seq':ents[-1][0] if ents else None,'clean':cnt==0,'anomaly_count':cnt,
            'sequence_gaps':gaps,'timestamp_anomalies':ta,'hash_anomalies':ha,'provider_shift':shift,'rate_anomalies':ra,'rotation_boundaries':[]}

def make(path, seed):
    rnd=random.Random(seed)
    db=sqlite3.connect(path)
    db.execute("CREATE TABLE chain (seq INTEGER PRIMARY KEY, timestamp_ns INTEGER, canonical_body BLOB, canonical_hash TEXT, prev_hash TEXT, hmac_hash TEXT)")
    n=rnd.choice([0,1,2,5,19,20,21,39,40,41,57,100,150,333])
    seq=0; ts=1_700_000_000_000_000_000+rnd.randint(-10**12,10**12)
    provs=['anthropic','xai','openai','é','😀','']
    spacing=rnd.choice([0.01,0.3,1,7,60,180,400,1000])
    hashes=[]
    for i in range(n):
        seq+=1 if rnd.random()>0.05 else rnd.randint(2,5)
        r=rnd.random()
        if r<0.03: ts-=rnd.randint(0,10**12)
        elif r<0.06: ts+=rnd.randint(3500*10**9,3700*10**9)
        elif r<0.1: ts+=rnd.randint(0,10**7)
        else: ts+=int(spacing*1e9*rnd.uniform(0.2, 3 if i>n/2 and seed%3==0 else 1.8))
        p=rnd.choice(provs[:2] if i<n/2 else provs) if seed%2 else 'anthropic'
        body=json.dumps({'attributes':{'gen_ai.provider.name':p}}).encode() if rnd.random()>0.05 else b'not json'
        h=f"h{seq}" if rnd.random()>0.05 or not hashes else rnd.choice(hashes+[''])
        hashes.append(h)
        db.execute("INSERT INTO chain VALUES (?,?,?,?,?,?)",(seq,ts,body,h,'0'*64,'0'*64))
    db.commit(); db.close()

if __name__ == '__main__':
    import os
    if sys.argv[1] == 'batch':
        out = []
        for s in range(1, int(sys.argv[3]) + 1):
            p = os.path.join(sys.argv[2], f'c{s}.db')
            make(p, s)
            for w in (20, 100, 10000, 1000000):
                out.append({'path': p, 'window': w, 'json': json.dumps(analyze(p, w), separators=(',', ':'))})
        print(json.dumps(out))
    elif sys.argv[1] == 'make':
        make(sys.argv[2], int(sys.argv[3]))
    else:
        print(json.dumps(analyze(sys.argv[2], int(sys.argv[3])), separators=(',', ':')))
