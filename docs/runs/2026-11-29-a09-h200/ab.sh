#!/usr/bin/env bash
# A/B: dist/gpu-bundle (main) against the bundle in dist/$2.tgz, steps $3, in ABBA order
out=$1; alt=$2; steps=$3; shift 3; mkdir -p $out; tar xzf dist/$alt.tgz -C /tmp
run() { # tag bundle round
  GPU_KERNELS_PTX_DIR=$2/ptx $2/host -k $steps --twins off "$@" --json $out/$1-$3.json > $out/$1-$3.txt 2>/dev/null
  echo "$1 round $3: $?"
}
opts=("$@")
r1() { GPU_KERNELS_PTX_DIR=$2/ptx $2/host -k $steps --twins off "${opts[@]}" --json $out/$1-$3.json > $out/$1-$3.txt 2>/dev/null; echo "$1 round $3: $?"; }
r1 main dist/gpu-bundle 1; r1 alt /tmp/bundle-$alt 2; r1 alt /tmp/bundle-$alt 3; r1 main dist/gpu-bundle 4
grep -h WRONG $out/*.txt | head
python3 - $out <<'PY'
import json, statistics, sys, glob
rows = {}
for f in sorted(glob.glob(sys.argv[1] + "/*.json")):
    tag = f.split("/")[-1].split("-")[0]
    for r in json.load(open(f))["records"]:
        if r.get("kernel", "")[:1] == "a" and r.get("figure"):
            d = r["details"]
            rows.setdefault((r["kernel"][:3], d["head_dim"], d["mask"], d["seq_q"]), {}).setdefault(tag, []).append(r["figure"])
for k, v in sorted(rows.items()):
    t, h = v.get("main", []), v.get("alt", [])
    if t and h:
        print(k, "main", " ".join(f"{x:.0f}" for x in t), "| alt", " ".join(f"{x:.0f}" for x in h),
              f"alt / main {100 * statistics.median(h) / statistics.median(t):.1f} %")
PY
