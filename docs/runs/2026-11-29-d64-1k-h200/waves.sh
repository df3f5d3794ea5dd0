#!/usr/bin/env bash
# the last-wave experiment: a10 and cuDNN at head counts whose tiles fill whole waves or not
o=$1; mkdir -p $o; b=dist/gpu-bundle
for spec in "bf16 64 2048" "bf16 64 2112" "f16 64 2048" "f16 64 2112" "bf16 128 4096" "bf16 128 4224" "bf16 128 2048"; do
  set -- $spec; n="$1-d$2-h$3"
  $b/host --heat 0.5 --back-to-back 8 -k a10 --twins off --attn-type $1 --head-dim $2 --mask none --seq 1k,4k --hidden $3 --json $o/$n.json > $o/$n.txt 2>&1
  python3 bench/attention-sdpa.py --heat 0.5 --back-to-back 8 --backends cudnn $o/$n.json > $o/$n-sdpa.txt 2>&1
  echo "== $n"; grep -E "^ *(1024|4096) " $o/$n-sdpa.txt | head -4
done
python3 - $o <<'PY'
import json, sys
from pathlib import Path
for f in sorted(Path(sys.argv[1]).glob("*.json")):
    for r in json.load(open(f))["records"]:
        d = r["details"]; c = (d.get("sdpa") or {}).get("cudnn", {}).get("tflops")
        print(f.stem, d["seq_q"], d.get("heads_q"), round(r["figure"],1), c and round(c,1), c and f"{100*r['figure']/c:.1f} %")
PY
