#!/usr/bin/python3
"""Block tables of attention rows computed on a GPU, which no CPU test can recompute
(data/blocks_attention_n4_frontier.csv: 43 and 39 minutes on 2 cores, 12-17 s on an H200;
data/blocks_attention_gpu_depth4.csv: rows no machine has converged yet).

Usage: data/gpu_blocks.py SEPRANK LOG... > data/<table>.csv

Each LOG is a `seprank generic --family attention ... --format json` answer as
tests/device/run.sh logs it (progress lines, then the JSON). Every cell but a few comes
from seprank itself: `seprank table --blocks ... --max-side 16` with the answer's tokens,
dim, heads and depth gives the configuration columns and the blocks' caps (exact counts,
independent of any draw); the block ranks (block_ranks, indexed by the degree a), the
total, the label and the failure bound are the answer's, with the method evaluation. A
converged answer's rows have status ok; an answer that stopped below its generic rank
(converged false) has status lower-bound and its stop in `reason` on every row below its
cap, so that `guess --blocks` fits nothing on them, and status ok on a row at its cap (the
cap certifies that block, as `seprank table --blocks` labels it: docs/table_blocks.md). The caps are checked against the ranks (a rank above
its cap would be an error)."""
import csv
import io
import json
import subprocess
import sys

seprank, logs = sys.argv[1], sys.argv[2:]
out = None
for log in logs:
    text = open(log).read()
    answer = json.loads(text[text.index("{"):text.rindex("}") + 1])
    assert answer["family"] == "attention" and answer["method"] == "evaluation", log
    caps = subprocess.run([seprank, "table", "--blocks", "--family", "attention", "--tokens", str(answer["tokens"]), "--dim",
                           str(answer["dim"]), "--heads", str(answer["heads"]), "--depth", str(answer["depth"]), "--max-side", "16",
                           "--format", "csv"], check=True, capture_output=True, text=True).stdout
    ranks = answer["block_ranks"]
    converged = answer["converged"]
    # the stop, as the note's last clause gives it ("... while the rank still grew: lower bound only")
    reason = "" if converged else answer["note"].rsplit("; ", 1)[-1]
    reader = csv.DictReader(io.StringIO(caps))
    if out is None:
        out = csv.DictWriter(sys.stdout, fieldnames=reader.fieldnames, lineterminator="\n")
        out.writeheader()
    for row in reader:
        a, r = int(row["block"]), ranks[int(row["block"])]
        assert row["partition"] == answer["partition"], (row, log)
        assert r <= min(int(row["cap_a"]), int(row["cap_b"])), row
        at_cap = r == min(int(row["cap_a"]), int(row["cap_b"]))
        row.update(rank=r, at_cap=str(at_cap).lower(), status="ok" if converged or at_cap else "lower-bound",
                   total=answer["rank"], label=answer["label"], failure_bound=answer["failure_bound"],
                   method="evaluation", reason="" if at_cap else reason, seconds="", peak_mib="")
        out.writerow(row)
    assert sum(ranks) == answer["rank"]
