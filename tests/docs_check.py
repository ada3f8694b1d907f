#!/usr/bin/python3
"""Runs every command example of README.md and docs/*.md and compares its output with the page.

Usage: docs_check.py SEPRANK_CLI ROOT [PAGE.md ...]   (default: ROOT/README.md ROOT/docs/*.md)

The convention (docs/development.md, "Executable docs"):

- An example is a code block (indented by 4 spaces, or fenced with ```) holding lines
  `$ COMMAND`; a line ending in `\\` continues on the next. The lines after a command, up
  to the next `$` line or the block's end, are its output as the page shows it. A block
  with no `$` line (a synopsis, a list of options) is not run.
- Each command runs through bash (pipefail) with the built `seprank` first on PATH, in one
  fresh folder per page (so a file one command writes is there for the next), in which
  `data` and `examples` are the repository's folders and `docs` is an empty folder.
- A trailing `# exit N` comment states the exit code (else 0). With exit 0 the output is
  stdout; otherwise stdout followed by stderr (an error example shows its one line).
- Lines are compared with runs of white space collapsed, so column alignment is free.
  `…` inside a shown line matches any text on that line; a shown line `...` or `…` alone
  matches any number of lines (none included). Nothing else is ignored: a shown line must
  match, in order, and the real output may not have lines the page leaves out unless a
  `...` line stands for them.
- Timings are masked by name: `seconds`, `peak_mib` and `phases` (and any name given by a `mask`
  directive) are dropped from `NAME value` lines, from JSON `"NAME": value`, and as a
  column from CSV and aligned text tables, on both sides.
- Directives, HTML comments on the line just before a block (invisible on the page):
  `<!-- docs-test: skip REASON -->` does not run the block (its commands are counted and
  listed as skipped, with the reason); `<!-- docs-test: mask NAME[,NAME...] -->` masks
  more names in that block.

Exits 1 naming each failing example (file, line, command, the first line that differs);
prints how many commands ran, passed and were skipped, and the slowest ones.
"""
import csv
import doctest
import glob
import io
import os
import re
import subprocess
import sys
import tempfile
import time

DEFAULT_MASK = ("seconds", "peak_mib", "phases")
DIRECTIVE = re.compile(r"^\s*<!--\s*docs-test:\s*(\w+)\s*(.*?)\s*-->\s*$")
EXIT = re.compile(r"#\s*exit\s+(\d+)\b")
TIMEOUT_S = 120


class Example:
    def __init__(self, page, line, command, shown, mask, skip):
        self.page, self.line, self.command, self.shown = page, line, command, shown
        self.mask, self.skip = mask, skip


def blocks(lines):
    """Yields (first line number, block lines de-indented, directives) for each code block."""
    i = 0
    n = len(lines)
    while i < n:
        line = lines[i]
        directives = []
        j = i - 1
        while j >= 0 and not lines[j].strip():
            j -= 1
        while j >= 0 and DIRECTIVE.match(lines[j]):
            directives.append(DIRECTIVE.match(lines[j]).groups())
            j -= 1
        if line.startswith("```"):
            k = i + 1
            while k < n and not lines[k].startswith("```"):
                k += 1
            lang = line[3:].strip()
            if lang in ("", "sh", "console", "shell", "bash"):
                yield i + 2, lines[i + 1:k], directives
            i = k + 1
            continue
        previous_blank = i == 0 or not lines[i - 1].strip() or DIRECTIVE.match(lines[i - 1])
        if line.startswith("    ") and previous_blank:
            k = i
            body = []
            while k < n and (lines[k].startswith("    ") or (not lines[k].strip() and k + 1 < n
                                                              and lines[k + 1].startswith("    "))):
                body.append(lines[k][4:])
                k += 1
            yield i + 1, body, directives
            i = k
            continue
        i += 1


def examples(page, root):
    text = open(page, encoding="utf-8").read().splitlines()
    rel = os.path.relpath(page, root)
    for first, body, directives in blocks(text):
        mask = set(DEFAULT_MASK)
        skip = None
        for name, arg in directives:
            if name == "skip":
                skip = arg or "no reason given"
            elif name == "mask":
                mask.update(w for w in re.split(r"[,\s]+", arg) if w)
            else:
                raise SystemExit(f"{rel}:{first}: unknown docs-test directive {name!r}")
        k = 0
        while k < len(body):
            if not body[k].startswith("$ "):
                k += 1
                continue
            start = first + k
            command = body[k][2:]
            while command.endswith("\\") and k + 1 < len(body):
                k += 1
                command = command + "\n" + body[k]  # bash reads the backslash-newline
            k += 1
            shown = []
            while k < len(body) and not body[k].startswith("$ "):
                shown.append(body[k])
                k += 1
            while shown and not shown[-1].strip():
                shown.pop()
            yield Example(rel, start, command, shown, mask, skip)


def csv_line(cells):
    out = io.StringIO()
    csv.writer(out, lineterminator="").writerow(cells)
    return out.getvalue()


def mask_lines(lines, names):
    """Drops the values of the masked names (key-value lines, JSON keys, table columns)."""
    out = []
    table = None  # (kind, index or span) of a masked column in the current table
    for line in lines:
        words = line.split()
        if not line.strip():
            table = None
            out.append(line)
            continue
        if table is not None:
            kind, where = table
            if kind == "csv" and "," in line:
                cells = next(csv.reader(io.StringIO(line)))
                if len(cells) > max(where):
                    out.append(csv_line([c for i, c in enumerate(cells) if i not in where]))
                    continue
            elif kind == "text" and not line.lstrip().startswith("#"):
                for start, end in sorted(where, reverse=True):
                    line = line[:start] + " " + line[end:]
                out.append(line)
                continue
            table = None
        if words and words[0] in names and len(words) >= 2 and len(words) <= 3:
            out.append(words[0])  # `seconds  6.12` (a key-value line)
            continue
        if "," in line and any(c in names for c in line.split(",")):
            cells = next(csv.reader(io.StringIO(line)))
            where = {i for i, c in enumerate(cells) if c in names}
            table = ("csv", where)
            out.append(csv_line([c for i, c in enumerate(cells) if i not in where]))
            continue
        if len(words) >= 3 and any(w in names for w in words):
            spans = []
            previous_end = 0
            for m in re.finditer(r"\S+", line):
                if m.group() in names:
                    spans.append((previous_end, m.end()))
                previous_end = m.end()
            table = ("text", spans)
            for start, end in sorted(spans, reverse=True):
                line = line[:start] + " " + line[end:]
            out.append(line)
            continue
        for name in names:
            line = re.sub(r'("%s"\s*:\s*)[^,}\]]*' % re.escape(name), r"\1…", line)
        out.append(line)
    return out


def normal(line):
    return " ".join(line.split())


def pattern(line):
    return re.compile(".*".join(re.escape(part) for part in normal(line).split("…")), re.S)


def match(shown, actual):
    """True when the shown lines match the actual ones; else the first shown line that fails."""
    wild = [normal(s) in ("...", "…") for s in shown]
    pats = [None if w else pattern(s) for s, w in zip(shown, wild)]
    acts = [normal(a) for a in actual]
    memo = {}
    best = [0]

    def go(i, j):
        key = (i, j)
        if key in memo:
            return memo[key]
        best[0] = max(best[0], i)
        if i == len(shown):
            result = j == len(actual)
        elif wild[i]:
            result = any(go(i + 1, k) for k in range(j, len(actual) + 1))
        else:
            result = j < len(actual) and bool(pats[i].fullmatch(acts[j])) and go(i + 1, j + 1)
        memo[key] = result
        return result

    return True if go(0, 0) else min(best[0], len(shown) - 1)


def run(example, cli_dir, folder, root):
    expected_exit = 0
    m = EXIT.search(example.command.splitlines()[0])
    if m:
        expected_exit = int(m.group(1))
    env = dict(os.environ)
    env["PATH"] = cli_dir + os.pathsep + env.get("PATH", "")
    env.setdefault("PYTHONPATH", os.path.join(os.path.dirname(cli_dir), "python"))
    start = time.monotonic()
    try:
        proc = subprocess.run(["bash", "-o", "pipefail", "-c", example.command], cwd=folder, env=env,
                              capture_output=True, text=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return f"timed out after {TIMEOUT_S} s (mark it `<!-- docs-test: skip REASON -->`)", TIMEOUT_S
    seconds = time.monotonic() - start
    if proc.returncode != expected_exit:
        return (f"exit {proc.returncode}, the page says {expected_exit}; stderr: "
                f"{proc.stderr.strip()[-400:]}"), seconds
    out = proc.stdout if proc.returncode == 0 else proc.stdout + proc.stderr
    actual = out.rstrip("\n").split("\n") if out.strip() else []
    actual = [a.rstrip() for a in actual]
    result = match(mask_lines(example.shown, example.mask), mask_lines(actual, example.mask))
    if result is True:
        return None, seconds
    bad = example.shown[result] if example.shown else "(nothing shown)"
    return (f"the page's line {result + 1} of output does not match: {bad.strip()!r}\n"
            f"    the command printed:\n" + "\n".join("      " + a for a in actual[:40])), seconds


def python_doctests(page, root, build_python):
    """Runs doctest on each ```python block of the page that holds `>>>` lines: (run, failed)."""
    text = open(page, encoding="utf-8").read()
    rel = os.path.relpath(page, root)
    run = failed = 0
    for m in re.finditer(r"^```python\n(.*?)^```", text, flags=re.S | re.M):
        if ">>>" not in m.group(1):
            continue
        line = text.count("\n", 0, m.start()) + 2
        if build_python not in sys.path:
            sys.path.insert(0, build_python)
        test = doctest.DocTestParser().get_doctest(m.group(1), {}, f"{rel}:{line}", rel, line)
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
        result = runner.run(test)
        run += 1
        if result.failed:
            failed += 1
            print(f"FAIL {rel}:{line}: python doctest, {result.failed} of {result.attempted} examples differ")
        else:
            print(f"ok   {rel}:{line}: python doctest, {result.attempted} examples")
    return run, failed


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    cli = os.path.abspath(sys.argv[1])
    root = os.path.abspath(sys.argv[2])
    pages = sys.argv[3:] or [os.path.join(root, "README.md")] + sorted(glob.glob(os.path.join(root, "docs", "*.md")))
    cli_dir = tempfile.mkdtemp(prefix="seprank-docs-bin-")
    os.symlink(cli, os.path.join(cli_dir, "seprank"))
    failures, skipped, timings, ran = [], [], [], 0
    build_python = os.path.join(os.path.dirname(os.path.dirname(cli)), "python")
    doctests = doctests_failed = 0
    for page in pages:
        if os.path.basename(page) != "python.md":  # its blocks run under pytest (tests/python/test_docs.py)
            r, f = python_doctests(page, root, build_python)
            doctests += r
            doctests_failed += f
            if f:
                failures.append(f"{page}: python doctest")
        page_examples = list(examples(page, root))
        if not page_examples:
            continue
        with tempfile.TemporaryDirectory(prefix="seprank-docs-") as folder:
            for name in ("data", "examples"):
                os.symlink(os.path.join(root, name), os.path.join(folder, name))
            os.mkdir(os.path.join(folder, "docs"))
            for ex in page_examples:
                where = f"{ex.page}:{ex.line}"
                first = ex.command.splitlines()[0]
                if ex.skip:
                    skipped.append(f"{where}: $ {first}  [{ex.skip}]")
                    continue
                ran += 1
                error, seconds = run(ex, cli_dir, folder, root)
                timings.append((seconds, where, first))
                if error:
                    failures.append(f"FAIL {where}: $ {first}\n    {error}")
                    print(failures[-1])
                else:
                    print(f"ok   {where}: $ {first} ({seconds:.2f} s)")
    os.remove(os.path.join(cli_dir, "seprank"))
    os.rmdir(cli_dir)
    print(f"\n{ran} commands run, {ran - len(failures) + doctests_failed} match their page, {len(failures)} fail, "
          f"{len(skipped)} skipped; {doctests} python doctest blocks, {doctests_failed} fail:")
    for s in skipped:
        print(f"  SKIP {s}")
    print("slowest: " + ", ".join(f"{w} {s:.1f} s" for s, w, _ in sorted(timings, reverse=True)[:5]))
    if ran == 0:
        print("FAIL: no command example found")
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
