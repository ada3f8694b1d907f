#!/usr/bin/env python3
"""Table-driven bad-input suite (docs/usage.md §1.2).

Usage: run.py SEPRANK CASES_FILE

Each case line is `EXIT :: FRAGMENT :: ARGUMENTS` (ARGUMENTS split like a shell line).
In ARGUMENTS, @D/ is the folder of generated fixtures and @<NAME is replaced by the
content of fixture NAME. A trailing `>/dev/full` sends standard output to /dev/full. A
leading `FSIZE=N` runs the case under a file-size limit of N bytes (prlimit --fsize): a
full disk for the files it writes (seprank ignores SIGXFSZ, so a write past it fails).
Every case runs under prlimit (1 GiB address space, 10 s CPU) and a 20 s wall clock,
and must: exit with EXIT (never a signal), print FRAGMENT on stderr (case-insensitive),
and, when it fails, print exactly one line on stderr, starting `seprank: ` (the option
parser's errors included), of at most 1000 characters. Then the file-safety checks at the end run.
"""
import concurrent.futures, csv, fcntl, io, json, os, re, shlex, stat, subprocess, sys, tempfile

S, CASES = sys.argv[1], sys.argv[2]
R = os.path.abspath(os.path.join(os.path.dirname(CASES), "..", ".."))  # the repository (its data/)
D = tempfile.mkdtemp(prefix="seprank_bad_")
# A sanitizer build reserves terabytes of address space and cannot run under an
# address-space limit: there the memory cap is --max-memory 0.5 instead of prlimit --as.
with open(S, "rb") as f:
    ASAN = b"__asan_init" in f.read()
LIMIT = ["prlimit", "--cpu=10", "--"] if ASAN else ["prlimit", "--as=1073741824", "--cpu=10", "--"]


def w(name, text):
    with open(os.path.join(D, name), "w") as f:
        f.write(text)


def fixtures():
    w("deep_paren.txt", "(" * 50000 + "x1_1" + ")" * 50000)
    w("paren300.txt", "(" * 300 + "x1_1" + ")" * 300)
    w("paren200.txt", "(" * 200 + "x1_1*x2_1" + ")" * 200)
    w("plus.txt", "+" * 100000 + "x1_1")
    w("minus.txt", "-" * 100001 + "x1_1*x2_1")
    w("many_vars.txt", "+".join(f"x{j}_1" for j in range(1, 10001)))
    w("long_sum.txt", "+".join(["x1_1*x2_1"] * 10000))
    w("prod_blowup.txt", "*".join(["(" + "+".join(f"x{j}_1" for j in range(1, 40)) + ")"] * 8))
    w("bigint.txt", "9" * 100000 + "*x1_1*x2_1")
    hd = '"family":"hadamard","tokens":2,"dim":1,"block_degree":2,"width":1,"depth":1'
    w("w_ok.json", '{' + hd + ',"layers":[{"W":[[[1]],[[2]]],"O":[[1]]}]}')
    w("w_1e400.json", '{' + hd + ',"layers":[{"W":[[[1e400]],[[2]]],"O":[[1]]}]}')
    w("w_float.json", '{' + hd + ',"layers":[{"W":[[[1.5]],[[2]]],"O":[[1]]}]}')
    w("g_nul.csv", "n,rank\n1,3\x00x\n2,5\n")  # a NUL byte in a cell: shown, not the end of the message
    w("g_spaces.txt", "a b c\n1 2 3\n")  # separated by spaces: read as one column, said so
    w("g_record.json", '{\n  "rank": 3,\n  "tokens": 2\n}\n')  # one JSON object over several lines: not a table
    w("w_bigsyntax.json", '{' + hd + ',"layers":[{"W":[[[123456789012345678901234567890]],[[2]]],"O":[[1]]},]}')  # the error's byte as given
    w("w_bigtokens.json", '{"family":"hadamard","tokens":99999999999999999999,"dim":1}')
    w("w_strtokens.json", '{"family":"hadamard","tokens":"2","dim":1}')
    w("w_strtokens19.json", '{"family":"hadamard","tokens":"1234567890123456789","dim":1}')
    w("w_strtokensu64.json", '{"family":"hadamard","tokens":"18446744073709551615","dim":1}')
    w("w_strtokensdash.json", '{"family":"hadamard","tokens":"12-3","dim":1}')
    w("w_bigneg.json", '{"family":"hadamard","tokens":-9223372036854775809,"dim":1}')
    w("w_nlfamily.json", r'{"family":"a\nb\rc","tokens":2,"dim":1}')  # a line break in a quoted value: shown as \n
    w("w_badfrac.json", '{' + hd + ',"layers":[{"W":[[["1/0"]],[[2]]],"O":[[1]]}]}')
    w("w_badstr.json", '{' + hd + ',"layers":[{"W":[[["x"]],[[2]]],"O":[[1]]}]}')
    w("w_deep.json", "[" * 100000 + "]" * 100000)
    w("w_deep_obj.json", '{"a":' * 50000 + "1" + "}" * 50000)
    w("w_trunc.json", '{' + hd + ',"layers":[{"W":[[[1]],[[2]]')
    w("w_empty.json", "")
    w("w_array.json", "[1,2,3]")
    w("w_null.json", "null")
    w("w_nolayers.json", '{' + hd + '}')
    w("w_shape.json", '{' + hd + ',"layers":[{"W":[[[1,2]],[[2]]],"O":[[1]]}]}')
    w("w_layers.json", '{' + hd + ',"layers":[]}')
    w("w_family.json", '{"family":"transformer","tokens":2,"dim":1,"depth":0,"layers":[]}')
    w("w_hugedim.json", '{"family":"hadamard","tokens":2,"dim":1000000000,"block_degree":2,"width":1,"depth":1,"layers":[]}')
    w("w_bigdim.json", '{"family":"attention","tokens":4,"dim":100000,"heads":1,"depth":1,"layers":[]}')
    st = '"family":"stack","tokens":2,"dim":1,"depth":1'
    w("w_stack.json", '{' + st + ',"layers":[{"kind":"mlp","power":2,"W1":[[1]],"W2":[[3]]}]}')
    w("w_stack_kind.json", '{' + st + ',"layers":[{"kind":"softmax","W1":[[1]],"W2":[[3]]}]}')
    w("w_stack_nokind.json", '{' + st + ',"layers":[{"W1":[[1]],"W2":[[3]]}]}')
    w("w_stack_noembed.json", '{' + st + ',"layers":[{"kind":"mlp","power":2,"W1":[[1]],"W2":[[3]]}],"embedding":[[]]}')
    w("w_heads_null.json", '{"family":"attention","tokens":2,"dim":2,"depth":1,"layers":[{"heads":null}]}')
    w("w_negtokens.json", '{"family":"hadamard","tokens":-2,"dim":1,"block_degree":2,"width":1,"depth":1,"layers":[]}')
    w("w_tokens_str.json", '{"family":"hadamard","tokens":"2","dim":1,"block_degree":2,"width":1,"depth":1,"layers":[]}')
    w("w_depth99.json", '{"family":"hadamard","tokens":2,"dim":1,"block_degree":2,"width":1,"depth":99,"layers":[]}')
    w("w_bom.json", "\ufeff{}")
    w("w_nul.json", "{\0}")
    w("w_million_layers.json", '{"family":"stack","tokens":2,"layers":[' + ",".join(["{}"] * 1000000) + "]}")
    w("w_dupkey.json", '{' + hd + ',"layers":[{"W":[[[1]],[[2]]],"O":[[1]]}],"tokens":3}')
    w("t_templates_bad.json", "[[1,2],[3]]")
    w("t_templates_float.json", "[[1.5]]")
    w("t_templates_1e400.json", "[[1e400]]")
    mm = "%%MatrixMarket matrix coordinate integer general\n"
    w("m_ok.mtx", mm + "2 2 2\n1 1 1\n2 2 3\n")
    w("m_big.mtx", mm + "1000000000 1000000000 1\n1 1 1\n")
    w("m_bigrows.mtx", mm + "1000000000000 1 1\n1 1 1\n")
    w("m_nnz.mtx", mm + "10 10 1000000000\n1 1 1\n")
    w("m_nnz_short.mtx", mm + "100 100 1000\n1 1 1\n")
    w("m_nnz_over.mtx", mm + "2 2 5\n1 1 1\n")
    w("m_array_big.mtx", "%%MatrixMarket matrix array integer general\n100000 100000\n1\n")
    w("m_header.mtx", "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 1.5\n")
    w("m_symmetric.mtx", "%%MatrixMarket matrix coordinate integer symmetric\n1 1 1\n1 1 1\n")
    w("m_noheader.mtx", "1 1 1\n1 1 1\n")
    w("m_index.mtx", mm + "2 2 1\n3 1 1\n")
    w("m_index0.mtx", mm + "2 2 1\n0 1 1\n")
    w("m_dup.mtx", mm + "2 2 2\n1 1 1\n1 1 2\n")
    w("m_value.mtx", mm + "2 2 1\n1 1 abc\n")
    w("m_float.mtx", mm + "2 2 1\n1 1 1.5\n")
    w("m_trailing.mtx", mm + "2 2 1\n1 1 1\nextra\n")
    w("m_short.mtx", mm + "2 2 3\n1 1 1\n")
    w("m_negative.mtx", mm + "-2 2 1\n1 1 1\n")
    w("m_overflow.mtx", mm + "99999999999999999999 2 1\n1 1 1\n")
    w("m_size_words.mtx", mm + "2 2\n")
    w("m_empty.mtx", "")
    w("m_entry_words.mtx", mm + "2 2 1\n1 1\n")
    w("m_bigvalue.mtx", mm + "1 1 1\n1 1 " + "7" * 5000 + "\n")
    mq = "%%MatrixMarket matrix coordinate rational general\n"
    w("q_ok.mtx", mq + "2 2 2\n1 1 1/2\n2 2 -3\n")
    w("q_zero_den.mtx", mq + "2 2 2\n1 1 1/2\n2 2 3/0\n")
    w("q_neg_den.mtx", mq + "2 2 1\n1 1 1/--2\n")
    w("q_decimal.mtx", mq + "2 2 1\n1 1 0.5\n")
    w("q_in_integer.mtx", mm + "2 2 1\n1 1 1/2\n")
    # issue 36: shapes whose empty side is huge, a zero named twice, a 50,000-character entry
    w("m_array_0xT.mtx", "%%MatrixMarket matrix array integer general\n0 1000000000000\n")
    w("m_wide.mtx", mm + "1 200000000 1\n1 199999999 7\n")
    w("m_dup_zero.mtx", mm + "2 2 2\n1 1 5\n1 1 0\n")
    w("m_long_entry.mtx", mm + "1 1 1\n1 1 " + "x" * 50000 + "\n")
    w("w_typo.json", '{' + hd + ',"residul":true,"layers":[{"W":[[[1]],[[2]]],"O":[[1]]}]}')
    w("w_typo_layer.json", '{' + hd + ',"layers":[{"W":[[[1]],[[2]]],"O":[[1]],"OO":[[1]]}]}')
    # the current CSV header, read from the tool itself (the column list grows with features)
    first = subprocess.run([S, "table", "--tokens", "2", "--dim", "1", "--depth", "1", "--format", "csv"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, timeout=60).stdout
    hdr = next(line for line in first.splitlines() if line and not line.startswith("#"))
    row1 = next(line for line in first.splitlines() if line and not line.startswith("#") and line != hdr)
    cols = hdr.split(",")
    def with_cell(name, value):  # the first row with one cell changed (no cell of it is quoted)
        cells = row1.split(",")
        cells[cols.index(name)] = value
        return ",".join(cells)
    w("t_negrank.csv", hdr + "\n" + with_cell("rank", "-2") + "\n")
    w("t_hugerank.csv", hdr + "\n" + with_cell("rank", "9" * 24) + "\n")
    w("t_maybe.csv", hdr + "\n" + with_cell("certified", "maybe") + "\n")
    w("t_log3abc.csv", hdr + "\n" + with_cell("log3_rank", "abc") + "\n")
    w("t_paramsx.csv", hdr + "\n" + with_cell("params", "12x") + "\n")
    w("t_seconds.csv", hdr + "\n" + with_cell("seconds", "abc") + "\n")
    # cells of a fixed vocabulary, a partition that does not fit, a rank without its method
    for name, value in (("method", "magic"), ("theorem", "abc"), ("outside", "maybe"), ("label", "zzz"),
                        ("residual", "2"), ("partition", "1|1"), ("embed_rank", "-1"), ("cols", ""),
                        ("tokens", "99999999999999999"), ("family", "transformer")):
        w(f"t_cell_{name}.csv", hdr + "\n" + with_cell(name, value) + "\n")
    # a --variety sweep's row (quoted cells: the csv module), one cell changed or one key left out
    vnet = ["--layers", "conv,conv:power=1", "--tokens", "3", "--dim", "1", "--depth", "1", "--variety"]
    vout = subprocess.run([S, "table", *vnet, "--format", "csv"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, timeout=60).stdout
    vhdr, vrow = [line for line in vout.splitlines() if line and not line.startswith("#")][:2]
    def v_with(name, value):
        cells = next(csv.reader([vrow]))
        cells[vhdr.split(",").index(name)] = value
        o = io.StringIO()
        csv.writer(o, lineterminator="").writerow(cells)
        return o.getvalue()
    w("t_var_x.csv", vhdr + "\n" + v_with("variety_degree_at_least", "x") + "\n")
    w("t_var_above.csv", vhdr + "\n" + v_with("variety_degree_at_least", "9") + "\n")
    w("t_var_below.csv", vhdr + "\n" + v_with("variety_degree_at_most", "3") + "\n")
    w("t_var_zero.csv", vhdr + "\n" + v_with("gauge_fibre", "0") + "\n")
    jout = subprocess.run([S, "table", *vnet, "--format", "json"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, timeout=60).stdout
    jrow = json.loads(jout)[0]  # stdout: one JSON array; an --out file: one object a line
    w("t_var_dup.jsonl", json.dumps(jrow)[:-1] + ', "variety_degree_at_most": 9}\n')  # a key twice
    del jrow["variety_degree_at_least"]
    w("t_var_missing.jsonl", json.dumps(jrow) + "\n")
    w("t_badheader.csv", "family,tokens\n")
    w("t_nosweep.csv", hdr + "\n")
    w("t_othersweep.csv", "# seprank table sweep: trials=1 seed=2 method=0 max_side=4096 variant=0 partition=balanced max_variables=64 columns=30\n" + hdr + "\n")
    w("t_othersweep2.csv", "# seprank table sweep: results=3 trials=1 seed=2 method=0 max_side=4096 variant=0 partition=balanced max_variables=64 columns=30\n" + hdr + "\n")
    w("t_oldresults.csv", "# seprank table sweep: results=2 trials=1 seed=1 method=0 max_side=8192 variant=0 partition=balanced max_variables=64 columns=30\n" + hdr + "\n")
    w("t_comment.csv", "# something else\n" + hdr + "\n")
    w("t_badjson.jsonl", "{bad\n")
    w("t_sweepjson_other.jsonl", '{"seprank_table_sweep":"trials=9"}\n')
    os.symlink(os.path.join(D, "target.json"), os.path.join(D, "link.json"))
    w("target.json", "precious\n")
    os.symlink(os.path.join(D, "target.csv"), os.path.join(D, "link.csv"))
    w("target.csv", "precious\n")
    os.symlink(os.path.join(D, "target.svg"), os.path.join(D, "link.svg"))
    os.mkfifo(os.path.join(D, "fifo"))
    os.mkdir(os.path.join(D, "adir"))
    w("gp.csv", hdr + "\n")
    w("t_plain.csv", hdr + "\n" + row1 + "\n")  # a plain table's row: no block column
    # a table file whose sweep line's max_side was edited by hand
    subprocess.run([S, "table", "--tokens", "2", "--dim", "1", "--depth", "1", "--format", "csv", "--out", os.path.join(D, "t_side.csv")],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60, check=True)
    with open(os.path.join(D, "t_side.csv")) as f:
        side_text = f.read()
    w("t_sideabc.csv", re.sub(r"max_side=\d+", "max_side=abc", side_text, count=1))
    # block tables (table --blocks) with one cell changed: attention N=3 dx=2 L=2, blocks 1,3,5,7,9
    bnet = ["--blocks", "--tokens", "3", "--dim", "2", "--depth", "2"]
    bout = subprocess.run([S, "table", *bnet, "--format", "csv"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, timeout=60).stdout
    blines = [line for line in bout.splitlines() if line and not line.startswith("#")]
    bhdr, brows = blines[0], blines[1:]
    def b_with(k, name, value):  # block row k with one cell changed, the other rows as they are
        out = []
        for i, line in enumerate(brows):
            cells = next(csv.reader([line]))
            if i == k:
                cells[bhdr.split(",").index(name)] = value
            o = io.StringIO()
            csv.writer(o, lineterminator="").writerow(cells)
            out.append(o.getvalue())
        return bhdr + "\n" + "\n".join(out) + "\n"
    w("bh_ok.csv", b_with(0, "block", "1"))
    w("bh_bom.csv", "\ufeff" + b_with(0, "block", "1"))  # a UTF-8 byte-order mark first, as a spreadsheet may save
    w("bh_huge_block.csv", b_with(1, "block", "100000000"))
    w("bh_block11.csv", b_with(1, "block", "11"))
    w("bh_noblock.csv", b_with(1, "block", ""))
    w("bh_rank_cap.csv", b_with(1, "rank", "100"))
    w("bh_atcap.csv", b_with(1, "at_cap", "maybe"))
    w("bh_bound.csv", b_with(1, "failure_bound", "abc"))
    w("bh_blocks0.csv", b_with(1, "blocks", "-5"))
    w("bh_status.csv", b_with(1, "status", "weird"))
    # cells guess --blocks and --hint-blocks read alike (detail::count_text_error)
    w("bh_capneg.csv", b_with(1, "cap_a", "-3"))
    w("bh_capbig.csv", b_with(1, "cap_a", "99999999999999999999"))
    w("bh_capplus.csv", b_with(1, "cap_a", "+3"))
    w("bh_tokens.csv", b_with(1, "tokens", "x"))
    w("bh_degree.csv", b_with(1, "degree", "27"))
    subprocess.run([S, "table", *bnet, "--format", "csv", "--out", os.path.join(D, "bt_base.csv")], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, timeout=60, check=True)
    with open(os.path.join(D, "bt_base.csv")) as f:  # --out writes the sweep line first: a file to resume
        sweep_line = f.readline().rstrip("\n")
    w("bt_skipped.csv", sweep_line + "\n" + b_with(1, "status", "skipped"))  # a resumed file: block 3 marked skipped
    w("bt_atcap.csv", sweep_line + "\n" + b_with(0, "at_cap", "false"))  # block 1 is at its cap
    w("w_negpower.json", '{"coordinate": 1, "depth": 1, "dim": 2, "family": "stack", "layers": [{"W1": [[5, 2], [3, 5]], '
      '"W2": [[0, 5], [5, 4]], "kind": "mlp", "power": -9223372036854775808, "residual": false, "width": 0}], '
      '"position": 1, "residual": false, "tokens": 2}\n')
    w("bh_list.json", '[{"block": 0, "predicted": 1}]\n')
    w("bh_dupkey.json", '{"a": 1, "a": 2}\n')
    w("g_norow_v.json", '[{"n": 1, "v": 2}, {"n": 2}, {"n": 3, "v": 10}, {"n": 4, "v": 17}]\n')
    gout = subprocess.run([S, "guess", os.path.join(R, "data/blocks_attention_n4.csv"), "--blocks", "--vars", "dim,depth", "--where", "heads=1",
                           "--format", "json"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, timeout=60).stdout
    w("guess_nopredict.json", gout)
    with open(os.path.join(R, "data/blocks_attention_n4.csv")) as f:
        w("n4.csv", f.read())
    pout = json.loads(subprocess.run([S, "guess", os.path.join(R, "data/blocks_attention_n4.csv"), "--blocks", "--vars", "dim,depth", "--where",
                                      "heads=1", "--predict", "dim=2,depth=2", "--format", "json"],
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, timeout=60).stdout)
    # guess's JSON cut short (a killed redirect): the parser's error, not the first line's as a table row
    ptext = json.dumps(pout, indent=2)
    w("guess_trunc.json", ptext[: len(ptext) // 2])
    w("guess_trunc1.json", json.dumps(pout)[:40])
    pout["predictions"][0]["blocks"][0]["block"] = 200000000
    w("guess_huge_block.json", json.dumps(pout))
    # rows with no theorem bound (hadamard): plot --bounds would draw a legend and no curve
    w("gp_nobounds.csv", "family,tokens,dim,depth,rank,log3_rank,log3_lower,log3_upper,status\n"
      "hadamard,2,2,1,4,1.2619,,,ok\nhadamard,2,2,2,8,1.8928,,,ok\n")
    w("gp_textrank.csv", "family,tokens,dim,depth,rank,log3_rank,log3_lower,log3_upper,status\n"
      "hadamard,2,2,1,4,1.2619,,,ok\nhadamard,2,2,2,abc,1.8928,,,ok\n")
    # a table named as a figure, drawn onto itself (by name, or through a hard link)
    w("gp_self.svg", "family,tokens,dim,depth,rank,log3_rank,log3_lower,log3_upper,status\n"
      "hadamard,2,2,1,4,1.2619,,,ok\nhadamard,2,2,2,8,1.8928,,,ok\n")
    if os.path.exists(os.path.join(D, "gp_self_link.svg")):
        os.remove(os.path.join(D, "gp_self_link.svg"))
    os.link(os.path.join(D, "gp_self.svg"), os.path.join(D, "gp_self_link.svg"))
    w("gp_infx.csv", "family,tokens,dim,depth,rank,log3_rank,log3_lower,log3_upper,status\n"
      "hadamard,2,2,1,4,1.2619,,,ok\nhadamard,2,2,1e400,8,1.8928,,,ok\n")
    w("gp_hugey.csv", "family,tokens,dim,depth,rank,log3_rank,log3_lower,log3_upper,status\n"
      "hadamard,2,2,1,1e308,1.2619,,,ok\nhadamard,2,2,2,-1e308,1.8928,,,ok\n")
    w("gp_duphdr.csv", "family,tokens,dim,depth,rank,rank,status\nhadamard,2,2,1,4,5,ok\n")  # which 'rank' is meant?
    w("badquote.csv", hdr + "\n\x01ab\x7f\"unterminated\n")  # a binary line: shown escaped, with file and line
    w("badquote2.csv", "# seprank table sweep: a comment line first\n" + hdr + "\n\"x\n")  # lines count from the file's first
    # guess: a small table of n, v = n^2 + 1, and broken ones
    w("g.csv", "n,v,s\n" + "".join(f"{n},{n * n + 1},x\n" for n in range(8)))
    # the same table saved as UTF-16 (with its byte-order mark) and as UTF-16LE without one
    g = "n,v,s\n" + "".join(f"{n},{n * n + 1},x\n" for n in range(8))
    with open(os.path.join(D, "g_utf16.csv"), "wb") as f:
        f.write(g.encode("utf-16"))
    with open(os.path.join(D, "g_utf16le.csv"), "wb") as f:
        f.write(g.encode("utf-16-le"))
    with open(os.path.join(D, "g_utf16be.csv"), "wb") as f:
        f.write(g.encode("utf-16-be"))
    with open(os.path.join(D, "g_utf32.csv"), "wb") as f:
        f.write(g.encode("utf-32"))
    # weights and matrix files saved as UTF-16 (a Windows editor's): named as such
    weights_text = '{"family": "attention", "tokens": 2, "dim": 1, "layers": []}'
    for name, text, enc in (("w_utf16.json", weights_text, "utf-16"), ("w_utf16le.json", weights_text, "utf-16-le"),
                            ("m_utf16.mtx", "%%MatrixMarket matrix array integer general\n1 1\n1\n", "utf-16")):
        with open(os.path.join(D, name), "wb") as f:
            f.write(text.encode(enc))
    # not text at all: the same table gzip-compressed, a spreadsheet's zip, Latin-1 text
    import gzip
    with open(os.path.join(D, "g.csv.gz"), "wb") as f:
        f.write(gzip.compress(g.encode()))
    with open(os.path.join(D, "g_zip.xlsx"), "wb") as f:
        f.write(b"PK\x03\x04\x14\x00\x06\x00\x08\x00\x00\x00!\x00\xb5\x9c")
    with open(os.path.join(D, "g_latin1.csv"), "wb") as f:
        f.write(("n,v,s\n" + "".join(f"{n},{n * n + 1},caf\u00e9\n" for n in range(8))).encode("latin-1"))
    w("g2.csv", "n,s,v\n" + "".join(f"{n},x,{n * n + 1}\n{n},y,{n * n + 2}\n" for n in range(8)))  # two kinds of row
    w("g_two.csv", "n,v\n1,2\n2,5\n")
    w("g_noint.csv", "n,v\n1,2\n2,abc\n3,10\n")
    w("g_ragged.csv", "n,v\n1,2,3\n")
    w("g_cr.csv", "n,v\r" + "".join(f"{n},{n * n + 1}\r" for n in range(8)))  # old Mac line ends
    w("g_crlf.csv", "n,v\r\n" + "".join(f"{n},{n * n + 1}\r\n" for n in range(8)))
    crlf = os.path.join(D, "t_crlf.csv")  # a table file the tool wrote, saved again with CRLF line ends
    subprocess.run([S, "table", "--tokens", "2", "--dim", "1", "--depth", "1", "--format", "csv", "--out", crlf],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
    with open(crlf, "rb") as f:
        text = f.read()
    with open(crlf, "wb") as f:
        f.write(text.replace(b"\n", b"\r\n"))
    # guess, issue 36/38: hostile tables (exact sizes, duplicates, marks, sweep lines)
    import math
    w("gh_pow.csv", "n,v\n" + "".join(f"{n},{2 ** n + 1}\n" for n in range(8)))
    w("gh_big_n.csv", "n,v\n" + "".join(f"{10 ** 12 + k},{3 * (10 ** 12 + k) + 1}\n" for k in range(8)))
    w("gh_big_n_exp.csv", "n,v\n" + "".join(f"{10 ** 12 + k},{7 * 2 ** k + k ** 5}\n" for k in range(8)))
    fib = [0, 1]
    while len(fib) < 12:
        fib.append(fib[-1] + fib[-2])
    w("gh_fib.csv", "n,v\n" + "".join(f"{n},{f}\n" for n, f in enumerate(fib)))
    w("gh_square.csv", "n,v\n" + "".join(f"{n},{n * n + 1}\n" for n in range(50000)))
    w("gh_binom.csv", "dim,depth,rank\n" + "".join(f"{d},{L},{math.comb((3 ** L - 1) // 2 + d, d)}\n"
                                                    for d in range(1, 4) for L in range(1, 4)))
    w("gh_dupcol.csv", "n,v,v\n" + "".join(f"{n},{n + 1},{n + 2}\n" for n in range(8)))
    w("gh_dupkey.jsonl", '{"n":0,"v":1,"v":7}\n{"n":1,"v":2}\n{"n":2,"v":3}\n')
    w("gh_dupkey.json", '[{"n":0,"v":1},{"n":1,"v":2,"n":5},{"n":2,"v":3}]')
    # Issue 58: JSON reads are linear; quadratic, these took minutes (past the 10 s CPU cap).
    w("gh_many_dupkey.json", "[" + ",".join('{"n":%d,"v":%d%s}' % (n, n + 1, ',"v":0' if n == 200000 else "")
                                            for n in range(250000)) + "]")
    w("gh_many.json", "[" + ",".join('{"n":%d,"v":%d}' % (n, n * n + 1) for n in range(250000)) + "]")
    w("gh_noise.csv", "n,v\n" + "".join(f"{n},{v}\n" for n, v in enumerate([7, 3, 9, 1, 12, 5, 40, 2])))
    with open(os.path.join(D, "gh_bom.csv"), "wb") as f:
        f.write(b"\xef\xbb\xbfn,v\n" + "".join(f"{n},{n * n + 1}\n" for n in range(8)).encode())
    w("gh_bigvar.csv", "n,v\n1,2\n2,5\n" + "9" * 60 + ",10\n")
    w("w_nul.json", '{"family":"attention","tokens":2,\0"dim":1}')  # a NUL byte: not the end of the input
    w("coef1e160.txt", "1" + "0" * 160 + "*x1_1*x2_1 + x1_2*x2_2")  # sigma^2 past a double
    w("coefm1e160.txt", "1/1" + "0" * 160 + "*x1_1*x2_1 + 1/1" + "0" * 160 + "*x1_2*x2_2")
    w("gh_sweep.jsonl", '{"seprank_table_sweep": "trials=1 seed=1"}\n' +
      "".join(f'{{"dim":{d},"rank":{d + 1},"status":"ok"}}\n' for d in range(1, 6)))
    # Values of megabytes quoted in a message: cut at 40 bytes and "…" (detail::cut), not echoed whole.
    w("w_longfamily.json", '{"family":"' + "h" * 10**7 + '","tokens":2,"dim":1}')
    w("w_longdupkey.json", '{"family":"hadamard","' + "k" * 5 * 10**6 + '":1,"' + "k" * 5 * 10**6 + '":2}')
    w("gh_longdupkey.json", '[{"n":1,"' + "k" * 10**6 + '":1,"' + "k" * 10**6 + '":2}]')
    w("w_longkind.json", '{"family":"stack","tokens":2,"dim":1,"depth":1,"layers":[{"kind":"' + "é" * 10**6 + '"}]}')
    w("w_longtokens.json", '{"family":"hadamard","tokens":"' + "7" * 10**6 + 'x","dim":1}')
    w("w_longentry.json", '{' + hd + ',"layers":[{"W":[[["' + "1" * 10**6 + 'x"]],[[2]]],"O":[[1]]}]}')
    w("w_longmatrix.json", '{' + hd + ',"layers":[{"W":[{"a":"' + "m" * 10**6 + '"},[[2]]],"O":[[1]]}]}')
    # not a table, or a table without rows: said so, not "0 distinct row(s)"
    w("g_hello.json", '"hello"\n')
    w("g_42.json", "42")
    w("g_header_only.csv", "a,b\n")
    w("g_header_nv.csv", "# seprank table sweep: x\nn,v\n")
    w("g_empty.json", " [ ] ")
    w("g_sweep_only.jsonl", '{"seprank_table_sweep": "x"}\n')
    w("g_blank.csv", "\n \n")
    # a value cell of 2·10^6 digits: refused before the fit (10^6 digits took 4 s, 10^7 125 s)
    w("g_bigcell.csv", "n,v\n1," + "9" * 2 * 10**6 + "\n" + "".join(f"{n},{n * n + 1}\n" for n in range(2, 8)))
    # a store named with a control character: refused before anything is made (it left st\nore/trial0/meta.lock)
    w("store_nl.txt", os.path.join(D, "st\nore"))
    w("store_nl_parent.txt", os.path.join(D, "p\x1bq", "store"))
    w("gh_stack.csv", "family,layers,depth,rank\n" + "".join(f'stack,"attention,mlp",{2 * d},{d + 1}\n' for d in range(1, 6)))


def run_case(rc_want, frag, args, lineno):
    argv = shlex.split(args.replace("@D/", D + "/"))
    out = subprocess.DEVNULL
    if argv and argv[-1] == ">/dev/full":
        argv.pop()
        out = open("/dev/full", "w")
    argv = [open(os.path.join(D, a[2:])).read() if a.startswith("@<") else a for a in argv]
    limit = LIMIT
    if argv and argv[0].startswith("FSIZE="):
        limit = LIMIT[:-1] + ["--fsize=" + argv.pop(0)[6:], "--"]
    if ASAN and "--max-memory" not in argv:
        argv = ["--max-memory", "0.5"] + argv
    cmd = limit + [S] + argv
    try:
        p = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.PIPE, timeout=20)
    except subprocess.TimeoutExpired:
        return f"line {lineno}: timed out: {args[:120]}"
    err = p.stderr.decode(errors="replace")
    shown = f"line {lineno}: seprank {args[:120]}\n    exit {p.returncode}, stderr: {err[:400]!r}"
    if p.returncode < 0:
        return f"{shown}\n    killed by signal {-p.returncode}"
    if p.returncode != rc_want:
        return f"{shown}\n    expected exit {rc_want}"
    if frag.lower() not in err.lower():
        return f"{shown}\n    expected the fragment {frag!r}"
    if rc_want != 0:
        lines = err.rstrip("\n").split("\n")
        if len(lines) != 1:
            return f"{shown}\n    expected one line on stderr"
        if not lines[0].startswith("seprank: "):
            return f"{shown}\n    the message should start with 'seprank: '"
        if len(lines[0]) > 1000:  # a quoted value is cut (detail::cut): no input echoed whole
            return f"{shown}\n    a message of {len(lines[0])} characters: quote long values cut"
    return None


def file_safety():
    bad = []
    if open(os.path.join(D, "target.json")).read() != "precious\n" or not os.path.islink(os.path.join(D, "link.json")):
        bad.append("a symlink target was replaced or followed")
    if open(os.path.join(D, "target.csv")).read() != "precious\n" or not os.path.islink(os.path.join(D, "link.csv")):
        bad.append("a symlink table target was changed")
    if not stat.S_ISFIFO(os.stat(os.path.join(D, "fifo")).st_mode):
        bad.append("the FIFO was replaced")
    left = [f for f in os.listdir(D) if ".tmp" in f]
    if left:
        bad.append(f"temporary files left behind: {left}")
    for f in ("fresh_fail.csv", "fresh_fail.jsonl", "never.json", "never.mtx", "never.svg", "st\nore", "p\x1bq"):
        if os.path.exists(os.path.join(D, f)):
            bad.append(f"{f} exists after a failed run")
    # two writers of one table file: the second is refused while the first holds it
    path = os.path.join(D, "locked.csv")
    with open(path, "a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        p = subprocess.run(LIMIT + [S, "table", "--tokens", "2", "--dim", "1",
                            "--format", "csv", "--out", path, "--resume"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=20)
        if p.returncode != 2 or b"locked" not in p.stderr:
            bad.append(f"a locked table file was not refused: exit {p.returncode} {p.stderr[:200]!r}")
    bad += full_disk_table()
    return bad


def full_disk_table():
    """table --out FILE --resume on a full disk (a file-size limit a little above FILE's size):
    exit 3, and FILE cut back to its last whole row (it kept half a row), so a later
    --resume without the limit completes it."""
    bad = []
    sweep = ["table", "--tokens", "2..3", "--dim", "1..2", "--depth", "1..2", "--format", "csv"]
    whole, part = os.path.join(D, "fd_whole.csv"), os.path.join(D, "fd_part.csv")
    subprocess.run([S] + sweep + ["--out", whole], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60, check=True)
    lines = open(whole).read().splitlines(keepends=True)
    w("fd_part.csv", "".join(lines[:5]))  # the sweep line, the header and 3 rows of 8
    size = os.path.getsize(part)
    p = subprocess.run(LIMIT[:-1] + [f"--fsize={size + 60}", "--", S] + sweep + ["--out", part, "--resume"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=60)
    text = open(part).read()
    if p.returncode != 3 or b"fd_part.csv' failed: File too large" not in p.stderr:
        bad.append(f"table --resume on a full disk: exit {p.returncode}, {p.stderr[:300]!r}")
    if os.path.getsize(part) != size or not text.endswith("\n"):
        bad.append(f"table --resume on a full disk left {os.path.getsize(part)} bytes (had {size}), ending {text[-40:]!r}")
    p = subprocess.run([S] + sweep + ["--out", part, "--resume"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=60)
    got = open(part).read().splitlines()
    if p.returncode != 0 or len(got) != len(lines) or any(len(next(csv.reader([g]))) != len(next(csv.reader([lines[1]]))) for g in got[1:]):
        bad.append(f"table --resume after a full disk: exit {p.returncode}, {len(got)} lines of {len(lines)}, {p.stderr[:300]!r}")
    return bad


def main():
    fixtures()
    cases = []
    for lineno, line in enumerate(open(CASES), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        rc, frag, args = (x.strip() for x in line.split("::", 2))
        cases.append((int(rc), frag, args, lineno))
    n = len(cases)
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        failures = [r for r in pool.map(lambda c: run_case(*c), cases) if r]
    failures += file_safety()
    for f in failures:
        print("FAIL", f)
    print(f"{n} cases, {len(failures)} failures")
    subprocess.run(["rm", "-rf", D])
    sys.exit(1 if failures else 0)


main()
