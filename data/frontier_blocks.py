#!/usr/bin/python3
"""Writes data/blocks_attention_n4_frontier.csv: the block table of attention N=4, dx=4,
L=3, H=1 and H=2 (balanced partition) from the converged GPU runs, which no CPU test can
recompute (43 and 39 minutes on 2 cores; 12-17 s on an H200).

Usage: data/frontier_blocks.py SEPRANK GPU_RUN_DIR > data/blocks_attention_n4_frontier.csv

Every cell but four comes from seprank itself: `seprank table --blocks ... --max-side 16`
gives the rows' configuration columns and the blocks' caps (exact counts, independent of
any draw); the block ranks, the total, the label and the failure bound are then those of
the generic answer in GPU_RUN_DIR/frontier_h<H>.log (its JSON: block_ranks indexed by the
degree a), with status ok and the method evaluation. The caps are checked against the
ranks (a rank above its cap would be an error)."""
import csv
import io
import json
import subprocess
import sys

seprank, run = sys.argv[1], sys.argv[2]
out = None
for heads in (1, 2):
    caps = subprocess.run([seprank, "table", "--blocks", "--family", "attention", "--tokens", "4", "--dim", "4", "--heads", str(heads),
                           "--depth", "3", "--max-side", "16", "--format", "csv"], check=True, capture_output=True, text=True).stdout
    text = open(f"{run}/frontier_h{heads}.log").read()
    answer = json.loads(text[text.index("{"):text.rindex("}") + 1])
    ranks = answer["block_ranks"]
    reader = csv.DictReader(io.StringIO(caps))
    if out is None:
        out = csv.DictWriter(sys.stdout, fieldnames=reader.fieldnames, lineterminator="\n")
        out.writeheader()
    for row in reader:
        a, r = int(row["block"]), ranks[int(row["block"])]
        assert r <= min(int(row["cap_a"]), int(row["cap_b"])), row
        row.update(rank=r, at_cap=str(r == min(int(row["cap_a"]), int(row["cap_b"]))).lower(), status="ok",
                   total=answer["rank"], label=answer["label"], failure_bound=answer["failure_bound"],
                   method="evaluation", reason="", seconds="", peak_mib="")
        out.writerow(row)
    assert sum(ranks) == answer["rank"]
