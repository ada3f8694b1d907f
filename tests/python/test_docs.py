# docs/python.md is a walkthrough whose ```python blocks run here, in order, in one
# namespace; its excerpt numbers are also checked against the README's table.
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]


def python_blocks(text):
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M)


def readme_excerpt():
    """(family, dim, block_degree, depth) -> rank from the README's excerpt table."""
    rows = {}
    lines = (ROOT / "README.md").read_text().splitlines()
    header = next(i for i, l in enumerate(lines) if l.startswith("| family | tokens | dim |"))
    names = [c.strip() for c in lines[header].strip("|").split("|")]
    for line in lines[header + 2:]:
        if not line.startswith("|"):
            break
        cells = dict(zip(names, (c.strip() for c in line.strip("|").split("|"))))
        rows[(cells["family"], int(cells["dim"]), int(cells["block_degree"]), int(cells["depth"]))] = int(cells["rank"])
    return rows


def test_walkthrough_runs(tmp_path, monkeypatch, capsys):
    blocks = python_blocks((ROOT / "docs" / "python.md").read_text())
    assert len(blocks) >= 8
    monkeypatch.chdir(tmp_path)  # the plot is written here
    (tmp_path / "data").symlink_to(ROOT / "data")  # the walkthrough runs from the clone's root
    namespace = {"__name__": "python_md"}
    for i, block in enumerate(blocks):
        exec(compile(block, f"docs/python.md block {i + 1}", "exec"), namespace)
    out = capsys.readouterr().out
    assert "seprank.Network attention N=3" in out
    assert namespace["readme"] == readme_excerpt()
    assert ("wrote depth_efficiency_python.png" in out) == (tmp_path / "depth_efficiency_python.png").exists()
    assert "wrote depth_efficiency_python.png" in out or "matplotlib is not installed: plot skipped" in out


def test_library_md_example_is_the_compiled_one():
    # docs/library.md "Reading an answer" shows examples/read_answer.cpp whole; the
    # consumer suite builds and runs that file and compares it with the CLI
    # (examples/read_answer.check), so the page shows a program that is known to work.
    text = (ROOT / "docs" / "library.md").read_text()
    section = text[text.index('<a id="reading-an-answer"></a>'):]
    block = re.search(r"^```cpp\n(.*?)^```", section, flags=re.S | re.M).group(1)
    assert block == (ROOT / "examples" / "read_answer.cpp").read_text()
    check = (ROOT / "examples" / "read_answer.check").read_text().split()
    assert check[:2] == ["rank", "--matrix"] and (ROOT / "examples" / check[2]).exists()
    for name in ("RankKind", "RankAnswer", "Phases", "clear_denominators"):
        assert f"`{name}" in text, name
