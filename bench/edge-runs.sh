#!/usr/bin/env bash
# edge-runs.sh — bench/edge-compare.sh run RUNS times, and what the runs
# say together.
#
# A cache's TTLB p99 on a shared machine moves from run to run by as much
# as two caches differ (docs/performance.md, "Tails across runs"), so one
# run of edge-compare.sh cannot say which cache has the lower tail. This
# script runs it RUNS times (each with its own servers and caches, in
# OUT/run-N) and prints, per size class, for each endpoint against nginx
# and, with BASE_BIN, og against og-base: the median over the runs of the
# run's ratio, its range, and in how many runs the endpoint did better.
# With BASE_BIN a binary of the same tree, og against og-base is an A/A
# comparison: how far two identical caches' figures differ on this machine.
#
# Environment: RUNS (default 5), OUT (default ./edge-runs-DATE); every
# other variable goes to edge-compare.sh as it is (SIZES, BASE_BIN, EXTRA,
# WORK_IN, SKIP, DURATION, CONNS …); RESTART_REQUESTS defaults to 200 here,
# since the restart phase says nothing new from run to run.
set -euo pipefail

cd "$(dirname "$0")/.."
RUNS=${RUNS:-5}
OUT=${OUT:-$PWD/edge-runs-$(date -u +%Y%m%d-%H%M)}
export RESTART_REQUESTS=${RESTART_REQUESTS:-200}
mkdir -p "$OUT"
for i in $(seq "$RUNS"); do
	echo "[edge-runs $(date -u +%H:%M:%S)] run $i of $RUNS" >&2
	OUT="$OUT/run-$i" bash bench/edge-compare.sh >"$OUT/run-$i.log" 2>&1 ||
		{ echo "edge-runs: run $i failed; see $OUT/run-$i.log" >&2; exit 1; }
done

python3 - "$OUT" "$RUNS" <<'EOF' | tee "$OUT/summary.txt"
import json, statistics, sys

out, runs = sys.argv[1], int(sys.argv[2])
# metric: (name in the report, True when higher is better)
metrics = [("MB per CPU-s", True), ("TTLB p50", False), ("TTLB p99", False),
           ("TTLB p99 of hits", False), ("TTLB p50 of others", False),
           ("TTLB p99 of others", False), ("requests in flight", False)]
data = {}  # class -> endpoint -> metric -> [value per run]
for i in range(1, runs + 1):
    report = json.load(open(f"{out}/run-{i}/edge.json"))
    for sc in report["scenarios"]:
        for r in sc["results"]:
            m = {x["name"]: x["value"] for x in r["metrics"]}
            for name, _ in metrics:
                data.setdefault(sc["name"], {}).setdefault(r["endpoint"], {}).setdefault(name, []).append(m.get(name))

def pairs(eps):
    if "nginx" in eps:
        for e in eps:
            if e != "nginx":
                yield e, "nginx"
    if "og" in eps and "og-base" in eps:
        yield "og", "og-base"

print(f"{runs} runs of bench/edge-compare.sh in {out}")
print("ratio: the first endpoint's value / the second's, per run; "
      "'better' counts the runs in which the first did better")
for cls, eps in data.items():
    print(f"\n{cls}")
    print(f"  {'endpoints':<18} {'metric':<20} {'median':>8} {'min':>8} {'max':>8} {'better':>8}")
    for a, b in pairs(eps):
        for name, higher in metrics:
            xs, ys = eps[a][name], eps[b][name]
            ratios = [x / y for x, y in zip(xs, ys) if x is not None and y]
            if not ratios:
                continue
            better = sum(1 for r in ratios if (r > 1 if higher else r < 1))
            print(f"  {a + ' / ' + b:<18} {name:<20} {statistics.median(ratios):8.3f} "
                  f"{min(ratios):8.3f} {max(ratios):8.3f} {better:>5}/{len(ratios)}")
EOF
