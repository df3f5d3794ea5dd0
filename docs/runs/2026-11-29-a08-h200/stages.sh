#!/usr/bin/env bash
# a08 with two stages (dist/gpu-bundle) against three (dist/s3.tgz), head dim 64, alternating
out=$1; mkdir -p $out; tar xzf dist/s3.tgz -C /tmp
run() { # tag bundle round
  GPU_KERNELS_PTX_DIR=$2/ptx $2/host -k a08 --twins off --head-dim 64 --seq 1k,4k,16k --json $out/$1-$3.json > $out/$1-$3.txt 2>/dev/null
  echo "$1 round $3: $?"
}
for r in 1 2; do run two dist/gpu-bundle $r; run three /tmp/bundle-s3 $r; done
for r in 3; do run three /tmp/bundle-s3 $r; run two dist/gpu-bundle $r; done
python3 - $out <<'PY'
import json, statistics, sys, glob
rows = {}
for f in sorted(glob.glob(sys.argv[1] + "/*.json")):
    tag = f.split("/")[-1].split("-")[0]
    for r in json.load(open(f))["records"]:
        if r.get("kernel", "").startswith("a08") and r.get("figure"):
            d = r["details"]
            rows.setdefault((d["head_dim"], d["mask"], d["seq_q"]), {}).setdefault(tag, []).append(r["figure"])
for k, v in sorted(rows.items()):
    t, h = v.get("two", []), v.get("three", [])
    print(k, "two", " ".join(f"{x:.0f}" for x in t), "| three", " ".join(f"{x:.0f}" for x in h),
          f"three / two {100 * statistics.median(h) / statistics.median(t):.1f} %")
PY
