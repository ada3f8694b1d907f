#!/usr/bin/python3
"""numpy peer: numpy.linalg.matrix_rank (SVD in float64, default tolerance) of an integer
Matrix Market file. Prints one JSON line. Floating point: never exact — bench/run.py
compares it with the certified rank and reports disagreements.

  numpy_peer.py matrix MATRIX.mtx
"""
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import common  # noqa: E402


def main():
    if len(sys.argv) != 3 or sys.argv[1] != "matrix":
        common.die(__doc__)
    m, n, entries = common.read_matrix_market(sys.argv[2])
    a = np.zeros((m, n), dtype=np.float64)
    for (i, j), v in entries.items():
        a[i, j] = float(v)
    print(json.dumps({"rank": int(np.linalg.matrix_rank(a)) if m and n else 0}))


if __name__ == "__main__":
    main()
