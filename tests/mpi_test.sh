#!/usr/bin/env bash
# MPI engine test: a small sweep under `mpirun -n 2` must give the serial output,
# except the timing and memory columns. Usage: mpi_test.sh PATH/TO/seprank PATH/TO/mpirun
set -u
S="$1"; MPIRUN="$2"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader
args=(table --family attention,hadamard --tokens 2..3 --dim 1..2 --depth 1..2 --block-degree 2 --format csv)
"$S" "${args[@]}" >"$T/serial.csv" 2>/dev/null || { echo "serial run failed"; exit 1; }
"$MPIRUN" --oversubscribe -n 2 "$S" "${args[@]}" >"$T/mpi.csv" 2>"$T/mpi.err" || { echo "mpirun failed:"; cat "$T/mpi.err"; exit 1; }
# the summary says how many ranks ran (issue 58), and how they split the rows
grep -q "^seprank table: 16 rows computed, .* s on 2 MPI ranks (each row on one rank)$" "$T/mpi.err" ||
  { echo "the MPI summary does not say how many ranks ran:"; cat "$T/mpi.err"; exit 1; }
# and with --out: the file must equal the serial rows as well
"$MPIRUN" --oversubscribe -n 2 "$S" "${args[@]}" --out "$T/out.csv" >/dev/null 2>>"$T/mpi.err" || { echo "mpirun --out failed"; exit 1; }
# and with --block-store (every row by graded evaluation, so each goes through its store):
# the ranks share each row's units; the rows equal the serial ones, no units are left
"$S" "${args[@]}" --method evaluation --variant graded >"$T/serial_eval.csv" 2>/dev/null || { echo "serial evaluation run failed"; exit 1; }
"$MPIRUN" --oversubscribe -n 2 "$S" "${args[@]}" --method evaluation --variant graded --out "$T/shared.csv" --block-store >/dev/null 2>>"$T/mpi.err" || { echo "mpirun --block-store failed"; cat "$T/mpi.err"; exit 1; }
[[ ! -e "$T/shared.csv.blocks" ]] || { echo "mpirun --block-store left its units"; exit 1; }
grep -q "on 2 MPI ranks (sharing each row through its block store)$" "$T/mpi.err" ||
  { echo "the --block-store MPI summary does not say how the ranks worked:"; cat "$T/mpi.err"; exit 1; }
/usr/bin/python3 - "$T/serial_eval.csv" "$T/shared.csv" <<'PY' || { echo "mpirun --block-store rows differ from the serial evaluation"; exit 1; }
import csv, sys
rows = [list(csv.DictReader(l for l in open(p) if not l.startswith("#"))) for p in sys.argv[1:]]
strip = lambda rs: [tuple((k, v) for k, v in r.items() if k not in ("seconds", "peak_mib")) for r in rs]
assert len(rows[0]) == 16 and strip(rows[0]) == strip(rows[1])
PY
/usr/bin/python3 - "$T/serial.csv" "$T/mpi.csv" "$T/out.csv" <<'PY'
import csv, sys
rows = [list(csv.DictReader(l for l in open(p) if not l.startswith("#"))) for p in sys.argv[1:]]  # --out files start with a sweep line
strip = lambda rs: [tuple((k, v) for k, v in r.items() if k not in ("seconds", "peak_mib")) for r in rs]
base = strip(rows[0])
assert len(base) == 16, len(base)
for other in rows[1:]:
    assert strip(other) == base, "MPI output differs from the serial run"
print(f"MPI output equals serial ({len(base)} rows)")
PY
[[ $? -eq 0 ]] || exit 1
# a block table (docs/table_blocks.md): the same block rows on stdout and in the --out file
bargs=(table --blocks --tokens 2..4 --dim 1..2 --depth 1..2 --format csv)
"$S" "${bargs[@]}" >"$T/bserial.csv" 2>/dev/null || { echo "serial block run failed"; exit 1; }
"$MPIRUN" --oversubscribe -n 2 "$S" "${bargs[@]}" --out "$T/bout.csv" >"$T/bmpi.csv" 2>>"$T/mpi.err" || { echo "mpirun --blocks failed"; cat "$T/mpi.err"; exit 1; }
/usr/bin/python3 - "$T/bserial.csv" "$T/bmpi.csv" "$T/bout.csv" <<'PY' || { echo "mpirun --blocks rows differ from the serial run"; exit 1; }
import csv, sys
rows = [list(csv.DictReader(l for l in open(p) if not l.startswith("#"))) for p in sys.argv[1:]]
strip = lambda rs: [tuple((k, v) for k, v in r.items() if k not in ("seconds", "peak_mib")) for r in rs]
assert len(rows[0]) > 12 and "block" in rows[0][0] and all(strip(r) == strip(rows[0]) for r in rows[1:])
PY
# resuming a block table at a larger max side: rank 0 reads the stopped rows and sends their
# block ranks as hints with the finished rows, so every rank computes a row with the same
# hints (with --block-store the ranks share its store, whose folder names the hints); the
# rows equal a serial fresh run at the larger side, and no unit is left
hargs=(table --blocks --tokens 3..4 --dim 2 --depth 2 --format csv)
"$S" "${hargs[@]}" --max-side 4096 >"$T/hfresh.csv" 2>/dev/null || { echo "serial block run at 4096 failed"; exit 1; }
for mode in dealt shared; do
  store=(); [[ $mode == shared ]] && store=(--block-store)
  "$S" "${hargs[@]}" --max-side 16 --out "$T/h_$mode.csv" >/dev/null 2>&1 || { echo "block run at 16 failed"; exit 1; }
  "$MPIRUN" --oversubscribe -n 2 "$S" "${hargs[@]}" --max-side 4096 --out "$T/h_$mode.csv" --resume "${store[@]}" >"$T/h_$mode.out" 2>"$T/h_$mode.err" ||
    { echo "mpirun --resume ($mode) failed"; cat "$T/h_$mode.err"; exit 1; }
  grep -q "(2 of them with their block ranks as block hints" "$T/h_$mode.err" || { echo "mpirun --resume ($mode): no note on the hints"; cat "$T/h_$mode.err"; exit 1; }
  [[ ! -e "$T/h_$mode.csv.blocks" ]] || { echo "mpirun --resume ($mode) left its units"; exit 1; }
  /usr/bin/python3 - "$T/hfresh.csv" "$T/h_$mode.out" <<'PY' || { echo "mpirun --resume ($mode): rows differ from the serial fresh run"; exit 1; }
import csv, sys
keep = ("tokens", "block", "rank", "total", "status")  # the failure bound counts the minors ranked
a, b = ([tuple(r[k] for k in keep) for r in csv.DictReader(open(f))] for f in sys.argv[1:])
assert a == b and len(a) == 10, (a, b)
PY
done
# ranks whose memory limits differ plan different rows (dx = 200 is too large under 1 MiB
# only): refused on every rank, nothing mixed up
if "$MPIRUN" --oversubscribe -n 1 "$S" --max-memory 0.0009765625 table --tokens 2 --dim 1,200 --depth 1 --format csv : \
     -n 1 "$S" table --tokens 2 --dim 1,200 --depth 1 --format csv >"$T/mixed.csv" 2>"$T/mixed.err"; then
  echo "ranks with different plans were not refused: $(cat "$T/mixed.csv")"; exit 1
fi
grep -q "the MPI ranks planned different rows (1 here, 1 to 2 over the ranks)" "$T/mixed.err" ||
  { echo "different plans: no reason given:"; cat "$T/mixed.err"; exit 1; }
