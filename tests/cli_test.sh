#!/usr/bin/env bash
# CLI contract tests (docs/theory.md §2.4): exit codes, one-line errors naming the bad value,
# weights round-trip, nothing half-written. Usage: cli_test.sh PATH/TO/seprank
set -u
S="$1"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# shellcheck source=tests/cli_lib.sh
source "$(dirname "$0")/cli_lib.sh"

expect_rc 0 "" -- --help
expect_rc 0 "" -- expand --help
expect_rc 2 "heads H = 3 does not divide dim dx = 2" -- expand --dim 2 --heads 3
expect_rc 2 "unknown family 'softmax'" -- expand --family softmax
expect_rc 2 "position i = 9" -- expand --tokens 2 --position 9
expect_rc 2 "--tokens" -- expand --tokens abc
expect_rc 2 "block degree d = 0" -- expand --family hadamard --block-degree 0
expect_rc 2 "cannot open weights file" -- expand --weights "$T/none.json"
expect_rc 3 "--method evaluation" -- expand --tokens 4 --dim 3 --depth 3 --max-memory 1
expect_rc 2 "negative exponent" -- poly "x1_1 + y^-1"
expect_rc 2 "unknown claim 'nope' (the claims are degree," -- verify --claim nope
# under an address-space limit, a --max-memory past 3/4 of it is refused (FLINT would abort
# past it); not under a sanitizer, which cannot run with such a limit
if ! grep -q __asan_init "$S"; then
  prlimit --as=2147483648 -- "$S" --max-memory 1048576 rank --tokens 8 --dim 2 --depth 3 >"$T/out" 2>"$T/err"
  [[ $? -eq 2 ]] && grep -q "exceeds 3/4 of this process's address-space limit" "$T/err" && [[ $(wc -l <"$T/err") -eq 1 ]] ||
    fail "--max-memory past the address-space limit: $(cat "$T/err")"
  prlimit --as=2147483648 -- "$S" --max-memory 1 rank --tokens 2 --dim 1 >"$T/out" 2>"$T/err" || fail "--max-memory 1 under a 2 GiB limit: $(cat "$T/err")"
fi

# weights round-trip: save, reload, same polynomial
"$S" expand --tokens 3 --dim 2 --depth 2 --seed 5 --save-weights "$T/w.json" --print --format json >"$T/a.json" || fail "save-weights run"
"$S" expand --weights "$T/w.json" --print --format json >"$T/b.json" || fail "reload run"
/usr/bin/python3 - "$T/a.json" "$T/b.json" <<'PY' || fail "reloaded weights give another polynomial"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
assert a["polynomial"] == b["polynomial"] and a["terms"] == b["terms"] > 0, (a["terms"], b["terms"])
PY

# fc: --widths without --depth sets the depth (one layer a width); a --depth given must agree
"$S" expand --family fc --tokens 2 --dim 2 --widths 3,2,1 >"$T/fc.txt" || fail "fc --widths without --depth"
grep -q '^network  *fc N=2 dx=2 d=3 L=3 ' "$T/fc.txt" || fail "fc --widths 3,2,1 is not L = 3: $(head -1 "$T/fc.txt")"
expect_rc 2 "fc widths list has 3 entries, depth is 2" -- expand --family fc --tokens 2 --dim 2 --widths 3,2,1 --depth 2

# a full grid says so (its rank is its smaller side: more templates can raise it); one below its side does not
"$S" rank --tokens 2 --dim 2 --depth 2 --method grid >"$T/g2.txt" || fail "rank --method grid"
grep -q '^note .*the grid is full (its rank is its smaller side, 2)' "$T/g2.txt" || fail "a full grid without its note: $(grep note "$T/g2.txt")"
"$S" rank --tokens 2 --dim 2 --depth 2 --method grid --templates 20 >"$T/g20.txt" || fail "rank --method grid --templates 20"
grep -q 'the grid is full' "$T/g20.txt" && fail "a grid of rank 15 below its side 20 called full"

# an option a budget row's block does not use is noted for it (a hunt: --free at d = 1 was silent)
"$S" degree --budget 60 --free --tokens 2 --dim 2 --degrees 1,2 >/dev/null 2>"$T/dfree.err" &&
  grep -qF "seprank: note: --free is ignored: at d = 1, a block of degree d = 1 has no slots 2..d to free" "$T/dfree.err" ||
  fail "degree --budget --free at d = 1: no note: $(cat "$T/dfree.err")"
# a value not computed is "-" in a text record, as in the tables (a hunt: grid's terms was blank)
"$S" rank --tokens 2 --dim 1 --method grid | grep -q "^terms  *-$" || fail "rank --method grid: terms not shown as -"
# rank says whose rank it is: the drawn weights (seed, range), or the file that gave them
"$S" rank --tokens 3 --dim 2 --depth 2 --seed 7 --weight-range 3 >"$T/r.txt" || fail "rank with drawn weights"
grep -q '^weights  *drawn: seed 7, integers in \[-3, 3\]' "$T/r.txt" || fail "rank's weights line: $(grep weights "$T/r.txt")"
"$S" rank --weights "$T/w.json" --format json >"$T/r.json" || fail "rank with --weights"
/usr/bin/python3 - "$T/r.json" "$T/w.json" <<'PY' || fail "rank --weights: its JSON does not name the file"
import json, sys
assert json.load(open(sys.argv[1]))["weights"] == sys.argv[2]
PY

# malformed weights files: each gives its JSON path and exit 2
/usr/bin/python3 - "$T" <<'PY'
import json, sys
t = sys.argv[1]
w = json.load(open(f"{t}/w.json"))
cases = {
  "missing_layers": (lambda j: j.pop("layers"), 'missing key "layers"'),
  "bad_entry": (lambda j: j["layers"][0]["heads"][0]["Q"][0].__setitem__(0, [1]), "$.layers[0].heads[0].Q[0][0]"),
  "bad_rational": (lambda j: j["layers"][1]["heads"][0]["K"][1].__setitem__(1, "2/x"), "$.layers[1].heads[0].K[1][1]"),
  "wrong_shape": (lambda j: j["layers"][0]["heads"][0]["O"].pop(), "$.layers[0].heads[0].O: has 1 rows, expected 2"),
}
for name, (edit, mention) in cases.items():
    j = json.loads(json.dumps(w)); edit(j)
    json.dump(j, open(f"{t}/{name}.json", "w"))
    open(f"{t}/{name}.mention", "w").write(mention)
open(f"{t}/not_json.json", "w").write("{ nope")
open(f"{t}/not_json.mention", "w").write("not valid JSON")
PY
for f in "$T"/*.mention; do
  name=$(basename "$f" .mention)
  expect_rc 2 "$(cat "$f")" -- expand --weights "$T/$name.json"
done

# nothing half-written: a failing run with --save-weights leaves no file
expect_rc 2 "" -- expand --dim 2 --heads 3 --save-weights "$T/never.json"
[[ ! -e "$T/never.json" && ! -e "$T/never.json.tmp" ]] || fail "half-written weights file"

# product variants (docs/poly.md#products): one polynomial whichever forms the products;
# weights up to 2^40 so that the digit split and the dense arrays both run
expect_rc 2 "product variant 'heap'" -- expand --product heap
for v in flint digits dense auto; do
  "$S" expand --tokens 2 --dim 2 --depth 3 --weight-range 1099511627776 --print --format json --product "$v" >"$T/p_$v.json" \
    || fail "expand --product $v"
done
/usr/bin/python3 - "$T" <<'PY' || fail "product variants disagree"
import json, sys
recs = {v: json.load(open(f"{sys.argv[1]}/p_{v}.json")) for v in ("flint", "digits", "dense", "auto")}
assert all(r["product"] == v for v, r in recs.items()), recs
polys = {r["polynomial"] for r in recs.values()}
assert len(polys) == 1 and recs["flint"]["terms"] > 1000, [r["terms"] for r in recs.values()]
PY

# formats
"$S" expand --tokens 2 --dim 2 --depth 2 --format csv >"$T/e.csv" || fail "csv run"
head -1 "$T/e.csv" | grep -q "^family,tokens,dim,heads,block_degree,depth" || fail "csv header: $(head -1 "$T/e.csv")"
"$S" degree --tokens 2 --dim 2 --depth 3 --format json >"$T/d.json" || fail "degree run"
# degree --budget: each architecture's functional dimension beside the degrees, --rank adds its rank
"$S" degree --family hadamard --tokens 2 --dim 2 --width 2 --budget 24,48 --degrees 2,3 --rank --format json >"$T/db.json" || fail "degree --budget --rank"
/usr/bin/python3 - "$T/db.json" <<'PY' || fail "degree --budget dimension columns"
import json, sys
rows = json.load(open(sys.argv[1]))
assert [(r["budget"], r["block_degree"], r["depth"]) for r in rows] == [(24, 2, 2), (24, 3, 1), (48, 2, 4), (48, 3, 3)], rows
for r in rows:
    assert isinstance(r["dimension"], int) and 1 <= r["dimension"] <= r["params_used"], r
    assert r["dim_defect"] == (r["dimension"] < r["dim_expected"]), r
    assert r["dim_label"] in ("certified", "generic lower bound") and (r["dim_failure_bound"] == 0) == (r["dim_label"] == "certified"), r
    assert isinstance(r["rank"], int) and r["rank_status"] == "ok" and r["log3_rank"] > 0, r
PY
"$S" degree --family hadamard --tokens 2 --dim 2 --width 2 --budget 24 --degrees 2,3 | head -1 | grep -q "dimension  dim_expected" || fail "degree --budget text lacks the dimension column"
# degree per depth of networks with a widths list: depth L keeps the first L widths
"$S" degree --family power --dim 3 --widths 3,3,1 --power 2 --format json >"$T/dpow.json" || fail "degree of a power network"
"$S" degree --family fc --tokens 2 --widths 3,4 --block-degree 2 --depth 2 --format json >"$T/dfc.json" || fail "degree of fc with --widths"
/usr/bin/python3 - "$T/dpow.json" "$T/dfc.json" <<'PY' || fail "degree per depth with --widths"
import json, sys
pw, fc = (json.load(open(p)) for p in sys.argv[1:3])
pw = pw if isinstance(pw, list) else pw["rows"]
fc = fc if isinstance(fc, list) else fc["rows"]
assert [r["depth"] for r in pw] == [1, 2, 3] and [r["measured"] for r in pw] == [1, 2, 4], pw   # r^(L-1), r = 2
assert [r["depth"] for r in fc] == [1, 2] and [r["measured"] for r in fc] == [2, 4], fc
PY
# a depth whose first layers are no network (coordinate 2 beyond a first layer of width 1) is skipped, noted
"$S" degree --family power --dim 2 --widths 1,3 --coordinate 2 --format json 2>"$T/dskip.err" >"$T/dskip.json" || fail "degree: coordinate beyond an earlier width"
grep -q "note: depth 1 has no row" "$T/dskip.err" || fail "degree: the skipped depth is not noted"
/usr/bin/python3 -c 'import json,sys; o=json.load(open(sys.argv[1])); o=o if isinstance(o,list) else o["rows"]; assert [r["depth"] for r in o]==[2], o' "$T/dskip.json" || fail "degree: rows of a skipped depth"
# a stack's depth is its number of layers in degree as in table: two copies of a 2-layer list
"$S" degree --layers 'attention,mlp:power=3' --tokens 2 --depth 2 --format json >"$T/dstack.json" || fail "degree --layers"
/usr/bin/python3 -c 'import json,sys; o=json.load(open(sys.argv[1])); o=o if isinstance(o,list) else o["rows"]; assert [r["depth"] for r in o]==[2,4] and [r["predicted"] for r in o] in ([9,81],["9","81"]), o' "$T/dstack.json" || fail "degree --layers: depth is not the layers"
# bad input writes nothing: a partition refused after the network is drawn leaves no weights file
for cmd in rank spectrum; do
  expect_rc 2 "appears twice" -- $cmd --tokens 3 --partition '1|1' --save-weights "$T/bad_$cmd.json"
  [[ ! -e "$T/bad_$cmd.json" ]] || fail "$cmd: --save-weights written before the partition was refused"
done
expect_rc 2 "at least 2 tokens" -- rank --family power --dim 4 --widths 3,2 --save-weights "$T/bad_power.json"
[[ ! -e "$T/bad_power.json" ]] || fail "rank --family power: --save-weights written before the partition was refused"
expect_rc 2 "" -- rank --tokens 3 --method evaluation --variant graded --residual --save-weights "$T/bad_variant.json"
[[ ! -e "$T/bad_variant.json" ]] || fail "rank: --save-weights written before the library refused the variant"
"$S" rank --tokens 2 --save-weights "$T/good.json" >/dev/null && [[ -s "$T/good.json" ]] || fail "rank --save-weights: nothing written on success"
# --layers is a stack: with no --family, or --family stack; another family given is refused, attention too
expect_rc 2 "stack only, not attention" -- rank --family attention --layers hadamard --tokens 2 --dim 2
expect_rc 2 "stack only, not hadamard" -- rank --family hadamard --layers attention --tokens 2 --dim 2
"$S" rank --layers hadamard --tokens 2 --dim 2 | grep -q "^# stack" || fail "rank --layers without --family is not a stack"
# spectrum: the global --max-memory bounds its expansion, which no method avoids; --eps-absolute alone is noted
# (the library's names of options as the command line's, cli_names; no "[here: ...]" where the message names them)
expect_rc 3 "(--max-memory); the spectrum needs f expanded (its coefficient flattening), whatever --method" -- --max-memory 0.001 spectrum --tokens 3 --dim 3 --depth 2
! grep -q "SpectrumOptions\|\[here" "$T/err" || fail "spectrum over the limit: $(cat "$T/err")"
expect_rc 3 "(--max-memory); use the evaluation method (--method evaluation), which never expands" -- rank --tokens 4 --dim 3 --depth 3 --max-memory 0.001
! grep -q "Method::\|\[here" "$T/err" || fail "rank over the limit: $(cat "$T/err")"
expect_rc 2 "budget comparison: --family attention fixes the block degree at 3" -- degree --family attention --budget 60
expect_rc 2 "does not divide dim dx = 4 (give --head-dim)" -- rank --heads 3 --dim 4
"$S" spectrum --tokens 2 --eps-absolute --format json 2>"$T/epsabs.err" >"$T/epsabs.json" || fail "spectrum --eps-absolute"
grep -q "note: --eps-absolute is ignored: no --eps" "$T/epsabs.err" || fail "spectrum --eps-absolute without --eps: no note"
grep -q '"notes"' "$T/epsabs.json" || fail "spectrum --eps-absolute without --eps: no notes in JSON"
"$S" generic --help | grep -q "save-weights.*refused here" || fail "generic --help offers --save-weights"
# conv layers (issue 60): Shahverdi-Marchetti-Kohn's filters (2,2), r = 2, last layer linear,
# one output from N = 3 tokens: an image of dimension 3; a filter longer than its input is refused
"$S" dimension --layers 'conv,conv:power=1' --tokens 3 --dim 1 | grep -q "^rank *3$" || fail "dimension of conv (2,2) is not 3"
"$S" dimension --layers 'conv:filter=4' --tokens 3 --dim 1 2>"$T/conv_err.txt" >/dev/null && fail "a conv filter longer than its input accepted"
grep -q "filter size k = 4 exceeds the 3 tokens it reads" "$T/conv_err.txt" || fail "conv filter error message"
# variety (issue 60): conv (2,2) at r = 2 has an image of dimension 3 and degree 4 (Shahverdi–Marchetti–Kohn)
"$S" variety --layers 'conv,conv:power=1' --tokens 3 --dim 1 --format json >"$T/var.json" || fail "variety of conv (2,2)"
/usr/bin/python3 - "$T/var.json" <<'PY' || fail "variety of conv (2,2): dimension 3, degree 4"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["dimension"] == 3 and r["degree"] == 4 and r["agreed"] is True, r
assert r["gauge_fibre_points"] == 2 and r["section_points"] == [r["degree"] * r["degree_fibre_points"]] * 3, r
assert r["degree_fibre_points"] == 1 and r["degree_free_weights"] == [1, 2, 3], r
PY
"$S" variety --layers 'conv,conv:power=1' --tokens 3 --dim 1 --weight-range 3 2>"$T/var_notes.txt" >/dev/null || fail "variety --weight-range"
grep -q "note: --weight-range 3 is ignored" "$T/var_notes.txt" || fail "variety: no note for --weight-range"
# the image's equation: ternary quadrics of rank <= 2 are the determinant's hypersurface, dimension and degree proven
"$S" variety --layers 'dense:width=2:power=2,dense:width=1:power=1' --tokens 1 --dim 3 --format json >"$T/var_eq.json" || fail "variety of the quadratic network"
/usr/bin/python3 - "$T/var_eq.json" <<'PY' || fail "variety: the quadratic network's equation"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["dimension_kind"] == "exact" and r["span_dimension"] == 6 and r["equation_degree"] == 3, r
assert r["degree_at_least"] == r["degree_at_most"] == 3 and r["degree_at_most_failure_bound"] == 0, r
assert len(r["equation_coordinates"].split(", ")) == 6 and len(r["equation"].replace(" - ", " + ").split(" + ")) == 5, r
PY

# equation: binary sextics that are sums of three sixth powers, the 4x4 Hankel determinant (Sylvester); a convolution has none
# (a budget past the clock's range, 1e308 s, is no budget: it wrapped to the past and "ran out" at once)
"$S" equation --layers 'dense:width=3:power=6,dense:width=1:power=1' --tokens 1 --dim 2 --max-seconds 1e308 --format json >"$T/eq.json" || fail "equation of the binary sextics"
/usr/bin/python3 - "$T/eq.json" <<'PY' || fail "equation: the binary sextics' catalecticant"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["dimension"] == 6 and r["dimension_kind"] == "exact" and r["span_dimension"] == 7, r
assert r["degree"] == r["equation_degree"] == 4 and r["searched_to"] == 3 and "deg X = 4 is proven" in r["label"], r
assert r["equation_coordinates"].split(", ")[0] == "x1_1^6" and len(r["equation"].replace(" - ", " + ").split(" + ")) == 16, r
PY
"$S" equation --layers 'conv,conv:power=1' --tokens 3 --dim 1 | grep -q "^label *no equation: the image's span has dimension 5" || fail "equation of a convolution: no hypersurface"
# the time budget covers the expansion (at N = 10,000, --max-seconds 10 ran for minutes: a hunt, 2026-12-02)
start=$SECONDS
# (N = 3000: its expansion takes seconds, far past 0.1 s on any machine; at N = 1000 it took
# about 0.3 s, and a quiet run finished it inside a budget of 0.3 s)
"$S" equation --tokens 3000 --max-seconds 0.1 | grep -q "^label *no equation: the expansion in the weights ran out of the time budget (max_seconds 0.1)" ||
  fail "equation: the expansion past --max-seconds"
[[ $((SECONDS - start)) -le 20 ]] || fail "equation: the expansion took $((SECONDS - start)) s past --max-seconds 0.1"
# JSON says whether a limit or a finding ended the search
"$S" equation --tokens 3000 --max-seconds 0.1 --format json | grep -q '"stopped_by_limit": true' || fail "equation: stopped_by_limit true under its budget"
"$S" equation --layers 'conv,conv:power=1' --tokens 3 --dim 1 --format json | grep -q '"stopped_by_limit": false' || fail "equation: stopped_by_limit false on a finding"
"$S" equation --layers 'conv,conv:power=1' --tokens 3 --dim 1 --weight-range 3 2>&1 >/dev/null | grep -q "note: --weight-range 3 is ignored" || fail "equation: no note for --weight-range"

# defects (issue 60): the small range's census, csv with a header and one row per network
"$S" defects --max-width 3 --max-depth 3 --max-power 3 --format csv >"$T/defects.csv" || fail "defects --format csv"
/usr/bin/python3 - "$T/defects.csv" <<'PY' || fail "defects: 31 networks, 4 defective, each with a reason"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 31, len(rows)
bad = [r for r in rows if int(r["defect"]) > 0]
assert len(bad) == 4 and all(r["reason"] in ("bound", "level") for r in bad), bad
assert all(int(r["dimension"]) <= int(r["bound"]) <= int(r["expected"]) for r in rows)
assert all((r["label"] == "exact") == (r["dimension"] == r["bound"]) for r in rows)
PY
"$S" defects --max-width 2 --max-depth 2 --all --format json 2>"$T/def_notes.txt" >/dev/null || fail "defects --all --format json"
grep -q "note: --all is ignored" "$T/def_notes.txt" || fail "defects: no note for --all with json"
# dimension --output all reads every token and coordinate: --position/--coordinate are noted, not dropped
"$S" dimension --tokens 2 --dim 2 --output all --position 2 --coordinate 2 2>"$T/dim_notes.txt" >"$T/dim_all.txt" || fail "dimension --output all"
grep -q "^# attention N=2 dx=2 H=1 da=2 L=1 (all outputs)$" "$T/dim_all.txt" || fail "dimension --output all: the header names a position: $(head -n 1 "$T/dim_all.txt")"
grep -q "note: --position 2 is ignored: --output all" "$T/dim_notes.txt" || fail "dimension --output all: no note for --position"
grep -q "note: --coordinate 2 is ignored" "$T/dim_notes.txt" || fail "dimension --output all: no note for --coordinate"
# a field the network never reads is noted (unused_fields): a one-layer power network is
# linear, a degree-1 hadamard block has no free slots; not noted where the field is read
"$S" degree --family power --widths 3 --power 4 --dim 2 2>"$T/pow_notes.txt" >/dev/null || fail "degree, one-layer power"
grep -q "note: --power 4 is ignored: a one-layer power network is linear" "$T/pow_notes.txt" || fail "one-layer power: no note for --power"
"$S" degree --family power --widths 3,1 --power 4 --dim 2 2>"$T/pow2_notes.txt" >/dev/null || fail "degree, two-layer power"
! grep -q "note:" "$T/pow2_notes.txt" || fail "two-layer power: a note, but --power is read"
"$S" rank --family hadamard --tokens 2 --block-degree 1 --free --format json 2>/dev/null >"$T/free.json" || fail "rank, hadamard d = 1 free"
grep -q '"--free is ignored: a block of degree d = 1' "$T/free.json" || fail "hadamard d = 1: no note for --free in the JSON"
"$S" generic --layers 'mlp,hadamard:degree=1:free' --tokens 2 --dim 1 2>"$T/layer_notes.txt" >/dev/null || fail "generic, a stack's hadamard d = 1 free"
grep -q "note: --layers: layer 2's free is ignored: a block of degree d = 1" "$T/layer_notes.txt" || fail "a stack's hadamard d = 1: no note for its free"
"$S" table --layers 'mlp,hadamard:degree=1:free' --tokens 2 --dim 1..2 --depth 1 2>"$T/table_layer_notes.txt" >/dev/null || fail "table, a stack's hadamard d = 1 free"
[ "$(grep -c "note: --layers: layer 2's free is ignored" "$T/table_layer_notes.txt")" = 1 ] || fail "table: not one note for a layer's unused free"
# a size limit below one row per degree block evaluates nothing, and the note says so (not "full rank")
"$S" generic --tokens 2 --dim 1 --method evaluation --max-side 1 --format json >"$T/ms1.json" || fail "generic --max-side 1"
/usr/bin/python3 -c 'import json,sys; o=json.load(open(sys.argv[1])); assert o["rank"] == 0 and o["label"] == "lower bound" and "nothing evaluated" in o["note"] and "still full rank" not in o["note"], o["note"]; assert o["failure_bound"] == 1 and "failure_bound 1: not converged" in o["note"] and "m*D/|S|" not in o["note"], o["note"]' "$T/ms1.json" ||
  fail "generic --max-side 1: $(cat "$T/ms1.json")"
# the text table says which ranks are certified
"$S" table --tokens 2 --dim 1 --depth 1 | head -1 | grep -q " certified " || fail "table text lacks the certified column"
# --degrees takes ranges as the table's lists do: 1..3,5 is 1,2,3,5
[ "$("$S" degree --family hadamard --tokens 2 --dim 2 --budget 48 --degrees 1..3,5 --format csv | cut -d, -f2 | tail -n +2 | tr '\n' ' ')" = "1 2 3 5 " ] ||
  fail "degree --degrees 1..3,5"
expect_rc 2 "--rank: only with --budget" -- degree --family hadamard --rank
# --budget --rank labels each rank (CSV and JSON per row, text in one line); CSV carries the
# dimension's label too; fc's one width W is every layer's (a hunt: both were missing)
"$S" degree --family hadamard --tokens 3 --dim 2 --budget 48 --degrees 2,3 --rank --format csv >"$T/dbr.csv" || fail "degree --budget --rank csv"
/usr/bin/python3 - "$T/dbr.csv" <<'PY' || fail "degree --budget --rank: labels"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 2 and all(r["rank_label"] == "generic lower bound" and 0 < float(r["rank_failure_bound"]) < 1e-9 for r in rows), rows
assert all(r["dim_label"] and r["dim_failure_bound"] for r in rows), rows
PY
"$S" degree --family hadamard --tokens 3 --dim 2 --budget 48 --degrees 2,3 --rank | grep -q "^rank: generic lower bound, failure_bound " ||
  fail "degree --budget --rank text: no label line"
"$S" degree --family fc --tokens 2 --dim 2 --widths 1 --budget 60 --degrees 2 --format csv | tail -1 | cut -d, -f3-5 | grep -qx "8,27,60" ||
  fail "degree --budget fc --widths 1: not every layer 1 wide"
expect_rc 2 "--budget" -- degree --family hadamard --budget 24,-1
/usr/bin/python3 -c "
import json,sys; rows=json.load(open('$T/d.json'))
assert [r['measured'] for r in rows] == [3, 9, 27], rows" || fail "degree table"

# rank: JSON contract of docs/usage.md §1.8
"$S" rank --tokens 2 --dim 2 --depth 2 --format json >"$T/r.json" || fail "rank run"
/usr/bin/python3 - "$T/r.json" <<'PY' || fail "rank JSON fields"
import json, sys
r = json.load(open(sys.argv[1]))
for k in ("rank", "certified", "method", "rows", "cols", "degree", "terms", "field"):
    assert k in r, k
assert r["certified"] is True and r["field"] == "Q" and r["degree"] == 9 and r["partition"] == "1|2", r
PY
"$S" rank --tokens 2 --dim 2 --depth 2 --method evaluation --format json >"$T/re.json" || fail "evaluation run"
/usr/bin/python3 -c "
import json; a=json.load(open('$T/r.json')); b=json.load(open('$T/re.json'))
assert a['rank'] == b['rank'] and b['terms'] is None and 'failure_bound' in b, (a, b)
# every degree block at its cap (N=2 dx=2 L=2): the evaluation is exact, and says why
assert b['certified'] is True and b['failure_bound'] == 0 and 'reached its cap' in b['note'], b" || fail "evaluation vs flattening"
"$S" rank --tokens 3 --dim 2 --depth 2 --partition '1,2|3' --method evaluation --format json >"$T/re3.json" || fail "evaluation run N=3"
/usr/bin/python3 -c "
import json; b=json.load(open('$T/re3.json'))
assert b['certified'] is False and b['failure_bound'] > 0 and 'reached its cap' not in b['note'], b" || fail "evaluation below its caps is not exact"
# the block certificate on a rank-deficient flattening, and its references
"$S" rank --tokens 2 --dim 3 --depth 2 --format json >"$T/rb.json" || fail "blocks run"
"$S" rank --tokens 2 --dim 3 --depth 2 --certificate pivot-span --format json >"$T/rs.json" || fail "pivot-span run"
/usr/bin/python3 -c "
import json; b=json.load(open('$T/rb.json')); s=json.load(open('$T/rs.json'))
assert b['variant'] == 'blocks' and b['certified'] and b['rank'] == s['rank'] == sum(b['block_ranks']), (b, s)
assert s['variant'] == 'pivot-span' and s['kernel_blocks'] is None, s" || fail "blocks vs pivot-span"
expect_rc 2 "certificate" -- rank --certificate global
"$S" rank --poly "(x1_1 + x1_1^2)*x2_1" --format json >"$T/rp.json" || fail "poly rank"
/usr/bin/python3 -c "
import json; r=json.load(open('$T/rp.json')); assert r['rank'] == 1 and r['polynomial_terms'] == 2 and 'weights' not in r, r" || fail "(x+x^2)y"
# text and CSV too (a hunt: the text record asked for a weights field a polynomial has not)
"$S" rank --poly "(x1_1 + x1_1^2)*x2_1" >"$T/rp.txt" 2>"$T/rp.err" && grep -q "^rank  *1$" "$T/rp.txt" && ! grep -q "weights" "$T/rp.txt" ||
  fail "poly rank text: $(cat "$T/rp.txt" "$T/rp.err")"
"$S" rank --poly "x1_1*x2_1" --format csv >"$T/rp.csv" 2>"$T/rp.err" && head -1 "$T/rp.csv" | grep -q "^partition,method,rank,label," ||
  fail "poly rank csv: $(cat "$T/rp.csv" "$T/rp.err")"
"$S" rank --tokens 4 --dim 2 --depth 1 --all-balanced --format json >"$T/ab.json" || fail "all-balanced"
/usr/bin/python3 -c "
import json; r=json.load(open('$T/ab.json')); assert r['agree'] and r['agree_certified'] and len(r['partitions']) == 3, r" || fail "all-balanced agree"
# mod p every rank is a lower bound: their agreement is said not to be certified (a hunt)
"$S" rank --tokens 3 --dim 2 --depth 2 --field p --all-balanced --format json >"$T/abp.json" || fail "all-balanced mod p"
/usr/bin/python3 -c "
import json; r=json.load(open('$T/abp.json')); assert r['agree'] and not r['agree_certified'], r" || fail "all-balanced mod p: agree_certified"
"$S" rank --tokens 3 --dim 2 --depth 2 --field p --all-balanced | grep -qF "agree: yes (values not all certified" || fail "all-balanced mod p text"
# whose rank each row is: sep, or a grid's lower bound of it (a hunt: grid rows only said certified)
"$S" rank --tokens 4 --dim 2 --all-balanced --method grid --templates 2 --format csv >"$T/abg.csv" || fail "all-balanced grid csv"
/usr/bin/python3 -c "
import csv; rows = list(csv.DictReader(open('$T/abg.csv')))
assert len(rows) == 3 and all(r['bound'] == 'lower bound of sep' and r['weights'].startswith('drawn: seed 1') for r in rows), rows" ||
  fail "all-balanced grid: bound and weights columns"
expect_rc 2 "token 5 outside 1..4" -- rank --tokens 4 --partition "1,2|3,5"
expect_rc 2 "--method flattening only" -- rank --poly "x1_1*x2_1" --partition "1|2" --method grid
expect_rc 2 "--method" -- rank --method svd

# generic and table
"$S" generic --tokens 2 --dim 2 --depth 2 --trials 2 --format json >"$T/g.json" || fail "generic run"
/usr/bin/python3 -c "
import json; r=json.load(open('$T/g.json'))
for k in ('rank','certified','rows','cols','method','degree','trials','failure_bound','set_size','weight_degree'): assert k in r, k
assert r['trials'] == 1 and r['trial_ranks'] == [15] and r['failure_bound'] == 0 and r['rank'] == 15, r  # exact: the second trial is not run
assert '1 of the 2 trials run' in r['note'], r['note']" || fail "generic JSON"
"$S" generic --tokens 3 --dim 2 --depth 2 --trials 2 --format json >"$T/g3.json" || fail "generic run N=3"
/usr/bin/python3 -c "
import json; r=json.load(open('$T/g3.json'))
assert r['trials'] == 2 and len(r['trial_ranks']) == 2 and 0 < r['failure_bound'] < 1e-20 and r['rank'] == 17 and r['primes_used'] == 2, r" || fail "generic JSON N=3"
"$S" table --tokens 2,3 --dim 1..2 --depth 1..2 --format csv >"$T/t.csv" 2>"$T/t.err" || fail "table run"
head -1 "$T/t.csv" | grep -q "^family,tokens,dim,heads,block_degree,width,depth,residual,embed_rank,head_dim,attention_rank,position,partition,degree,params,terms,rank,certified" || fail "table header"
[[ $(wc -l <"$T/t.csv") -eq 9 ]] || fail "table rows: $(wc -l <"$T/t.csv")"
"$S" table --tokens 2,3 --dim 1..2 --depth 1..2 --format csv --out "$T/o.csv" >/dev/null 2>&1 || fail "table --out"
head -5 "$T/o.csv" >"$T/half.csv"; printf 'attention,3,1' >>"$T/half.csv"   # sweep line, header, 3 rows, killed mid-row
"$S" table --tokens 2,3 --dim 1..2 --depth 1..2 --format csv --out "$T/half.csv" --resume >/dev/null 2>"$T/resume.err" || fail "resume"
grep -q "5 rows computed, 3 resumed" "$T/resume.err" || fail "resume counts: $(cat "$T/resume.err")"
/usr/bin/python3 - "$T/o.csv" "$T/half.csv" <<'PY' || fail "resumed file differs from the uninterrupted one (beyond timing columns)"
import csv, sys
a, b = (list(csv.DictReader(l for l in open(p) if not l.startswith("#"))) for p in sys.argv[1:])
strip = lambda rows: sorted(tuple((k, v) for k, v in r.items() if k not in ("seconds", "peak_mib")) for r in rows)
assert strip(a) == strip(b), (len(a), len(b))
PY
expect_rc 2 "exists and is not empty" -- table --tokens 2 --dim 1 --depth 1 --format csv --out "$T/o.csv"
# a --partition leaves out the N it does not fit; one that fits no N is refused
"$S" table --tokens 2,3 --dim 1 --depth 1 --partition '1|2' --format csv >"$T/tp.csv" 2>"$T/tp.err" || fail "table --partition fitting N=2 only: $(cat "$T/tp.err")"
[[ $(grep -c '^attention,2,' "$T/tp.csv") -eq 1 && $(grep -c '^attention,3,' "$T/tp.csv") -eq 0 ]] || fail "table --partition rows: $(cat "$T/tp.csv")"
grep -q "1 invalid combinations left out" "$T/tp.err" || fail "table --partition count: $(cat "$T/tp.err")"
expect_rc 2 "fits no token count of the sweep" -- table --tokens 3,4 --dim 1 --depth 1 --partition '1|2'
# a configuration too large to build is left out, said, and the rest of the sweep runs;
# a sweep of only such configurations is refused as too large (exit 3)
"$S" table --tokens 2 --dim 1,1048576 --depth 1 --format csv >"$T/tl.csv" 2>"$T/tl.err" || fail "table with a too-large configuration: $(cat "$T/tl.err")"
[[ $(grep -c '^attention,2,1,' "$T/tl.csv") -eq 1 && $(wc -l <"$T/tl.csv") -eq 2 ]] || fail "table too-large rows: $(cat "$T/tl.csv")"
grep -q "1 configuration(s) too large to build left out (the first: network attention N=2 dx=1048576" "$T/tl.err" || fail "table too-large note: $(cat "$T/tl.err")"
grep -q "1 too large to build left out" "$T/tl.err" || fail "table too-large count: $(cat "$T/tl.err")"
expect_rc 3 "every valid configuration of the sweep is too large to build" -- table --tokens 2 --dim 1048576 --depth 1
# the limit is --max-memory's (1 MiB: dx = 200 needs about 1.2 MiB of weights)
"$S" --max-memory 0.0009765625 table --tokens 2 --dim 1,200 --depth 1 --format csv >"$T/tm.csv" 2>"$T/tm.err" || fail "table under --max-memory: $(cat "$T/tm.err")"
[[ $(wc -l <"$T/tm.csv") -eq 2 ]] && grep -q "1 too large to build left out" "$T/tm.err" || fail "table under --max-memory: $(cat "$T/tm.csv" "$T/tm.err")"
# a rank the limit refuses (the flattening's expansion over --max-memory) skips that row
# alone, says so, and --resume computes it again once the limit admits it
"$S" --max-memory 0.01 table --tokens 2 --dim 2,3 --depth 3 --method flattening --format csv --out "$T/rf.csv" >"$T/rf.out" 2>"$T/rf.err" || fail "table with a refused rank: $(cat "$T/rf.err")"
grep -q "1 row(s) skipped: a limit refused their rank (the first: expansion refused: .*(--max-memory)) \[here: --max-memory, or --method evaluation\]; --resume computes them again" "$T/rf.err" || fail "refused-rank note: $(cat "$T/rf.err")"
[[ $(grep -c ',skipped,"rank: expansion refused' "$T/rf.csv") -eq 1 && $(grep -c ',ok,' "$T/rf.csv") -eq 1 ]] || fail "refused-rank rows: $(cat "$T/rf.csv")"
"$S" table --tokens 2 --dim 2,3 --depth 3 --method flattening --format csv --out "$T/rf.csv" --resume >"$T/rf2.out" 2>"$T/rf2.err" || fail "resume a refused rank: $(cat "$T/rf2.err")"
grep -q "1 row(s) of .* had a rank, dimension or variety left empty by a limit" "$T/rf2.err" && grep -q "1 rows computed, 1 resumed" "$T/rf2.err" || fail "resume a refused rank: $(cat "$T/rf2.err")"
[[ $(grep -c ',skipped,' "$T/rf2.out") -eq 0 ]] || fail "resumed refused rank still skipped: $(cat "$T/rf2.out")"
# a limit between the rounded and the exact estimate: the refusal writes both exact values
# (0.036 GiB each when rounded), so the next resume reads it refused again and keeps it
"$S" --max-memory 0.01 table --tokens 2 --dim 3 --depth 3 --method flattening --format csv --out "$T/rr.csv" >/dev/null 2>&1 || fail "table rr"
for k in 1 2; do "$S" --max-memory 0.036005 table --tokens 2 --dim 3 --depth 3 --method flattening --format csv --out "$T/rr.csv" --resume >/dev/null 2>"$T/rr$k.err" || fail "resume rr $k"; done
grep -q "(38664192 bytes) estimated" "$T/rr1.err" && grep -q "0 rows computed, 1 resumed" "$T/rr2.err" || fail "a refusal near the limit is recomputed on every resume: $(cat "$T/rr1.err" "$T/rr2.err")"
# an output file name with a control character (a line break, an escape) is refused before any work
expect_rc 2 "contains a control character" -- expand --tokens 2 --dim 1 --save-weights "$T/bad"$'\n'"name.json"
expect_rc 2 "contains a control character" -- table --tokens 2 --dim 1 --out "$T/t"$'\e'".csv"
[[ ! -e "$T/bad"$'\n'"name.json" && ! -e "$T/t"$'\e'".csv" ]] || fail "a file with a control character in its name was made"
# a product under --max-memory stays near it: the dense product's plan (unpacked exponents, a
# part per term) is not made where it would be over a quarter of the limit, and the text of
# the 2^22-term result is refused before it is built (1.5 GB peak before both)
P22=$(printf '(x%d_1+1)*' $(seq 1 22)); P22=${P22%\*}
# (under an address-space limit of 1.2 GiB, which the 1.5 GB peak did not fit)
prlimit --as=1288490188 -- "$S" --max-memory 0.5 poly "$P22" >/dev/null 2>"$T/p22.err"; rc=$?
[[ $rc -eq 3 ]] && grep -q "the text of a polynomial of 4194304 terms" "$T/p22.err" || fail "poly of 2^22 terms under --max-memory 0.5: rc $rc $(cat "$T/p22.err")"
# resuming a narrower sweep from a file with a repeated row: both are said, nothing recomputed
cp "$T/o.csv" "$T/dup.csv"; tail -1 "$T/o.csv" >>"$T/dup.csv"
"$S" table --tokens 3 --dim 1..2 --depth 1..2 --format csv --out "$T/dup.csv" --resume >"$T/dup.out" 2>"$T/dup.err" || fail "resume a narrower sweep"
grep -q "0 rows computed, 4 resumed" "$T/dup.err" || fail "narrower resume counts: $(cat "$T/dup.err")"
grep -q "note: 1 row(s) of .*dup.csv repeat an earlier row's configuration" "$T/dup.err" || fail "duplicate row not noted: $(cat "$T/dup.err")"
grep -q "note: 4 row(s) of .*dup.csv are outside this sweep" "$T/dup.err" || fail "rows outside the sweep not noted: $(cat "$T/dup.err")"
[[ $(grep -c '^attention,3,' "$T/dup.out") -eq 4 ]] || fail "narrower resume shows other rows: $(cat "$T/dup.out")"
# table --dimension (issue 30): the same rows plus dimension, dim_expected, dim_defect
"$S" table --tokens 2,3 --dim 1..2 --depth 1..2 --dimension --format csv >"$T/td.csv" 2>/dev/null || fail "table --dimension"
/usr/bin/python3 - "$T/t.csv" "$T/td.csv" <<'PY' || fail "table --dimension rows"
import csv, sys
plain, dim = (list(csv.DictReader(open(p))) for p in sys.argv[1:])
assert len(plain) == len(dim) == 8
assert list(dim[0])[-5:] == ["dimension", "dim_expected", "dim_defect", "dim_label", "dim_failure_bound"], list(dim[0])
for a, b in zip(plain, dim):
    assert all(a[k] == b[k] for k in a if k not in ("seconds", "peak_mib")), (a, b)
    d, e = int(b["dimension"]), int(b["dim_expected"])
    assert b["dim_defect"] == ("true" if d < e else "false") and 1 <= d <= int(b["params"]), b
    # what the dimension is: certified (failure bound 0) or a generic lower bound with its bound
    assert (b["dim_label"], float(b["dim_failure_bound"]) == 0) in (("certified", True), ("generic lower bound", False)), b
known = {(r["tokens"], r["dim"], r["depth"]): r["dimension"] for r in dim}
assert known[("2", "2", "2")] == "8" and known[("3", "1", "2")] == "1", known
PY
"$S" table --tokens 2 --dim 2 --depth 1 --dimension --format csv --out "$T/od.csv" >/dev/null 2>&1 || fail "table --dimension --out"
grep -q "dimension=1" "$T/od.csv" || fail "table --dimension: the sweep line lacks dimension=1"
expect_rc 2 "different sweep" -- table --tokens 2 --dim 2 --depth 1 --format csv --out "$T/od.csv" --resume
"$S" table --tokens 2 --dim 2 --depth 1 --dimension | grep -q "dim_expected" || fail "table --dimension text lacks the columns"
expect_rc 2 "--tokens '2..x'" -- table --tokens "2..x"
# Theorem 7.3 sweeps: --embed-rank with none, the s_up/s_low columns, the preset's guard
"$S" table --tokens 2 --dim 2 --depth 1..2 --embed-rank none,1..3 --format csv >"$T/e.csv" 2>/dev/null || fail "table --embed-rank"
/usr/bin/python3 - "$T/e.csv" <<'PY' || fail "embed-rank sweep rows"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [r["embed_rank"] for r in rows] == ["0", "1", "2", "3"] * 2, [r["embed_rank"] for r in rows]
for r in rows:
    L, e = int(r["depth"]), int(r["embed_rank"])
    assert r["s_up"] == ("" if e == 0 else str(L * min(e, 2))), r
    assert r["s_low"] == (str(L * (min(e, 2) - 1)) if e >= 2 else ""), r   # 3^L > 2 and H = 1 < r
    assert r["t73_flag"] == "", r
full = {r["depth"]: r["rank"] for r in rows if r["embed_rank"] == "0"}
assert all(r["rank"] == full[r["depth"]] for r in rows if r["embed_rank"] in ("2", "3")), rows
PY
expect_rc 2 "--preset theorem7.3 takes no network options" -- table --preset theorem7.3 --dim 2
expect_rc 2 "--preset" -- table --preset nope
expect_rc 2 "--embed-rank" -- table --embed-rank "none,x"
"$S" verify --list | grep -q "^embedding-wide: " || fail "verify --list lacks the embedding claims"
# every claim docs/verify.md tabulates is listed (so a plain `verify` runs it)
"$S" verify --list >"$T/claims.txt" || fail "verify --list"
docs_verify="$(dirname "$0")/../docs/verify.md"
for c in $(grep -o '^| `[a-z0-9.-]*` |' "$docs_verify" | tr -d '|` '); do
  grep -q "^$c: " "$T/claims.txt" || fail "verify --list lacks the claim $c of docs/verify.md"
done
[[ $(grep -c '^| `[a-z0-9.-]*` |' "$docs_verify") -ge 10 ]] || fail "docs/verify.md: its claim tables were not found"
# issue 58: a PASS line says what it computed, on which network, against what; tuples in
# one order, (d0, r, d1), in --list and in the line; no stray "; " before the time
"$S" verify --claim claim7.2 --claim prop7.1 --claim stack-per-token-first --claim power-alexander-hirschowitz >"$T/vlines.txt" || fail "verify lines"
grep -q "^PASS claim7.2: attention N=3 dx=2 L=2 H=1, partition 1,2|3: generic rank over 12 draws" "$T/vlines.txt" || fail "claim7.2 names no network"
grep -q "^PASS prop7.1: attention N=5 dx=2 L=2 H=1: rank by evaluation on its 6 balanced partitions" "$T/vlines.txt" || fail "prop7.1 names no dx, L"
grep -q "^PASS stack-per-token-first: generic sep of the stack at N=2 dx=3, partition 1|2, against da + 1: .*[0-9] ([0-9.]* s)$" "$T/vlines.txt" ||
  fail "stack-per-token-first: no network, or a stray '; ' at the end"
grep -q "exception (d0,r,d1), and the expected count beside it: .*(5,4,14): 69 < 70 (expected 70, a defect); 17 networks, 7 below min" "$T/vlines.txt" || fail "power-alexander-hirschowitz misses (5,4,14)"
grep -q "^power-alexander-hirschowitz: .*written (d0, r, d1)" "$T/claims.txt" || fail "verify --list: the power tuples' order"
# a claim whose work --max-time refuses is not checked: LIMIT, exit 3 (it was a FAIL, exit 1:
# a hunt, 2026-12-02); with a FAIL beside it the exit stays 1 (no claim fails here to show it)
"$S" --max-time 0.01 verify --claim massarenti-mella --claim degree >"$T/vlimit.txt" 2>&1
rc=$?
[[ $rc -eq 3 ]] && grep -q "^LIMIT massarenti-mella: not checked: .*--max-time" "$T/vlimit.txt" && grep -q "^PASS degree: " "$T/vlimit.txt" ||
  fail "verify under a resource limit: exit $rc, $(cat "$T/vlimit.txt")"
"$S" --max-time 0.01 verify --claim massarenti-mella --format json | /usr/bin/python3 -c 'import json, sys; r = json.load(sys.stdin)[0]; sys.exit(not (r["checked"] is False and r["pass"] is False))' ||
  fail "verify --format json: checked false under a resource limit"
# a claim whose computation reports the limit in its answer (a certificate not tried, an
# equation's search stopped, a growth stopped by memory) marks those cases NOT CHECKED and
# is LIMIT too, where no case is wrong (they FAILed: an earlier session's note)
"$S" --max-time 0.001 verify --claim conv-variety >"$T/vlimit2.txt" 2>&1
rc=$?
[[ $rc -eq 3 ]] && grep -q "^LIMIT conv-variety: not checked: 2 cases stopped by a resource limit; .*(2,2,2) at 2: 4, 48, 4 NOT CHECKED (certifying 48 section solutions .* passes the time limit)" "$T/vlimit2.txt" ||
  fail "conv-variety under --max-time 0.001: exit $rc, $(cat "$T/vlimit2.txt")"
"$S" --max-memory 0.001 verify --claim sums-of-powers >"$T/vlimit3.txt" 2>&1
rc=$?
[[ $rc -eq 3 ]] && grep -q "^LIMIT sums-of-powers: not checked: .*(2, 4 x 8): 8, -1 NOT CHECKED (.*(--max-memory))" "$T/vlimit3.txt" ||
  fail "sums-of-powers under --max-memory 0.001: exit $rc, $(cat "$T/vlimit3.txt")"

# plot (gnuplot-nox is installed by the set-up)
if command -v gnuplot >/dev/null; then
  "$S" plot "$T/t.csv" --x depth --y log3_rank --series dim --where tokens=2 --bounds -o "$T/fig.svg" >/dev/null || fail "plot svg"
  grep -q "<svg" "$T/fig.svg" || fail "plot wrote no svg"
  # PNG through cairo where gnuplot has it (the dashed bounds dashed), libgd otherwise
  "$S" plot "$T/t.csv" --x depth --y log3_rank --series dim --where tokens=2 --bounds -o "$T/fig.png" >/dev/null || fail "plot png"
  [[ "$(head -c 8 "$T/fig.png" | od -An -tx1 | tr -d ' \n')" == "89504e470d0a1a0a" ]] || fail "plot wrote no png"
  # --where pairs comma-separated, as guess --where, or the option repeated: the same figure
  "$S" plot "$T/t.csv" --x depth --y log3_rank --series dim --where tokens=2,family=attention -o "$T/w1.svg" >/dev/null || fail "plot --where a=1,b=2"
  "$S" plot "$T/t.csv" --x depth --y log3_rank --series dim --where tokens=2 --where family=attention -o "$T/w2.svg" >/dev/null || fail "plot --where twice"
  cmp -s "$T/w1.svg" "$T/w2.svg" || fail "plot --where tokens=2,family=attention differs from the option given twice"
  # ... matched as guess matches: a stack's SPEC in any spelling, integers as integers
  "$S" table --layers 'attention,mlp:power=2;attention' --tokens 2 --dim 1 --depth 1,2 --format csv >"$T/sl.csv" 2>/dev/null || fail "stack table for plot"
  "$S" plot "$T/sl.csv" --x depth --y rank --series layers --where 'layers=attention,mlp:power=2,tokens=02' -o "$T/sl.svg" >/dev/null || fail "plot --where layers=SPEC,tokens=02"
  "$S" plot "$T/sl.csv" --x depth --y rank --series layers --where outside= -o "$T/sl.svg" >/dev/null || fail "plot --where outside= (an empty value: the rows inside the bounds)"
  expect_rc 2 "where filter 'layers=bogus': not a SPEC" -- plot "$T/sl.csv" --x depth --y rank --series layers --where layers=bogus -o "$T/sl.svg"
  expect_rc 2 "no column 'nope'" -- plot "$T/t.csv" --x nope -o "$T/x.svg"
  "$S" plot "$T/td.csv" --x depth --y dimension --y2 log3_rank --series dim --where tokens=2 -o "$T/fig2.svg" >/dev/null || fail "plot --y2"
  grep -q "log3_rank" "$T/fig2.svg" || fail "plot --y2 drew no second curve"
  expect_rc 2 "no column 'nope'" -- plot "$T/td.csv" --y2 nope -o "$T/x.svg"
  [[ ! -e "$T/x.svg" ]] || fail "failed plot left a file"
  # two rows of one series at one x are refused, naming both lines (the second was drawn
  # over the first, unsaid: a hunt, 2026-12-02); nan and inf cells are left out, as
  # docs/plot.md says (they were refused), a number past 1e300 still refused
  printf 'n,v,s,t\n1,1,a,x\n2,2,a,x\n1,3,a,y\n2,2,a,y\n' >"$T/dup.csv"
  expect_rc 2 "lines 2 and 4: two rows of series s=a at n = 1 with other values" -- plot "$T/dup.csv" --x n --y v --series s -o "$T/dup.svg"
  "$S" plot "$T/dup.csv" --x n --y v --series t -o "$T/dup.svg" >/dev/null || fail "plot of the same rows by a series telling them apart"
  "$S" plot "$T/dup.csv" --x n --y v --series s --where t=x -o "$T/dup.svg" >/dev/null || fail "plot of rows kept by --where"
  printf 'n,v,s\n1,1,a\n1,1,a\n' >"$T/same.csv"  # the same point twice (two budgets using the same parameters): drawn once
  "$S" plot "$T/same.csv" --x n --y v --series s -o "$T/same.svg" >/dev/null || fail "plot of one point given twice"
  printf 'n,v,s\n1,nan,a\n2,-Inf,a\n3,2,a\n4,infinity,a\n' >"$T/nan.csv"
  "$S" plot "$T/nan.csv" --x n --y v --series s -o "$T/nan.svg" >/dev/null || fail "plot of a table with nan and inf cells"
  printf 'n,v,s\n1,1e400,a\n' >"$T/big.csv"
  expect_rc 2 "column 'v' = '1e400' is not a finite number within +-1e300" -- plot "$T/big.csv" --x n --y v --series s -o "$T/big.svg"
  # A value below the smallest normal double (1e-320) is a number, read as its nearest double
  # (it was an internal error: std::stod throws on it), in the plotted columns and in --blocks'.
  printf 'depth,log3_rank,dim\n1,1e-320,1\n2,1,1\n' >"$T/tiny.csv"
  "$S" plot "$T/tiny.csv" --x depth --y log3_rank --series dim -o "$T/tiny.svg" >/dev/null || fail "plot of a subnormal cell"
  grep -q "<svg" "$T/tiny.svg" || fail "plot of a subnormal cell wrote no svg"
  # Nothing in a path, a title or a table cell runs a command: gnuplot runs without a shell
  # and gets single-quoted strings (no `backquote` substitution); a line break is refused.
  mkdir -p "$T/inj"
  printf 'n,s,v\n1,`touch %s/inj/CELL`,2\n2,`touch %s/inj/CELL`,3\n' "$T" "$T" >"$T/inj/t.csv"
  (Sa=$(realpath "$S") && cd "$T/inj" && "$Sa" plot t.csv --x n --y v --series s --title "a \`touch $T/inj/TITLE\`" -o 'y$(touch PATH).svg' >/dev/null) ||
    fail "plot with shell and gnuplot metacharacters"
  [[ ! -e "$T/inj/CELL" && ! -e "$T/inj/TITLE" && ! -e "$T/inj/PATH" ]] || fail "plot ran a command from its input: $(ls "$T/inj")"
  grep -q "touch $T/inj/CELL" "$T/inj/y\$(touch PATH).svg" || fail "plot lost the cell's text"
  expect_rc 2 "contains a control character" -- plot "$T/inj/t.csv" --x n --y v --series s -o "$T/inj/a
b.svg"
  expect_rc 2 "column 's' = " -- plot "$T/inj/t.csv" --x n --y s --series s -o "$T/inj/c.svg"
  [[ $(ls -A "$T/inj" | wc -l) -eq 2 ]] || fail "plot left files: $(ls -A "$T/inj")"
  printf 'n,s,v\r\n1,a,2\r\n2,a,3\r\n' >"$T/inj/crlf.csv"
  "$S" plot "$T/inj/crlf.csv" --x n --y v --series s -o "$T/inj/crlf.svg" >/dev/null || fail "plot of a CRLF table"
  # A full disk while gnuplot writes the figure (a file-size limit above the script's size
  # and below the figure's): gnuplot exits 0 with a cut file; plot says so (exit 3) and
  # leaves nothing. 2000 points: a script of about 30 kB, figures of about 40 kB (PNG) and
  # 260 kB (SVG).
  mkdir -p "$T/fsz"
  /usr/bin/python3 -c "import sys; open(sys.argv[1], 'w').write('family,tokens,dim,depth,rank,log3_rank,log3_lower,log3_upper,status\n' +
    ''.join(f'attention,2,1,{L},3,{L % 7},0,2,ok\n' for L in range(1, 2000)))" "$T/mid.csv"
  "$S" plot "$T/mid.csv" --x depth --y log3_rank --series dim -o "$T/fsz/whole.svg" >/dev/null || fail "plot of 2000 points"
  "$S" plot "$T/mid.csv" --x depth --y log3_rank --series dim -o "$T/whole.png" >/dev/null || fail "plot of 2000 points (png)"
  exts=svg
  [[ $(stat -c %s "$T/whole.png") -gt 40000 ]] && exts="svg png"  # (this gnuplot's PNG may be smaller)
  for ext in $exts; do
    prlimit --fsize=36000 -- "$S" plot "$T/mid.csv" --x depth --y log3_rank --series dim -o "$T/fsz/cut.$ext" >/dev/null 2>"$T/err"
    rc=$?
    [[ $rc -eq 3 ]] && grep -q "writing the figure '$T/fsz/cut.$ext' failed: gnuplot's $ext is cut short" "$T/err" ||
      fail "plot on a full disk ($ext): exit $rc, $(cat "$T/err")"
    [[ $(ls -A "$T/fsz") == whole.svg ]] || fail "plot on a full disk ($ext) left: $(ls -A "$T/fsz")"
  done
  # An output name of 244 bytes (a temporary's name longer than 255 bytes was refused)
  long=$(printf 'p%.0s' {1..240})
  "$S" plot "$T/inj/crlf.csv" --x n --y v --series s -o "$T/fsz/$long.svg" >/dev/null || fail "plot to a 244-byte name"
  grep -q "</svg>" "$T/fsz/$long.svg" || fail "plot to a 244-byte name wrote no svg"
  "$S" expand --tokens 2 --dim 1 --save-weights "$T/fsz/$long.jsn" >/dev/null || fail "--save-weights to a 244-byte name"
  [[ $(ls -A "$T/fsz" | wc -l) -eq 3 ]] || fail "writes to 244-byte names left: $(ls -A "$T/fsz")"
fi

# plot interrupted (SIGINT, SIGTERM) while gnuplot runs: the figure's temporary, the script
# and the log go, gnuplot is ended, and seprank ends by the signal. A stand-in gnuplot
# starts the figure, says its pid and hangs (a real one is too quick to interrupt).
mkdir -p "$T/fakegp" "$T/intr"
cat >"$T/fakegp/gnuplot" <<'SH'
#!/bin/bash
out=$(sed -n "s/^set output '\(.*\)'$/\1/p" "$1")
printf '<svg' >"$out"
echo $$ >"$(dirname "$1")/../gnuplot.pid"
exec sleep 60
SH
chmod +x "$T/fakegp/gnuplot"
printf 'n,s,v\n1,a,2\n2,a,3\n' >"$T/intr.csv"
for sig in INT TERM; do
  rm -f "$T/gnuplot.pid"
  PATH="$T/fakegp:$PATH" env --default-signal=INT,TERM "$S" plot "$T/intr.csv" --x n --y v --series s -o "$T/intr/p.svg" >/dev/null 2>&1 &
  pid=$!
  for ((w = 0; w < 400; ++w)); do [[ -s "$T/gnuplot.pid" ]] && break; sleep 0.05; done
  [[ -s "$T/gnuplot.pid" ]] || { fail "plot did not start the stand-in gnuplot"; kill -KILL "$pid"; wait "$pid"; continue; }
  gp=$(cat "$T/gnuplot.pid")
  [[ $(ls -A "$T/intr" | wc -l) -eq 3 ]] || fail "plot while gnuplot runs: expected its 3 temporaries, found: $(ls -A "$T/intr")"
  kill -s "$sig" "$pid"
  wait "$pid"
  rc=$?
  [[ $rc -eq $((128 + $(kill -l "$sig"))) ]] || fail "plot interrupted by SIG$sig: exit $rc, expected death by the signal"
  [[ -z "$(ls -A "$T/intr")" ]] || fail "plot interrupted by SIG$sig left files: $(ls -A "$T/intr")"
  for ((w = 0; w < 100; ++w)); do
    [[ ! -e /proc/$gp ]] || grep -q '^State:.*Z' /proc/$gp/status 2>/dev/null && break
    sleep 0.05
  done
  if [[ -e /proc/$gp ]] && ! grep -q '^State:.*Z' /proc/$gp/status 2>/dev/null; then
    fail "plot interrupted by SIG$sig left gnuplot running"
    kill -KILL "$gp" 2>/dev/null
  fi
done

# matrices: --save-matrix writes the flattening, --matrix ranks it to the same value
"$S" rank --tokens 3 --dim 2 --depth 2 --seed 4 --save-matrix "$T/f.mtx" --format json >"$T/r1.json" || fail "rank --save-matrix"
"$S" rank --matrix "$T/f.mtx" --format json >"$T/r2.json" || fail "rank --matrix"
/usr/bin/python3 - "$T/r1.json" "$T/r2.json" <<'PY' || fail "saved flattening ranks differently"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
assert a["rank"] == b["rank"] and a["rows"] == b["rows"] and a["cols"] == b["cols"] and b["certified"], (a, b)
PY
# a rational matrix (field rational, a/b entries) is ranked over Q: rows 2 and 3 are
# 1/2 and -2/3 times row 1, so the rank is 2 (with the last row), certified
printf '%%%%MatrixMarket matrix array rational general\n4 2\n1\n1/2\n-2/3\n0\n3/7\n3/14\n-2/7\n5/3\n' >"$T/q.mtx"
"$S" rank --matrix "$T/q.mtx" --format json >"$T/rq.json" || fail "rank --matrix of a rational file"
/usr/bin/python3 - "$T/rq.json" <<'PY' || fail "rational matrix ranked wrongly"
import json, sys
a = json.load(open(sys.argv[1]))
assert a["rank"] == 2 and a["rows"] == 4 and a["cols"] == 2 and a["certified"], a
PY
printf '%%%%MatrixMarket matrix coordinate rational general\n2 2 1\n1 1 5/0\n' >"$T/q0.mtx"
expect_rc 2 "line 3: entry '5/0' has a zero denominator" -- rank --matrix "$T/q0.mtx"
# a weights file with two layers and no depth (nor dim, heads): read from the matrices
cat >"$T/nodepth.json" <<'JSON'
{"family": "attention", "tokens": 3,
 "layers": [{"heads": [{"Q": [[1, 0], [0, 1]], "K": [[1, 2], [0, 1]], "V": [[1, "1/2"], [0, 1]], "O": [[1, 0], [0, 3]]}]},
            {"heads": [{"Q": [[2, 0], [1, 1]], "K": [[1, 0], [0, 1]], "V": [[1, 0], [-1, 1]], "O": [[1, 1], [0, 1]]}]}]}
JSON
"$S" expand --weights "$T/nodepth.json" --save-weights "$T/nodepth_full.json" >/dev/null || fail "weights without depth"
/usr/bin/python3 - "$T/nodepth_full.json" <<'PY' || fail "weights without depth: wrong sizes inferred"
import json, sys
w = json.load(open(sys.argv[1]))
assert (w["depth"], w["dim"], w["heads"], w["tokens"]) == (2, 2, 1, 3) and "head_dim" not in w, w
PY
printf '%%%%MatrixMarket matrix coordinate integer general\n2 2 1\n3 1 4\n' >"$T/bad.mtx"
expect_rc 2 "line 3: index (3, 1)" -- rank --matrix "$T/bad.mtx"
expect_rc 2 "--save-matrix needs" -- rank --tokens 2 --dim 1 --method evaluation --save-matrix "$T/e.mtx"
[[ ! -e "$T/e.mtx" ]] || fail "refused --save-matrix left a file"
expect_rc 2 "--variant: 'fast' is not one of auto, plain, graded" -- rank --tokens 2 --dim 1 --method evaluation --variant fast

# block stores (docs/evaluation.md "Block store"): a killed run resumes from its units, two
# processes share one store, and both give the in-memory answer
G=(generic --tokens 2 --dim 3 --depth 3 --trials 1 --method evaluation --format json --max-side 20000)
"$S" "${G[@]}" >"$T/gm.json" || fail "generic in memory"
"$S" --threads 1 "${G[@]}" --store "$T/gs" >"$T/gk.json" & gp=$!
sleep 0.3; kill -9 "$gp" 2>/dev/null; wait "$gp" 2>/dev/null
"$S" --threads 1 "${G[@]}" --store "$T/gs" >"$T/g1.json" & gp=$!
"$S" --threads 1 "${G[@]}" --store "$T/gs" >"$T/g2.json" || fail "generic --store (second process)"
wait "$gp" || fail "generic --store (first process)"
/usr/bin/python3 - "$T/gm.json" "$T/g1.json" "$T/g2.json" <<'PY' || fail "block store answers differ from memory"
import json, sys
m, a, b = (json.load(open(p)) for p in sys.argv[1:])
for x in (a, b):
    for k in ("rank", "rows", "failure_bound", "label", "trial_ranks"):
        assert x[k] == m[k], (k, x[k], m[k])
PY
expect_rc 2 "belongs to another computation" -- "${G[@]}" --seed 2 --store "$T/gs"
expect_rc 2 "growth" -- "${G[@]}" --growth 1 --store "$T/gs2"
expect_rc 2 "finite number above 1" -- "${G[@]}" --growth inf
"$S" generic --tokens 2 --dim 2 --depth 2 --trials 1 --method flattening --store "$T/gf" --format json >"$T/gf.json" || fail "generic --store with flattening"
grep -q "block store $T/gf not used" "$T/gf.json" || fail "generic --store with flattening does not say the store was not used"
: >"$T/afile"
expect_rc 2 "exists and is not a directory" -- "${G[@]}" --store "$T/afile"
# a rank unit holds the rank's digits, its checksum and a newline, nothing else: what strtol
# read as the rank (" 7", "+7", "7 junk"), or a plausible rank without its checksum, is
# damage; a unit linked to /dev/zero is refused unread
ru=$(ls "$T/gs/trial0" | grep -E '^r[0-9]+_[0-9]+$' | head -1)
cp "$T/gs/trial0/$ru" "$T/ru.keep"
for bad in " $(cat "$T/ru.keep")" "+$(cat "$T/ru.keep")" "$(cat "$T/ru.keep") junk" "0" "$(cut -d' ' -f1 "$T/ru.keep")"; do
    printf '%s\n' "$bad" >"$T/gs/trial0/$ru"
    expect_rc 2 "rank unit $ru is damaged" -- "${G[@]}" --store "$T/gs"
done
rm "$T/gs/trial0/$ru"; ln -s /dev/zero "$T/gs/trial0/$ru"
expect_rc 2 "is a device, not a file the store wrote" -- "${G[@]}" --store "$T/gs"
rm "$T/gs/trial0/$ru"; cp "$T/ru.keep" "$T/gs/trial0/$ru"
"$S" "${G[@]}" --store "$T/gs" >"$T/g3.json" || fail "generic --store with its rank unit restored"
# an evaluation tile zeroed, or with one bit flipped, is refused naming it (it gave rank 0,
# or a rank above the generic one, with exit 0)
tu=$(ls "$T/gs/trial0" | grep -E '^e[0-9]+_[0-9]+$' | head -1)
cp "$T/gs/trial0/$tu" "$T/tu.keep"
rm -f "$T/gs/trial0"/r*_[0-9]* "$T/gs/trial0"/l*_[0-9]*  # the ranks are read again from the tiles
head -c "$(stat -c %s "$T/tu.keep")" /dev/zero >"$T/gs/trial0/$tu"
expect_rc 2 "unit $tu is damaged (the checksum of block" -- "${G[@]}" --store "$T/gs"
/usr/bin/python3 -c "import sys; b = bytearray(open(sys.argv[1], 'rb').read()); b[200] ^= 1; open(sys.argv[2], 'wb').write(b)" "$T/tu.keep" "$T/gs/trial0/$tu"
expect_rc 2 "unit $tu is damaged (the checksum of block" -- "${G[@]}" --store "$T/gs"
cp "$T/tu.keep" "$T/gs/trial0/$tu"
"$S" "${G[@]}" --store "$T/gs" >"$T/g4.json" || fail "generic --store with its tile restored"
/usr/bin/python3 -c "import json, sys; a, b = (json.load(open(f)) for f in sys.argv[1:]); assert all(a[k] == b[k] for k in ('rank', 'block_ranks', 'failure_bound', 'prime')), (a, b)" "$T/g3.json" "$T/g4.json" ||
  fail "generic --store, tile restored: another answer"
# table --block-store: same rows as without, and the units are gone afterwards
"$S" table --tokens 2 --dim 2,3 --depth 3 --format csv --out "$T/tb.csv" --block-store >/dev/null || fail "table --block-store"
"$S" table --tokens 2 --dim 2,3 --depth 3 --format csv >"$T/tn.csv" || fail "table in memory"
[[ ! -e "$T/tb.csv.blocks" ]] || fail "table --block-store left its units"
/usr/bin/python3 - "$T/tb.csv" "$T/tn.csv" <<'PY' || fail "table --block-store rows differ"
import csv, sys
def rows(p):
    return [{k: v for k, v in r.items() if k not in ("seconds", "peak_mib")} for r in csv.DictReader(l for l in open(p) if not l.startswith("#"))]
a, b = rows(sys.argv[1]), rows(sys.argv[2])
assert a == b and len(a) == 2, (a, b)
PY
expect_rc 2 "--block-store needs --out" -- table --tokens 2 --dim 1 --depth 1 --block-store

# options the chosen method ignores (issue 29.4): one note line each on stderr, a "notes"
# list in the JSON record; none when every option given is used
# expect_note NOTE -- args...: exit 0, NOTE on stderr and in the JSON record's notes
expect_note() {
  local note=$1; shift 2
  "$S" "$@" --format json >"$T/n.json" 2>"$T/n.err" || { fail "'$*': exit $?: $(cat "$T/n.err")"; return; }
  grep -qF -- "seprank: note: $note" "$T/n.err" || fail "'$*': stderr lacks note '$note': $(cat "$T/n.err")"
  /usr/bin/python3 -c 'import json, sys; n = json.load(open(sys.argv[1])).get("notes", []); sys.exit(0 if any(sys.argv[2] in x for x in n) else 1)' \
    "$T/n.json" "$note" || fail "'$*': JSON notes lack '$note': $(cat "$T/n.json")"
}
N=(--tokens 2 --dim 1 --depth 1)
expect_note "--growth 2 is ignored: method flattening" -- generic "${N[@]}" --method flattening --growth 2
# A path that is not valid UTF-8 in a note: the bytes as given on stderr, JSON with U+FFFD
# for the bad byte (it exited 1 on nlohmann's type_error before).
"$S" generic "${N[@]}" --method flattening --store "$T/x"$'\xff'"y" --format json >"$T/u.json" 2>"$T/u.err" \
  || fail "invalid UTF-8 path: exit $?: $(cat -v "$T/u.err")"
grep -qaF -- "--store $T/x"$'\xff'"y is ignored" "$T/u.err" || fail "invalid UTF-8 path: stderr lacks the note: $(cat -v "$T/u.err")"
/usr/bin/python3 -c 'import json, sys; n = json.load(open(sys.argv[1], encoding="utf-8"))["notes"]; sys.exit(0 if any("x\ufffdy is ignored" in x for x in n) else 1)' \
  "$T/u.json" || fail "invalid UTF-8 path: JSON notes lack U+FFFD: $(cat -v "$T/u.json")"
expect_note "--max-side 64 is ignored: method flattening (chosen by --method auto)" -- generic "${N[@]}" --max-side 64
expect_note "--start 8 is ignored" -- generic "${N[@]}" --method flattening --start 8
# generic ranks a weights file's architecture, not its values: said, as rank --weights ranks them
expect_note "--weights $T/w.json: only its architecture is used" -- generic --weights "$T/w.json"
expect_note "--variant plain is ignored" -- generic "${N[@]}" --method flattening --variant plain
expect_note "--weight-range 3 is ignored: generic draws every weight uniformly from Z/p" -- generic "${N[@]}" --weight-range 3
expect_note "--store $T/gp is ignored: the plain evaluation keeps no block store" -- generic "${N[@]}" --method evaluation --variant plain --store "$T/gp"
expect_note "--templates 3 is ignored: method flattening uses no templates" -- rank "${N[@]}" --templates 3
expect_note "--max-side 9 is ignored: method flattening evaluates nothing" -- rank "${N[@]}" --max-side 9
expect_note "--variant graded is ignored: method grid evaluates nothing" -- rank "${N[@]}" --method grid --variant graded
expect_note "--certificate hadamard is ignored: --field p ranks mod p" -- rank "${N[@]}" --field p --certificate hadamard
expect_note "--certificate pivot-span is ignored: the evaluation ranks mod p" -- rank "${N[@]}" --method evaluation --certificate pivot-span
expect_note "--field Q is ignored: the evaluation always ranks mod p" -- rank "${N[@]}" --method evaluation --field Q
expect_note "--templates 2 is ignored: method evaluation uses no templates" -- rank "${N[@]}" --method evaluation --templates 2
expect_note "--embed-rank 0 is ignored: --poly gives the polynomial" -- rank --poly "x1_1*x2_1" --embed-rank 0
expect_note "--seed 3 is ignored: --poly gives the polynomial (the seed draws random weights)" -- spectrum --poly "x1_1*x2_1" --seed 3
expect_note "--dim 1 is ignored: --weights gives the network" -- rank --weights "$T/w.json" --dim 1
expect_note "--partition 1|2 is ignored: --all-balanced" -- rank "${N[@]}" --all-balanced --partition "1|2"
# every option used: no note, no notes key
"$S" generic "${N[@]}" --method evaluation --growth 2 --start 8 --max-side 64 --format json >"$T/n.json" 2>"$T/n.err" || fail "generic evaluation run"
[[ ! -s "$T/n.err" ]] || fail "generic with every option used printed: $(cat "$T/n.err")"
/usr/bin/python3 -c 'import json, sys; assert "notes" not in json.load(open(sys.argv[1]))' "$T/n.json" || fail "notes key without a note"
# table: notes on stderr only (its JSON stays an array of rows)
"$S" table "${N[@]}" --method flattening --max-side 64 --measure gaussian --format json >"$T/n.json" 2>"$T/n.err" || fail "table with ignored options"
grep -qF "seprank: note: --max-side 64 is ignored: no row used the evaluation (method flattening)" "$T/n.err" || fail "table --max-side note: $(cat "$T/n.err")"
grep -qF "seprank: note: --measure gaussian is ignored: no eps columns asked for" "$T/n.err" || fail "table --measure note: $(cat "$T/n.err")"
/usr/bin/python3 -c 'import json, sys; assert isinstance(json.load(open(sys.argv[1])), list)' "$T/n.json" || fail "table JSON is no longer an array"

# dimension (issue 30): the rank of the parameter map's Jacobian beside its expected count.
# Attention N=2 dx=2 H=1 L=1, scalar output: 5 of 16 parameters (SPEC.md), as expected.
D=(dimension --tokens 2 --dim 2 --depth 1 --seed 3)
"$S" "${D[@]}" --format json >"$T/dim.json" || fail "dimension run"
/usr/bin/python3 - "$T/dim.json" <<'PY' || fail "dimension JSON: $(cat "$T/dim.json")"
import json, sys
r = json.load(open(sys.argv[1]))
for k in ("rank", "kind", "failure_bound", "parameters", "expected", "defect", "output", "variant", "rows", "cols",
          "prime", "trial_ranks", "seconds", "peak_mib", "note", "ambient", "losses", "network", "family", "weights"):
    assert k in r, k
assert (r["rank"], r["parameters"], r["expected"], r["defect"]) == (5, 16, 5, False), r
assert r["kind"] == "generic" and r["quantity"] == "dimension" and 0 < r["failure_bound"] < 1e-12, r
assert (r["output"], r["variant"], r["cols"], r["rows"]) == ("scalar", "reverse", 16, 24), r
assert r["weights"] is None and "notes" not in r, r
assert r["expected"] == min(r["parameters"] - sum(x["size"] for x in r["losses"]), r["ambient"]), r
PY
"$S" "${D[@]}" >"$T/dim.txt" || fail "dimension text"
grep -q "^rank  *5$" "$T/dim.txt" && grep -q "^expected  *5$" "$T/dim.txt" && grep -q "^  - layer 1: .*: [0-9]" "$T/dim.txt" \
  && grep -q "^  ambient " "$T/dim.txt" || fail "dimension text lacks the value or the derivation: $(cat "$T/dim.txt")"
"$S" "${D[@]}" --format csv >"$T/dim.csv" || fail "dimension csv"
head -1 "$T/dim.csv" | grep -q "^rank,kind,label,output,variant,parameters,expected,defect," || fail "dimension csv header: $(head -1 "$T/dim.csv")"
[[ $(wc -l <"$T/dim.csv") -eq 2 ]] || fail "dimension csv: not one header and one row"
# every output: at most the parameters; the interpolation reference gives the same Jacobian rank
"$S" "${D[@]}" --output all --format json >"$T/dim_all.json" || fail "dimension --output all"
"$S" "${D[@]}" --output all --variant interpolation --format json >"$T/dim_int.json" || fail "dimension --variant interpolation"
/usr/bin/python3 - "$T/dim_all.json" "$T/dim_int.json" <<'PY' || fail "dimension --output all / interpolation"
import json, sys
a, i = (json.load(open(p)) for p in sys.argv[1:])
assert a["output"] == "all" and 5 <= a["rank"] <= a["parameters"] == 16 and a["rows"] >= 24, a
assert i["variant"] == "interpolation" and (i["rank"], i["prime"], i["trial_ranks"]) == (a["rank"], a["prime"], a["trial_ranks"]), (a, i)
PY
# local dimension at weights seprank wrote: at most the generic one; 0 at all-zero weights
"$S" expand --tokens 2 --dim 2 --depth 1 --seed 3 --save-weights "$T/dw.json" >/dev/null || fail "dimension weights file"
"$S" dimension --weights "$T/dw.json" --format json >"$T/dw_dim.json" || fail "dimension --weights"
/usr/bin/python3 - "$T/dw.json" "$T/dw0.json" <<'PY' || fail "zero weights file"
import json, sys
w = json.load(open(sys.argv[1]))
for h in w["layers"][0]["heads"]:
    for m in "QKVO":
        h[m] = [[0] * len(row) for row in h[m]]
json.dump(w, open(sys.argv[2], "w"))
PY
"$S" dimension --weights "$T/dw0.json" --format json >"$T/dw0_dim.json" || fail "dimension --weights (zero)"
/usr/bin/python3 - "$T/dw_dim.json" "$T/dw0_dim.json" "$T/dw.json" <<'PY' || fail "dimension --weights: $(cat "$T/dw_dim.json" "$T/dw0_dim.json")"
import json, sys
w, z = (json.load(open(p)) for p in sys.argv[1:3])
assert w["weights"] == sys.argv[3] and "local dimension" in w["note"] and w["rank"] <= 5 and w["parameters"] == 16, w
# a lower bound at the given weights: no generic count compared, no defect claimed (issue 38)
assert (z["rank"], z["defect"], z["expected"], z["kind"], z["label"]) == (0, None, None, "modular-lower-bound", "lower bound"), z
assert "generic expected 5" in z["note"], z
PY
expect_note "--threads 1 is ignored: the interpolation variant builds the Jacobian on one thread" -- "${D[@]}" --variant interpolation --threads 1
expect_note "--weight-range 3 is ignored: dimension draws every weight uniformly from Z/p" -- "${D[@]}" --weight-range 3
expect_note "--dim 1 is ignored: --weights gives the network" -- dimension --weights "$T/dw.json" --dim 1
# the text derivation at given weights is the generic count's, for reference: no "expected N" line
"$S" dimension --weights "$T/dw.json" >"$T/dw_dim.txt" || fail "dimension --weights (text)"
grep -q '^generic expected = min(parameters - losses, ambient) (for random weights' "$T/dw_dim.txt" \
  && grep -q '^  generic expected [0-9]' "$T/dw_dim.txt" && ! grep -qE '^ *expected +[0-9]' "$T/dw_dim.txt" \
  || fail "dimension --weights text derivation: $(cat "$T/dw_dim.txt")"
expect_rc 2 "it has no parameters" -- dimension --tokens 2 --dim 2 --depth 0
expect_rc 2 "output: 'both' is not scalar or all" -- "${D[@]}" --output both

# guess: a formula from a table the tool writes, its prediction recomputed by --check
# (library generic) on a row it did not see; the refuted conjecture of docs/guess.md.
"$S" table --family attention --tokens 2 --dim 1..3 --heads 1 --depth 1..3 --format csv >"$T/g.csv" 2>/dev/null || fail "guess table"
SEPRANK_PROGRESS_DELAY=0 "$S" guess "$T/g.csv" --vars dim,depth --predict dim=2,depth=4 --check --format json >"$T/g.json" 2>"$T/g.err" || fail "guess run"
grep -q '^guess checks 0/1 (0%) generic at dim=2,depth=4' "$T/g.err" || fail "guess --check reported no progress: $(cat "$T/g.err")"
/usr/bin/python3 - "$T/g.json" <<'PY' || fail "guess: $(cat "$T/g.json")"
import json, sys
g = json.load(open(sys.argv[1]))
assert g["found"] and g["kind"] == "conjecture" and g["form"] == "binomial", g
assert g["fitted"] + g["confirmed"] == g["rows"] == 9 and g["confirmed"] >= 2, g
p = g["predictions"][0]
assert p["check"]["verdict"] == "agree" and p["check"]["generic"] == p["value"], p
assert 0 <= p["check"]["failure_bound"] < 1 and (p["check"]["failure_bound"] == 0) == (p["check"]["label"] == "certified"), p
PY
# a point whose network is not built (dx past the maximum) is predicted and marked unchecked; the others are checked
"$S" guess "$T/g.csv" --vars dim,depth --predict dim=9223372036854775807,depth=1 --predict dim=2,depth=1 --check >"$T/gu.txt" 2>"$T/gu.err" || fail "guess --check at an unbuilt point: $(cat "$T/gu.err")"
grep -q "^predict     dim=9223372036854775807,depth=1: [0-9]* \[unchecked: dim dx = 9223372036854775807 exceeds the supported maximum" "$T/gu.txt" &&
  grep -q "^predict     dim=2,depth=1: [0-9]* \[generic [0-9]*, .*: agree\]" "$T/gu.txt" || fail "guess --check at an unbuilt point: $(cat "$T/gu.txt")"
# A row the table marks (status lower-bound) is named when guess reads it: in a note beside
# the answer, and at the end of a failed search's one line; --where status=ok leaves it out.
/usr/bin/python3 - "$T/g.csv" "$T/gm.csv" <<'PY' || fail "guess marked: making the table"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for r in rows:
    if r["dim"] == "3" and r["depth"] == "3": r["rank"], r["status"] = "555", "lower-bound"
w = csv.DictWriter(open(sys.argv[2], "w", newline=""), fieldnames=list(rows[0].keys()))
w.writeheader(); w.writerows(rows)
PY
"$S" guess "$T/gm.csv" --vars dim,depth >/dev/null 2>"$T/gm.err"; rc=$?
[[ $rc -eq 1 ]] && grep -q "^seprank: no guess: .* (1 row read is marked by the table's status column, so a value may be a bound, not the value: dim=3,depth=3 (lower-bound); --where status=ok leaves them out)$" "$T/gm.err" \
  || fail "guess on a marked row: rc $rc, $(cat "$T/gm.err")"
"$S" guess "$T/gm.csv" --vars dim,depth --max-exceptions 1 >/dev/null 2>"$T/gm.err" || fail "guess marked, --max-exceptions 1: $(cat "$T/gm.err")"
grep -q "^seprank: note: 1 row read is marked by the table's status column" "$T/gm.err" || fail "guess marked: no note: $(cat "$T/gm.err")"
"$S" guess "$T/gm.csv" --vars dim,depth --where status=ok >/dev/null 2>"$T/gm.err" || fail "guess marked, --where status=ok: $(cat "$T/gm.err")"
[[ ! -s "$T/gm.err" ]] || fail "guess --where status=ok: a note on rows it left out: $(cat "$T/gm.err")"
# --bases "" is the empty list, as the help says ("empty: none"): no exponential form is tried.
"$S" guess "$T/g.csv" --vars dim,depth --bases "" --format json >"$T/gb.json" 2>"$T/gb.err" || fail "guess --bases '': $(cat "$T/gb.err")"
/usr/bin/python3 -c 'import json,sys; g=json.load(open(sys.argv[1])); assert g["found"] and g["form"] == "binomial", g' "$T/gb.json" || fail "guess --bases '': $(cat "$T/gb.json")"
grep -v ",3,0,3," "$T/g.csv" >"$T/g12.csv"
# a check that disagrees refutes the guess: the answer in full, then exit 1 with one line
"$S" guess "$T/g12.csv" --vars dim,depth --predict dim=3,depth=3 --check >"$T/g12.txt" 2>"$T/g12.err"; rc=$?
[[ $rc -eq 1 ]] || fail "guess L=1,2 --check: rc $rc, not 1: $(cat "$T/g12.err")"
grep -q "disagree" "$T/g12.txt" && grep -q "^formula" "$T/g12.txt" || fail "guess: the L=1,2 conjecture is not refuted by generic: $(cat "$T/g12.txt")"
# (a loaded machine adds progress lines above it, after a second)
[[ $(tail -n 1 "$T/g12.err") == "seprank: the guess is refuted by --check at dim=3,depth=3: predicted 120, generic 560" &&
   $(grep -c '^seprank: ' "$T/g12.err") -eq 1 ]] ||
  fail "guess --check disagree: the stderr line: $(cat "$T/g12.err")"
"$S" guess "$T/g12.csv" --vars dim,depth --predict dim=3,depth=3 --check --format json >"$T/g12.json" 2>/dev/null; rc=$?
[[ $rc -eq 1 ]] && /usr/bin/python3 -c "import json,sys; assert json.load(open(sys.argv[1]))['predictions'][0]['check']['verdict'] == 'disagree'" "$T/g12.json" ||
  fail "guess --check --format json, disagree: rc $rc, $(cat "$T/g12.json")"
"$S" guess "$T/g.csv" --vars dim,depth --max-params 1 >/dev/null 2>"$T/g.err"; rc=$?
[[ $rc -eq 1 ]] && grep -q "no guess: no form with at most 1 free parameter fits" "$T/g.err" || fail "guess without a form: rc $rc, $(cat "$T/g.err")"
# ... a rank table of whole networks is pointed to guess --blocks; a table of other values is not
grep -q "; a rank no closed form fits may still follow a law per degree block: seprank table --blocks writes one row per block, seprank guess --blocks fits them (docs/guess_blocks.md)$" "$T/g.err" ||
  fail "guess without a form, the --blocks hint: $(cat "$T/g.err")"
printf 'n,v\n1,3\n2,1\n3,4\n4,1\n5,5\n6,9\n' >"$T/gv.csv"
"$S" guess "$T/gv.csv" --vars n --value v --max-params 1 >/dev/null 2>"$T/gv.err"; rc=$?
[[ $rc -eq 1 ]] && grep -q "no guess" "$T/gv.err" && ! grep -q "guess --blocks" "$T/gv.err" || fail "guess of a value column: no --blocks hint: rc $rc, $(cat "$T/gv.err")"
# ... one line only, even with an option noted as ignored (issue 36).
"$S" guess "$T/g.csv" --vars dim,depth --max-params 1 --check-seconds 5 >/dev/null 2>"$T/g.err"; rc=$?
[[ $rc -eq 1 && $(wc -l <"$T/g.err") -eq 1 ]] || fail "guess without a form, an ignored option: rc $rc, not one line: $(cat "$T/g.err")"
# guess reads the JSON-lines table that `table --format json --out` writes, sweep line
# and all (issue 38), and finds the same formula as from the CSV.
"$S" table --family attention --tokens 2 --dim 1..3 --heads 1 --depth 1..3 --format json --out "$T/g.jsonl" >/dev/null 2>&1 || fail "guess: table --out jsonl"
head -n 1 "$T/g.jsonl" | grep -q '"seprank_table_sweep"' || fail "guess: the jsonl table has no sweep line: $(head -n 1 "$T/g.jsonl")"
"$S" guess "$T/g.jsonl" --value rank --vars dim,depth --format json >"$T/gj.json" || fail "guess on the jsonl table"
/usr/bin/python3 - "$T/gj.json" <<'PY' || fail "guess on jsonl: $(cat "$T/gj.json")"
import json, sys
g = json.load(open(sys.argv[1]))
assert g["found"] and g["rows"] == 9 and g["formula"] == "C((3^depth - 1)/2 + dim, dim)", g
PY
# table sweeps over stacks (issue 37): --layers 'SPEC;SPEC', the layers column in every
# format (and in none without --layers), resume by SPEC, guess --where layers=SPEC on CSV
# and JSON lines.
"$S" table --layers 'attention,mlp:power=2;mlp:power=2,attention' --tokens 2 --dim 1..4 --format csv --out "$T/st.csv" >"$T/st_out.csv" 2>"$T/st.err" || fail "table --layers: $(cat "$T/st.err")"
/usr/bin/python3 - "$T/st.csv" "$T/st_out.csv" <<'PY' || fail "table --layers csv: $(cat "$T/st_out.csv")"
import csv, sys
lines = open(sys.argv[1]).read().splitlines()
assert lines[0].startswith("# seprank table sweep: ") and lines[0].endswith(" layers=1"), lines[0]
rows = list(csv.DictReader(lines[1:]))
assert lines[1].split(",")[:3] == ["family", "layers", "tokens"], lines[1]
assert [r["layers"] for r in rows] == ["attention,mlp"] * 4 + ["mlp,attention"] * 4, rows
assert all(r["family"] == "stack" and r["depth"] == "2" and r["degree"] == "6" for r in rows), rows
# the per-token-first stack stays at dx + 1 (docs/theory.md 3.6)
assert [int(r["rank"]) for r in rows[4:]] == [2, 3, 4, 5], rows
out = list(csv.DictReader(open(sys.argv[2])))
strip = lambda rs: [{k: v for k, v in r.items() if k not in ("seconds", "peak_mib")} for r in rs]
assert strip(out) == strip(rows)
PY
"$S" table --layers attention --tokens 2 --dim 1 --quiet 2>/dev/null | head -n 1 | grep -q '^ *family *layers *tokens' || fail "table --layers: no layers column in text"
"$S" table --layers attention --tokens 2 --dim 1 --format markdown --quiet 2>/dev/null | head -n 1 | grep -q '^| family | layers | tokens |' || fail "table --layers: no layers column in markdown"
"$S" table --family attention,stack --layers attention --tokens 2 --dim 1 --format json --quiet >"$T/st.json" 2>/dev/null || fail "table --layers json"
/usr/bin/python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert [(x["family"], x["layers"]) for x in r] == [("attention", ""), ("stack", "attention")] and r[0]["rank"] == r[1]["rank"], r' "$T/st.json" || fail "table --layers json: $(cat "$T/st.json")"
"$S" table --tokens 2 --dim 1 --format csv --quiet 2>/dev/null | head -n 1 | grep -q '^family,tokens,' || fail "table without --layers grew a column"
# expand at a special draw says that f is below its generic degree (a new user's confusion: terms 0)
"$S" expand --tokens 2 --dim 1 --depth 2 2>"$T/ex0.err" >/dev/null || fail "expand at a special draw"
grep -qF "note: f is 0 at the weights drawn with --seed 1" "$T/ex0.err" || fail "expand at a special draw said nothing: $(cat "$T/ex0.err")"
"$S" expand --tokens 2 --dim 1 --depth 2 --seed 2 2>"$T/ex0.err" >/dev/null && [ ! -s "$T/ex0.err" ] || fail "expand at a generic draw noted: $(cat "$T/ex0.err")"
# a stack table fitted in depth (which counts layers): no form, and the hint names --vars copies
"$S" table --layers 'attention,mlp' --tokens 2 --dim 1 --depth 1..5 --format csv --quiet >"$T/sd.csv" 2>/dev/null || fail "table of stack depths"
"$S" guess "$T/sd.csv" --vars depth >/dev/null 2>"$T/sd.err" && fail "guess --vars depth on stack copies found a form"
grep -qF "these rows are copies of a stack's SPEC, and depth counts its layers: a law in the copies is fitted with --vars copies" "$T/sd.err" ||
  fail "guess --vars depth on a stack table: no copies hint: $(cat "$T/sd.err")"
"$S" guess "$T/sd.csv" --vars copies >/dev/null 2>&1 || fail "guess --vars copies on the same stack table"
# resume: a longer SPEC list reuses the rows of the SPECs already done
"$S" table --layers 'attention,mlp:power=2;mlp:power=2,attention;mlp:power=3' --tokens 2 --dim 1..4 --format csv --out "$T/st.csv" --resume >/dev/null 2>"$T/st.err" || fail "table --layers --resume: $(cat "$T/st.err")"
grep -q "4 rows computed, 8 resumed" "$T/st.err" || fail "table --layers --resume: $(cat "$T/st.err")"
"$S" table --tokens 2 --dim 1..4 --format csv --out "$T/st.csv" --resume >/dev/null 2>"$T/st.err" && fail "a sweep without --layers resumed a file with the layers column"
grep -q "different sweep" "$T/st.err" || fail "table --resume without --layers: $(cat "$T/st.err")"
"$S" guess "$T/st.csv" --vars dim --where layers=mlp:power=2,attention --format json >"$T/sg.json" || fail "guess --where layers=SPEC"
/usr/bin/python3 -c 'import json,sys; g=json.load(open(sys.argv[1])); assert g["found"] and g["rows"] == 4 and g["formula"] == "C(1 + dim, dim)", g' "$T/sg.json" || fail "guess --where layers: $(cat "$T/sg.json")"
"$S" table --layers 'mlp:power=2,attention' --tokens 2 --dim 1..4 --format json --out "$T/st.jsonl" >/dev/null 2>&1 || fail "table --layers --out jsonl"
"$S" guess "$T/st.jsonl" --vars dim --where layers=mlp,attention,tokens=2 --predict dim=6 --check --format json >"$T/sg.json" || fail "guess --where layers on json lines"
/usr/bin/python3 -c 'import json,sys; g=json.load(open(sys.argv[1])); assert g["found"] and g["rows"] == 4 and g["predictions"][0]["value"] == 7 and g["predictions"][0]["check"]["verdict"] == "agree", g' "$T/sg.json" || fail "guess --check on a stack: $(cat "$T/sg.json")"
# A singular count is singular: 1 free parameter (issue 38).
"$S" guess "$T/g.csv" --vars dim --where depth=1 >"$T/g1.txt" || fail "guess depth=1"
grep -q "(binomial, 1 free parameter, fitted on 1 row, confirmed on 2 held-out rows)" "$T/g1.txt" || fail "guess: singular counts: $(cat "$T/g1.txt")"

# progress (docs/progress.md): on stderr, as lines when stderr is not a terminal, for a
# certificate and for a table; --quiet silences it; stdout is the answer alone.
# SEPRANK_PROGRESS_DELAY=0 lifts the one-second quiet start so that a short run shows it.
SEPRANK_PROGRESS_DELAY=0 "$S" rank --tokens 2 --dim 2 --depth 3 --certificate hadamard --format json >"$T/p.json" 2>"$T/p.err" || fail "progress: rank"
grep -Eq '^certificate primes [0-9]+/[0-9]+ \([0-9]+%\), [0-9]+ s' "$T/p.err" || fail "progress: no certificate line on stderr: $(cat "$T/p.err")"
grep -q $'\r' "$T/p.err" && fail "progress: a bar (\\r) although stderr is a file"
/usr/bin/python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); assert a["rank"] == 105 and a["certified"], a' "$T/p.json" || fail "progress: stdout is not the answer alone"
SEPRANK_PROGRESS_DELAY=0 "$S" rank --tokens 2 --dim 2 --depth 3 --certificate hadamard --quiet >/dev/null 2>"$T/p.err" || fail "progress: rank --quiet"
[[ -s "$T/p.err" ]] && fail "progress: --quiet still wrote: $(cat "$T/p.err")"
SEPRANK_PROGRESS_DELAY=0 "$S" table --tokens 2 --dim 1 --depth 1..2 --format csv >/dev/null 2>"$T/p.err" || fail "progress: table"
grep -q '^rows 2/2 (100%)' "$T/p.err" || fail "progress: no rows line from table: $(cat "$T/p.err")"
grep -Eq 'about [0-9]+ s left' "$T/p.err" && fail "progress: table rows (of growing cost) guessed a time left: $(cat "$T/p.err")"
SEPRANK_PROGRESS_DELAY=0 "$S" spectrum --tokens 2 --dim 2 >/dev/null 2>"$T/p.err" || fail "progress: spectrum"
grep -q '^spectrum step 1 of 4: expanding f, 0 s' "$T/p.err" || fail "progress: no step lines from spectrum: $(cat "$T/p.err")"
SEPRANK_PROGRESS_DELAY=0 "$S" spectrum --experiment fd --trials 2 >/dev/null 2>"$T/p.err" || fail "progress: spectrum --experiment"
grep -q '^experiment draws 20/20 (100%) done' "$T/p.err" || fail "progress: no draws line from spectrum --experiment: $(cat "$T/p.err")"
grep -q '^spectrum step' "$T/p.err" && fail "progress: the experiment's spectra reported their steps"
SEPRANK_PROGRESS_DELAY=0 "$S" generic --tokens 2 --dim 2 --depth 2 --trials 3 >/dev/null 2>"$T/p.err" || fail "progress: generic"
grep -q '^trials 0/3 (0%)' "$T/p.err" || fail "progress: no trials line from generic: $(cat "$T/p.err")"
SEPRANK_PROGRESS_DELAY=0 "$S" variety --layers conv,conv --tokens 3 --dim 1 --trials 2 >/dev/null 2>"$T/p.err" || fail "progress: variety"
grep -q '^variety trials 2/2 (100%)' "$T/p.err" || fail "progress: no trials line from variety: $(cat "$T/p.err")"
SEPRANK_PROGRESS_DELAY=0 "$S" --quiet table --tokens 2 --dim 1 --depth 1..2 --format csv >/dev/null 2>"$T/p.err" || fail "progress: table --quiet"
grep -q '^rows' "$T/p.err" && fail "progress: table --quiet still reports rows: $(cat "$T/p.err")"

# stacks (--layers, docs/network.md "Stacks"): a one-kind stack is its family (same
# weights, same polynomial); a weights file carries each layer's kind and reads back.
"$S" expand --tokens 2 --dim 2 --depth 2 --seed 3 --print --format json >"$T/fam.json" || fail "attention family run"
"$S" expand --tokens 2 --dim 2 --layers attention --depth 2 --seed 3 --print --save-weights "$T/st.json" --format json >"$T/st.out" || fail "stack run"
"$S" expand --weights "$T/st.json" --layers attention --depth 2 --print --format json >"$T/st2.out" || fail "stack weights run"
/usr/bin/python3 - "$T/fam.json" "$T/st.out" "$T/st2.out" "$T/st.json" <<'PY' || fail "one-kind stack differs from its family"
import json, sys
a, b, c, w = (json.load(open(p)) for p in sys.argv[1:])
assert a["polynomial"] == b["polynomial"] == c["polynomial"] and a["terms"] == b["terms"] > 0
assert w["family"] == "stack" and [l["kind"] for l in w["layers"]] == ["attention", "attention"], w
PY
"$S" generic --tokens 2 --dim 3 --layers 'attention,mlp:power=2' --depth 2 --format json >"$T/sg.json" || fail "stack generic run"
/usr/bin/python3 - "$T/sg.json" <<'PY' || fail "stack generic: $(cat "$T/sg.json")"
import json, sys
g = json.load(open(sys.argv[1]))
assert str(g["degree"]) == "36" and g["family"] == "stack" and g["rank"] > 0, g
PY
# power networks: the Alexander-Hirschowitz exception (5, 4, 14) is reported defective
"$S" dimension --family power --dim 5 --widths 14,1 --power 4 --output all --format json >"$T/pw.json" || fail "power dimension run"
/usr/bin/python3 - "$T/pw.json" <<'PY' || fail "power dimension: $(cat "$T/pw.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["rank"] == 69 and d["expected"] == 70 and d["defect"] is True, d
PY

# --device (docs/gpu.md). A plugin that is not there: every device command stops before any
# work with one line naming why, exit 2; auto falls back to the CPU and says so.
export SEPRANK_CUDA_PLUGIN="$T/no-such-plugin.so"
expect_rc 2 "Device cuda: the CUDA plugin does not load" -- generic --tokens 2 --dim 2 --depth 2 --device cuda
expect_rc 2 "Device cuda:" -- rank --tokens 2 --dim 2 --depth 2 --method evaluation --device cuda
expect_rc 2 "Device cuda:" -- rank --tokens 2 --dim 2 --depth 2 --field p --device cuda
expect_rc 2 "Device cuda:" -- dimension --tokens 2 --dim 2 --depth 1 --device cuda
expect_rc 2 "Device cuda:" -- table --tokens 2 --dim 1 --depth 1 --device cuda --out "$T/dev.csv" --format csv
[[ ! -e "$T/dev.csv" ]] || fail "table --device cuda without a GPU wrote $T/dev.csv"
expect_rc 2 "--device: 'gpu' is not one of auto, cpu, cuda" -- generic --tokens 2 --dim 2 --device gpu
"$S" generic --tokens 2 --dim 2 --depth 2 --device auto --format json >"$T/auto.json" 2>"$T/auto.err" || fail "generic --device auto: $(cat "$T/auto.err")"
"$S" generic --tokens 2 --dim 2 --depth 2 --format json >"$T/cpu.json" || fail "generic on the CPU"
/usr/bin/python3 - "$T/auto.json" "$T/cpu.json" <<'PY' || fail "generic --device auto without a plugin: $(cat "$T/auto.json")"
import json, sys
a, c = (json.load(open(p)) for p in sys.argv[1:])
assert a["device"] == "cpu" and c["device"] == "cpu", (a["device"], c["device"])
assert "device auto: computed on the CPU, the CUDA plugin does not load" in a["note"], a["note"]
assert a["rank"] == c["rank"] and a["prime"] == c["prime"], (a, c)
PY
# A rank over Q takes --device (its Hadamard reference ranks there): cuda without a GPU is
# refused before any work, auto falls back and says so
expect_rc 2 "Device cuda:" -- rank --tokens 2 --dim 2 --device cuda
expect_rc 2 "Device cuda:" -- rank --tokens 2 --dim 2 --certificate hadamard --device cuda
"$S" rank --tokens 2 --dim 2 --device auto --format json >"$T/q.json" 2>"$T/q.err" || fail "rank --device auto over Q"
grep -qF "device auto: computed on the CPU" "$T/q.json" || fail "rank over Q did not note the fallback: $(cat "$T/q.json")"
if grep -qF -- "--device auto is ignored" "$T/q.err"; then fail "rank over Q called --device ignored"; fi
# --all-balanced's table has no note column: the fallback is said once on stderr
"$S" rank --tokens 4 --dim 1 --all-balanced --device auto --format csv >"$T/ab.csv" 2>"$T/ab.err" || fail "rank --all-balanced --device auto"
grep -qF "device auto: computed on the CPU" "$T/ab.err" || fail "rank --all-balanced --device auto said nothing of the fallback: $(cat "$T/ab.err")"
head -1 "$T/ab.csv" | grep -q device && fail "rank --all-balanced on the CPU has a device column: $(head -1 "$T/ab.csv")"
unset SEPRANK_CUDA_PLUGIN
# The plugin this build made, on a machine without a GPU (CI): one line, exit 2.
if [[ ! -e /dev/nvidia0 ]]; then
  expect_rc 2 "Device cuda:" -- generic --tokens 2 --dim 2 --depth 2 --device cuda
  # no driver at all: said as such, not as the runtime's "driver version is insufficient"
  if ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
    expect_rc 2 "Device cuda: no NVIDIA GPU driver was found" -- generic --tokens 2 --dim 2 --depth 2 --device cuda
  fi
fi

# Missing values: null in JSON, an empty cell in CSV, "-" in text (degree); cells with commas
# quoted in every CSV (rank --all-balanced's partitions); spectrum's degree a number
"$S" degree --tokens 2 --dim 2 --depth 5 --format json >"$T/dn.json" || fail "degree json"
"$S" degree --tokens 2 --dim 2 --depth 5 --format csv >"$T/dn.csv" || fail "degree csv"
"$S" degree --tokens 2 --dim 2 --depth 5 >"$T/dn.txt" || fail "degree text"
"$S" degree --family hadamard --tokens 2 --dim 2 --budget 1000 --degrees 1,30 --format json >"$T/db.json" || fail "degree budget json"
"$S" rank --all-balanced --tokens 4 --depth 2 --format csv >"$T/ab.csv" || fail "rank --all-balanced csv"
"$S" spectrum --tokens 2 --dim 2 --depth 2 --format json >"$T/sp.json" || fail "spectrum json"
/usr/bin/python3 - "$T" <<'PY' || fail "missing values, CSV quoting or JSON types"
import csv, json, sys
t = sys.argv[1]
d = json.load(open(f"{t}/dn.json"))
assert d[4]["terms"] is None and d[3]["terms"] == 47642, d  # depth 5: not expanded
rows = list(csv.DictReader(open(f"{t}/dn.csv")))
assert rows[4]["terms"] == "" and rows[3]["terms"] == "47642", rows
text = open(f"{t}/dn.txt").read().splitlines()
assert text[-1].split()[3] == "-", text[-1]
b = json.load(open(f"{t}/db.json"))
assert b[0]["measured"] is None and b[0]["dimension"] is None and b[1]["dimension"] == 480, b
assert all(v != "-" for r in b for v in r.values()), b
ab = list(csv.reader(open(f"{t}/ab.csv")))
assert all(len(r) == len(ab[0]) for r in ab) and [r[0] for r in ab[1:]] == ["1,2|3,4", "1,3|2,4", "1,4|2,3"], ab
sp = json.load(open(f"{t}/sp.json"))
assert sp["degree"] == 9 and isinstance(sp["degree"], int), sp["degree"]
PY

# Block tables (docs/table_blocks.md): one row per block, the same blocks in every format,
# resumed by configuration from a CSV or JSON-lines file, plotted as a profile.
"$S" table --blocks --tokens 2,4 --dim 1,2 --depth 2 --format csv >"$T/bk.csv" 2>/dev/null || fail "table --blocks csv"
"$S" table --blocks --tokens 2,4 --dim 1,2 --depth 2 --format json >"$T/bk.json" 2>/dev/null || fail "table --blocks json"
"$S" table --tokens 2,4 --dim 1,2 --depth 2 --format csv >"$T/bt.csv" 2>/dev/null || fail "table without --blocks"
"$S" table --blocks --tokens 2,4 --dim 1,2 --depth 2 --out "$T/bk_out.csv" >/dev/null 2>&1 || fail "table --blocks --out"
/usr/bin/python3 - "$T" <<'PY'  # a cut file: the first configuration's block rows and a torn one; the rest recomputed
import csv, sys
t = sys.argv[1]
lines = open(f"{t}/bk_out.csv").read().splitlines(True)
first = next(csv.DictReader(lines[1:]))
open(f"{t}/bk_cut.csv", "w").write("".join(lines[:2 + int(first["blocks"])]) + lines[2 + int(first["blocks"])][:20])
PY
"$S" table --blocks --tokens 2,4 --dim 1,2 --depth 2 --format csv --out "$T/bk_cut.csv" --resume >"$T/bk_res.csv" 2>"$T/bk_res.err" || fail "table --blocks --resume"
"$S" table --blocks --tokens 2,4 --dim 1,2 --depth 2 --format json --out "$T/bk_out.jsonl" >/dev/null 2>&1 || fail "table --blocks --out jsonl"
"$S" table --blocks --tokens 2,4 --dim 1,2 --depth 2 --format csv --out "$T/bk_out.jsonl" --resume >/dev/null 2>&1 &&
  fail "a JSON-lines block file resumed as CSV"
/usr/bin/python3 - "$T" <<'PY' || fail "table --blocks rows"
import csv, json, sys
t = sys.argv[1]
blocks = list(csv.DictReader(open(f"{t}/bk.csv")))
plain = list(csv.DictReader(open(f"{t}/bt.csv")))
js = json.load(open(f"{t}/bk.json"))
assert [r["rank"] for r in blocks] == [str(r["rank"]) for r in js], (blocks, js)
for p in plain:  # each configuration's blocks sum to its rank, and each is within its caps
    mine = [b for b in blocks if (b["tokens"], b["dim"]) == (p["tokens"], p["dim"])]
    assert mine and all(int(b["blocks"]) == len(mine) for b in mine), mine
    assert sum(int(b["rank"]) for b in mine) == int(p["rank"]) == int(mine[0]["total"]), (p, mine)
    assert all(int(b["rank"]) <= min(int(b["cap_a"]), int(b["cap_b"])) for b in mine), mine
    assert all((b["at_cap"] == "true") == (int(b["rank"]) == min(int(b["cap_a"]), int(b["cap_b"]))) for b in mine), mine
    assert all(b["status"] == "ok" for b in mine), mine
res = list(csv.DictReader(open(f"{t}/bk_res.csv")))
key = lambda r: [(r["tokens"], r["dim"], r["block"], r["rank"], r["cap_a"], r["cap_b"], r["status"]) for r in r]
assert key(res) == key(blocks), (res, blocks)
assert "resumed" in open(f"{t}/bk_res.err").read()
lines = [json.loads(l) for l in open(f"{t}/bk_out.jsonl")][1:]
assert [l["rank"] for l in lines] == [r["rank"] for r in js], lines
PY
grep -q "3 rows computed, 1 resumed" "$T/bk_res.err" || fail "table --blocks --resume: $(cat "$T/bk_res.err")"
expect_rc 2 "method flattening cannot give them" -- table --blocks --tokens 2 --method flattening
expect_rc 2 "variant plain cannot give them" -- table --blocks --tokens 2 --variant plain
"$S" table --blocks --tokens 2 --dim 1 --depth 2 --residual --format csv 2>/dev/null | grep -q "skipped.*not homogeneous" ||
  fail "table --blocks on a residual network: no skipped row saying why"
# A side limit that stops a configuration: its blocks below their cap are lower bounds.
"$S" table --blocks --tokens 4 --dim 2 --depth 2 --max-side 16 --format csv >"$T/bk_lb.csv" 2>/dev/null || fail "table --blocks --max-side 16"
grep -q ",lower-bound," "$T/bk_lb.csv" || fail "table --blocks --max-side 16 has no lower-bound block"
# --resume with a larger --max-side computes the stopped rows again (and keeps the rest).
"$S" table --tokens 2,4 --dim 2 --depth 2 --method evaluation --max-side 16 --format csv --out "$T/ms.csv" >/dev/null 2>&1 || fail "table --max-side 16 --out"
"$S" table --tokens 2,4 --dim 2 --depth 2 --method evaluation --max-side 4096 --format csv --out "$T/ms.csv" --resume >"$T/ms2.csv" 2>"$T/ms.err" || fail "table --resume with another --max-side"
grep -q "computed again at 4096" "$T/ms.err" || fail "resume at a larger max side: no note ($(cat "$T/ms.err"))"
grep -q "lower-bound" "$T/ms2.csv" && fail "resume at a larger max side still shows a lower bound"
grep -q "block hints" "$T/ms.err" && fail "a table without blocks has no block ranks to hint: $(cat "$T/ms.err")"
# a block table: the stopped rows' block ranks become their block hints, and the rows equal
# a fresh run at the larger side
BK=(table --blocks --tokens 3..4 --dim 2 --depth 2 --format csv)
"$S" "${BK[@]}" --max-side 16 --out "$T/bkh.csv" >/dev/null 2>&1 || fail "table --blocks --max-side 16 --out"
"$S" "${BK[@]}" --max-side 4096 --out "$T/bkh.csv" --resume >"$T/bkh2.csv" 2>"$T/bkh.err" || fail "table --blocks --resume at a larger side"
grep -q "computed again at 4096, the new rows appended (2 of them with their block ranks as block hints" "$T/bkh.err" ||
  fail "resume of a block table: no note on the block hints ($(cat "$T/bkh.err"))"
"$S" "${BK[@]}" --max-side 4096 >"$T/bkh3.csv" 2>/dev/null || fail "table --blocks --max-side 4096"
# a block table the tool wrote resumes whatever its cells: caps saturated at LONG_MAX/4 (19 digits)
SAT=(table --blocks --family hadamard --block-degree 2 --depth 8 --tokens 2 --dim 16 --width 1 --max-side 4 --format csv --out "$T/sat.csv")
"$S" "${SAT[@]}" >/dev/null 2>&1 || fail "table --blocks with saturated caps"
grep -q ",2305843009213693951," "$T/sat.csv" || fail "no saturated cap in $T/sat.csv"
"$S" "${SAT[@]}" --resume >/dev/null 2>"$T/sat.err" && grep -q "0 rows computed, 1 resumed" "$T/sat.err" ||
  fail "a block table with saturated caps does not resume: $(cat "$T/sat.err")"
# rows edited by hand: a degree that is not the network's, a total that is not the sum of the
# ranks: refused in one line naming the file, the file left as it was; then the block store
# folder, with a stray store in it, is removed once every row is out
"$S" "${BK[@]}" --max-side 4096 --out "$T/bk_fresh.csv" >/dev/null 2>&1 || fail "table --blocks --out at 4096"
/usr/bin/python3 - "$T/bk_fresh.csv" "$T/bk_deg.csv" "$T/bk_tot.csv" <<'PY'
import sys
src, deg, tot = sys.argv[1:]
lines = open(src).read().splitlines(True)
open(deg, "w").write("".join(l.replace(",9,1,5,", ",20,1,5,", 1) if i == 2 else l for i, l in enumerate(lines)))
def total(l):
    cells = l.split(",")
    return l if l.startswith("#") or l.startswith("family") or cells[1] != "3" else l.replace(",17,", ",18,")
open(tot, "w").write("".join(total(l) for l in lines))
PY
for f in bk_deg bk_tot; do
  cp "$T/$f.csv" "$T/$f.bak"
  "$S" "${BK[@]}" --max-side 4096 --out "$T/$f.csv" --resume >/dev/null 2>"$T/$f.err"
  [[ $? -eq 2 && $(wc -l <"$T/$f.err") -eq 1 ]] && grep -q "$T/$f.csv" "$T/$f.err" || fail "resume of $f: $(cat "$T/$f.err")"
  cmp -s "$T/$f.csv" "$T/$f.bak" || fail "resume of $f changed the file"
done
grep -q "degree 20, where the network's is 9" "$T/bk_deg.err" || fail "edited degree: $(cat "$T/bk_deg.err")"
grep -q "total 18 is not the sum 17" "$T/bk_tot.err" || fail "edited total: $(cat "$T/bk_tot.err")"
mkdir -p "$T/bkh.csv.blocks/stray" && touch "$T/bkh.csv.blocks/stray/unit"
"$S" "${BK[@]}" --max-side 4096 --out "$T/bkh.csv" --resume --block-store >/dev/null 2>&1 || fail "resume --block-store"
[[ ! -e "$T/bkh.csv.blocks" ]] || fail "the block store folder of a finished table was left: $(ls -R "$T/bkh.csv.blocks")"
/usr/bin/python3 - "$T/bkh2.csv" "$T/bkh3.csv" <<'PY' || fail "resumed block rows with hints differ from a fresh run"
import csv, sys
keep = ("tokens", "block", "rank", "total", "status")  # the failure bound counts the minors ranked
a, b = ([tuple(r[k] for k in keep) for r in csv.DictReader(open(f))] for f in sys.argv[1:])
assert a == b and len(a) == 10 and all(r[4] == "ok" for r in a), (a, b)
PY
if command -v gnuplot >/dev/null; then
  "$S" plot "$T/bk_lb.csv" --blocks -o "$T/bk.svg" >/dev/null || fail "plot --blocks"
  grep -q "lower bound (not converged)" "$T/bk.svg" || fail "plot --blocks did not mark the lower-bound blocks"
  # a UTF-8 byte-order mark before the first line (a spreadsheet's): read as guess reads it
  printf '\xef\xbb\xbf' | cat - "$T/bk_lb.csv" >"$T/bk_bom.csv"
  "$S" plot "$T/bk_bom.csv" --blocks -o "$T/bk_bom.svg" >/dev/null || fail "plot --blocks of a table starting with a byte-order mark"
  expect_rc 2 "--x does not apply" -- plot "$T/bk.csv" --blocks --x depth -o "$T/x.svg"
  expect_rc 2 "has no column 'block'" -- plot "$T/bt.csv" --blocks -o "$T/x.svg"
  [[ ! -e "$T/x.svg" ]] || fail "failed plot --blocks left a file"
fi

# table --fields: only those columns, in that order, in every format; --out keeps them all
"$S" table --tokens 3 --dim 1 --depth 1 --format json >"$T/fields_all.json" 2>/dev/null || fail "table for --fields"
"$S" table --tokens 3 --dim 1 --depth 1 --format csv --fields partition,rank,degree >"$T/fields.csv" 2>/dev/null || fail "table --fields"
"$S" table --tokens 3 --dim 1 --depth 1 --format json --fields rank,partition --out "$T/fields_out.jsonl" 2>/dev/null >"$T/fields.json" || fail "table --fields json"
/usr/bin/python3 - "$T" <<'PY' || fail "table --fields rows"
import csv, json, sys
t = sys.argv[1]
full = json.load(open(f"{t}/fields_all.json"))
rows = list(csv.reader(open(f"{t}/fields.csv", newline="")))
assert rows == [["partition", "rank", "degree"]] + [[r["partition"], str(r["rank"]), str(r["degree"])] for r in full], rows
assert rows[1][0] == "1,2|3"  # a cell with a comma, one column all the same
j = json.load(open(f"{t}/fields.json"))
assert j == [{"rank": r["rank"], "partition": r["partition"]} for r in full] and list(j[0]) == ["rank", "partition"], j
o = json.loads(open(f"{t}/fields_out.jsonl").readlines()[-1])  # --out: every column
assert set(o) >= set(full[0]) - {"seconds", "peak_mib"} and o["rank"] == full[0]["rank"], o
PY
"$S" table --tokens 3 --dim 1 --depth 1 --format markdown --fields rank 2>/dev/null | head -1 | grep -qx "| rank |" || fail "table --fields markdown"
"$S" table --tokens 3 --dim 1 --depth 1 --fields depth,rank 2>/dev/null | head -1 | grep -qE "^ *depth +rank$" || fail "table --fields text"
expect_rc 2 "--fields: 'dimension' is no column of this table" -- table --tokens 3 --dim 1 --depth 1 --fields rank,dimension
expect_rc 2 "--fields: 'rank' named twice" -- table --tokens 3 --dim 1 --depth 1 --fields rank,rank
"$S" table --tokens 3 --dim 1 --depth 1 --dimension --fields rank,dimension >/dev/null 2>&1 || fail "table --fields with a column --dimension adds"

# guess --where: repeated as one list (as plot's); a filter no row matches is named
"$S" guess "$(dirname "$0")/../data/attention_small.csv" --vars dim,depth --where tokens=2,heads=1 --format json >"$T/gw1.json" 2>/dev/null || fail "guess --where a,b"
"$S" guess "$(dirname "$0")/../data/attention_small.csv" --where tokens=2 --vars dim,depth --where heads=1 --format json >"$T/gw2.json" 2>/dev/null || fail "guess --where twice"
/usr/bin/python3 -c 'import json, sys; a, b = (json.load(open(f)) for f in sys.argv[1:]); [x.pop("seconds", None) for x in (a, b)]; assert a == b and a["formula"], (a, b)' "$T/gw1.json" "$T/gw2.json" ||
  fail "guess --where tokens=2,heads=1 differs from the option given twice"
expect_rc 2 "guess: no row of the table" -- guess "$(dirname "$0")/../data/attention_small.csv" --vars dim,depth --where tokens=99
grep -q "matches --where tokens=99 (the table's values: tokens: 2" "$T/err" || fail "guess --where matching nothing: $(cat "$T/err")"

# guess --blocks (docs/guess_blocks.md): the N = 4 law from the stored block table, its
# prediction against the frontier rows, JSON and text the same law, refusals.
D="$(dirname "$0")/../data"
# the frontier rows miss the law at one block: the answer in full, then exit 1 naming where
"$S" guess "$D/blocks_attention_n4.csv" --blocks --vars dim,depth --predict dim=4,depth=3 --against "$D/blocks_attention_n4_frontier.csv" \
  --format json >"$T/gb.json" 2>"$T/gb.err"; rc=$?
[[ $rc -eq 1 ]] && [[ $(grep "^seprank: " "$T/gb.err" | grep -v "note:") == "seprank: the law is refuted by --against $D/blocks_attention_n4_frontier.csv dim=4,depth=3 (1 block differs, unless a generic rank below the law is low: probability <= 8.77e-06)" ]] ||
  fail "guess --blocks --against with an exception: rc $rc, $(cat "$T/gb.err")"
"$S" guess "$D/blocks_attention_n4.csv" --blocks --vars dim,depth >"$T/gb.txt" 2>/dev/null || fail "guess --blocks text"
# a caps-only law with a block below its cap: the bound line says the exception falls short
# (it said every block reaches the cap next to the exception)
"$S" table --blocks --tokens 3 --dim 1..2 --depth 1..2 --format csv >"$T/gbcap.csv" 2>/dev/null || fail "table --blocks for a caps law"
"$S" guess "$T/gbcap.csv" --blocks --vars dim,depth >"$T/gbcap.txt" 2>/dev/null || fail "guess --blocks, caps law"
grep -q "^bound .*reaches it but the exception below, which falls short of it$" "$T/gbcap.txt" && grep -q "^exceptions  1 (0 fit, 1 held out)$" "$T/gbcap.txt" ||
  fail "guess --blocks caps law with an exception: $(cat "$T/gbcap.txt")"
/usr/bin/python3 - "$T" <<'PY' || fail "guess --blocks answers"
import json, sys
t = sys.argv[1]
j = json.load(open(f"{t}/gb.json"))
assert j["found"] and j["kind"] == "conjecture" and j["held_out"] == "dim=3,depth=3" and j["confirmed"] == 14, j
assert j["law"] in open(f"{t}/gb.txt").read()
p = j["predictions"][0]
assert p["total"] == 20940 and sum(b["predicted"] for b in p["blocks"]) == 20940 and len(p["blocks"]) == 14, p
assert [a["configuration"] for a in j["against"]] == ["dim=4,depth=3"], j["against"]  # the H = 2 rows: another configuration
assert any("14 block rows of another configuration" in n and "heads=2" in n for n in j["notes"]), j["notes"]
h1 = j["against"][0]
assert h1["computed_total"] == 20936 and h1["law_with_exceptions"] == 20936 and h1["agree"] == 13, h1
assert [(e["block"], e["rank"], e["law"]) for e in h1["exceptions"]] == [(13, 7256, 7260)], h1
assert h1["exceptions"][0]["failure_bound"] == 8.77e-06 and h1["refutation_failure_bound"] == 8.77e-06, h1  # a generic rank below the law
PY
# a table without failure bounds: a rank below the law refutes it for certain only where
# the row's label says certified (guess_blocks.hpp BlockPoint::failure_bound)
/usr/bin/python3 - "$D/blocks_attention_n4_frontier.csv" "$T" <<'PY' || fail "frontier table without failure bounds"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
for name, keep in (("nofb", lambda r: r), ("nofb_cert", lambda r: {**r, "label": "certified"})):
    with open(f"{sys.argv[2]}/{name}.csv", "w", newline="") as f:
        w = csv.DictWriter(f, [k for k in rows[0] if k != "failure_bound"])
        w.writeheader()
        for r in rows:
            w.writerow({k: v for k, v in keep(r).items() if k != "failure_bound"})
PY
"$S" guess "$D/blocks_attention_n4.csv" --blocks --vars dim,depth --against "$T/nofb.csv" --format json >"$T/nofb.json" 2>"$T/nofb.err"; rc=$?
[[ $rc -eq 1 ]] && grep -q "^seprank: the law is refuted by --against $T/nofb.csv dim=4,depth=3 (1 block differs, unless a generic rank below the law is low: its row gives no failure bound)$" "$T/nofb.err" &&
  grep -q '"refutation_failure_bound": 1' "$T/nofb.json" || fail "--against a table without failure bounds: rc $rc, $(cat "$T/nofb.err")"
"$S" guess "$D/blocks_attention_n4.csv" --blocks --vars dim,depth --against "$T/nofb_cert.csv" >/dev/null 2>"$T/nofbc.err"; rc=$?
[[ $rc -eq 1 ]] && grep -q "^seprank: the law is refuted by --against $T/nofb_cert.csv dim=4,depth=3 (1 block differs)$" "$T/nofbc.err" ||
  fail "--against a certified table without failure bounds: rc $rc, $(cat "$T/nofbc.err")"
# a law fitted at depth 1 (every block at its cap) and checked at depth 2 is refuted there
awk -F, 'NR == 1 || $7 == 1' "$D/blocks_attention_n4.csv" >"$T/gd1.csv"
"$S" guess "$T/gd1.csv" --blocks --vars dim,depth --predict dim=1,depth=2 --check >"$T/gd1.txt" 2>"$T/gd1.err"; rc=$?
[[ $rc -eq 1 ]] && grep -q "disagree; block 3: predicted 2, generic 1" "$T/gd1.txt" &&
  [[ $(grep "^seprank: " "$T/gd1.err" | grep -v "note:") == "seprank: the law is refuted by --check at dim=1,depth=2 (3 blocks differ, unless a generic rank below the law is low: probability <= "*")" ]] ||
  fail "guess --blocks --check that disagrees: rc $rc, $(cat "$T/gd1.txt" "$T/gd1.err")"
# a variable the fit rows never vary is noted, and so is a prediction that moves it; the
# text line names the network predicted; a saturated cap under a small form is no refusal
"$S" guess "$D/blocks_attention_n4.csv" --blocks --vars dim,depth,heads --predict dim=2,depth=3,heads=2 >"$T/gbh.txt" 2>"$T/gbh.err" ||
  fail "guess --blocks with a constant variable"
grep -q "note: heads takes one value (1) in the fit rows" "$T/gbh.err" && grep -q "it moves heads to 2" "$T/gbh.err" ||
  fail "guess --blocks: a constant variable not noted: $(cat "$T/gbh.err")"
grep -q "^predict     dim=2,depth=3,heads=2 (attention N=4 dx=2 H=2 da=1 L=3 (i=1, p=1), partition 1,2|3,4): total" "$T/gbh.txt" ||
  fail "guess --blocks: the predicted network not named: $(cat "$T/gbh.txt")"
"$S" guess "$D/blocks_attention_n4.csv" --blocks --vars dim,depth --predict dim=250,depth=2 --format json >"$T/gb250.json" 2>/dev/null ||
  fail "guess --blocks refused a prediction under a saturated cap"
/usr/bin/python3 -c "import json,sys; b = json.load(open(sys.argv[1]))['predictions'][0]['blocks']; assert any(x['cap_a'] is None or x['cap_b'] is None for x in b) and all(x['predicted'] < 2**61 for x in b)" "$T/gb250.json" ||
  fail "guess --blocks: saturated caps not null"
"$S" guess "$D/blocks_attention_n4.csv" --blocks --vars dim,depth --predict dim=3,depth=4 --check >"$T/gbc.txt" 2>/dev/null ||
  fail "guess --blocks --check above the max side"
grep -q "unchecked: the predicted total is above --check-max-side 4096" "$T/gbc.txt" || fail "guess --blocks --check computed a point above its max side"
# a filter on a row's own columns (status, block) keeps each block's place k, j in its configuration:
# the first and last blocks of dim=2,depth=3 marked lower-bound, --where status=ok finds the same law
/usr/bin/python3 - "$D/blocks_attention_n4.csv" "$T/gbw.csv" <<'PY' || fail "could not write the marked block table"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for r in rows:
    if r["dim"] == "2" and r["depth"] == "3" and r["block"] in ("1", "3"):
        r["status"] = "lower-bound"
w = csv.DictWriter(open(sys.argv[2], "w"), fieldnames=list(rows[0]), lineterminator="\n")
w.writeheader()
w.writerows(rows)
PY
"$S" guess "$T/gbw.csv" --blocks --vars dim,depth 2>/dev/null | grep '^law ' >"$T/gbw1.txt" &&
  "$S" guess "$T/gbw.csv" --blocks --vars dim,depth --where status=ok 2>/dev/null | grep '^law ' >"$T/gbw2.txt" &&
  cmp -s "$T/gbw1.txt" "$T/gbw2.txt" || fail "guess --blocks --where status=ok moved the blocks' indices: $(cat "$T/gbw1.txt" "$T/gbw2.txt")"
# messages: a block table given to plain guess points to --blocks; a filter that keeps no row,
# a table whose configurations were all skipped, and a head dim guess cannot take are each said
"$S" guess "$D/blocks_attention_n4.csv" --vars dim,depth >/dev/null 2>"$T/gm1.err"
grep -q "a block table, one row per degree block: fit the blocks' law with guess --blocks" "$T/gm1.err" ||
  fail "plain guess of a block table: $(cat "$T/gm1.err")"
expect_rc 2 "no row of the table (" -- guess "$D/blocks_attention_n4.csv" --blocks --vars dim,depth --where tokens=5
"$S" table --blocks --tokens 2 --dim 1 --depth 1..2 --residual --format csv >"$T/gskip.csv" 2>/dev/null
expect_rc 2 "every configuration (2) was skipped, with no block rows; the first's reason: no degree blocks" -- guess "$T/gskip.csv" --blocks --vars depth
expect_rc 2 "predict at a point where H divides dx, or fit a table whose rows give head_dim" -- guess "$D/blocks_attention_n3_heads.csv" --blocks --vars dim,depth --predict dim=5,depth=2
"$S" guess "$D/attention_small.csv" --vars dim,depth --where tokens=2 --max-forms 2 --check-trials 3 >/dev/null 2>"$T/gm2.err"
grep -q "note: --max-forms 2 is ignored: only guess --blocks reads it" "$T/gm2.err" && grep -q "note: --check-trials 3 is ignored: only --check reads it" "$T/gm2.err" ||
  fail "guess: the ignored options' notes: $(cat "$T/gm2.err")"
# the check's JSON as plain guess writes it: verdict agree/disagree/unchecked, the reason apart
"$S" guess "$D/blocks_attention_n4.csv" --blocks --vars dim,depth --predict dim=3,depth=4 --check --format json >"$T/gbc.json" 2>/dev/null &&
  /usr/bin/python3 -c "import json,sys; c = json.load(open(sys.argv[1]))['predictions'][0]['check']; assert c == {'verdict': 'unchecked', 'reason': 'the predicted total is above --check-max-side 4096'}, c" "$T/gbc.json" ||
  fail "guess --blocks --check: the unchecked verdict's JSON"
"$S" guess "$D/blocks_attention_n4.csv" --blocks --vars dim,depth --max-forms 1 --max-exceptions 0 >/dev/null 2>"$T/gbn.err" && fail "a one-form law found"
grep -q "no guess: no law of at most 1 forms" "$T/gbn.err" || fail "guess --blocks without a law: $(cat "$T/gbn.err")"
expect_rc 2 "no column 'block'" -- guess "$T/bt.csv" --blocks --vars dim,depth
expect_rc 2 "max forms 0" -- guess "$D/blocks_attention_n4.csv" --blocks --vars dim --max-forms 0
expect_rc 2 "'block' is a block column" -- guess "$D/blocks_attention_n4.csv" --blocks --vars block
expect_rc 2 "--value total does not apply" -- guess "$D/blocks_attention_n4.csv" --blocks --vars dim --value total
"$S" guess "$D/blocks_attention_n4.csv" --blocks --vars dim,depth --bases 2 2>&1 >/dev/null | grep -q "note: --bases 2 is ignored" ||
  fail "guess --blocks: --bases not noted as ignored"

if [[ $fails -gt 0 ]]; then echo "$fails CLI check(s) failed"; exit 1; fi
echo "all CLI checks passed"
