#!/usr/bin/env bash
# `seprank spectrum` contract (docs/usage.md §2.9): JSON keys, ε = 0 = the exact rank of
# `rank`, undecided thresholds as ranges, the fast path uncertified, exit codes.
# Usage: spectrum_cli_test.sh PATH/TO/seprank
set -u
S="$1"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# shellcheck source=tests/cli_lib.sh
source "$(dirname "$0")/cli_lib.sh"

expect_rc 0 "" -- spectrum --help
expect_rc 2 "--eps 'x'" -- spectrum --poly "x1_1*x2_1" --eps 0.1,x
expect_rc 2 "--eps '-1'" -- spectrum --poly "x1_1*x2_1" --eps -1
expect_rc 2 "--precision 1" -- spectrum --poly "x1_1*x2_1" --precision 1
expect_rc 2 "--measure" -- spectrum --poly "x1_1*x2_1" --measure cauchy
expect_rc 3 "over the max side 3" -- spectrum --tokens 2 --dim 2 --depth 2 --max-side 3

"$S" spectrum --tokens 3 --dim 2 --depth 2 --seed 3 --eps 0,0.01,0.1 --format json >"$T/s.json" || fail "spectrum network json"
"$S" rank --tokens 3 --dim 2 --depth 2 --seed 3 --format json >"$T/r.json" || fail "rank network json"
"$S" spectrum --tokens 3 --dim 2 --depth 2 --seed 3 --eps 0,0.01,0.1 --method fast --precision 80 --format json >"$T/f.json" || fail "spectrum fast json"
/usr/bin/python3 - "$T/s.json" "$T/r.json" "$T/f.json" <<'PY' || fail "spectrum JSON contract"
import json, sys
s, r, f = (json.load(open(p)) for p in sys.argv[1:])
for k in ["singular_values", "radius", "norm", "eps_ranks", "rank", "certified", "measure", "precision", "network"]:
    assert k in s, k
sv = s["singular_values"]
assert sv == sorted(sv, reverse=True) and all(x > 0 for x in sv) and len(sv) == r["rank"], (sv, r["rank"])
assert s["eps_ranks"][0] == {"eps": 0.0, "rank": r["rank"], "certified": True}, s["eps_ranks"][0]
assert abs(sum(x * x for x in sv) - s["norm"] ** 2) <= 1e-9 * s["norm"] ** 2
assert s["certified"] and s["radius"] >= 0
assert f["radius"] is None and not any(e["certified"] for e in f["eps_ranks"])
for a, b in zip(sv, f["singular_values"]):
    assert abs(a - b) <= s["radius"] + 1e-9 * sv[0], (a, b)
PY
# A threshold exactly at a tail sum: absolute eps = 1 for He2(x)He2(y) + He1(x)He1(y) (sigma = 2, 1).
"$S" spectrum --poly "(x1_1^2 - 1)*(x2_1^2 - 1) + x1_1*x2_1" --measure gaussian --eps 1 --eps-absolute --format json >"$T/u.json" || fail "undecided run"
/usr/bin/python3 - "$T/u.json" <<'PY' || fail "undecided threshold not reported as a range"
import json, sys
e = json.load(open(sys.argv[1]))["eps_ranks"][0]
assert e == {"eps": 1.0, "rank_low": 1, "rank_high": 2, "certified": False}, e
PY
"$S" spectrum --poly "x1_1*x2_1 + x1_2*x2_2" --format csv >"$T/c.csv" || fail "csv"
[[ "$(head -1 "$T/c.csv")" == "k,sigma,radius,measure" && $(wc -l <"$T/c.csv") -eq 3 ]] || fail "csv shape: $(cat "$T/c.csv")"

if [[ $fails -gt 0 ]]; then echo "$fails spectrum CLI check(s) failed"; exit 1; fi
echo "all spectrum CLI checks passed"
