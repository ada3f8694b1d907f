#!/usr/bin/env python3
"""src/ is in module folders that include only downward (docs/development.md, "Layers").

Reads every file of src/<folder>/ and fails, naming the file and the include, when it
includes a file of a higher folder: a private header as "folder/name.hpp", or a public
header seprank/name.hpp whose source is src/<folder>/name.cpp in a higher folder. Also
fails for a file directly in src/ (but meson.build), a folder not in the order, and a
source or header over 800 lines. A public header include/seprank/name.hpp belongs to the
folder of its source src/<folder>/name.cpp (error.hpp, with none, to base; the umbrella
seprank.hpp to none) and may include only public headers of that folder or below.
Usage: layering_test.py SOURCE_ROOT
"""
import pathlib, re, sys

ORDER = ['base', 'algebra', 'network', 'rank', 'analysis', 'study']  # lowest first
MAX_LINES = 800

root = pathlib.Path(sys.argv[1])
src = root / 'src'
bad = []
home = {}  # module name (file stem) -> folder
for p in src.rglob('*'):
    if p.is_file():
        rel = p.relative_to(src)
        if len(rel.parts) == 1:
            if p.name != 'meson.build': bad.append(f'src/{rel}: a file outside the module folders')
            continue
        if rel.parts[0] not in ORDER:
            bad.append(f'src/{rel}: folder {rel.parts[0]!r} is not one of {ORDER}')
            continue
        home[p.name.split('.')[0]] = rel.parts[0]
inc = re.compile(r'^\s*#\s*include\s+"(?:seprank/([a-z_0-9]+)\.hpp|(?:([a-z]+)/)?([a-z_0-9]+)\.hpp)"', re.M)
files = 0
for p in sorted(src.rglob('*.[ch]pp')):
    rel = p.relative_to(src)
    if len(rel.parts) != 2 or rel.parts[0] not in ORDER: continue
    files += 1
    here = ORDER.index(rel.parts[0])
    text = p.read_text()
    if p.suffix in ('.cpp', '.hpp') and text.count('\n') > MAX_LINES:
        bad.append(f'src/{rel}: {text.count(chr(10))} lines, more than {MAX_LINES}')
    for m in inc.finditer(text):
        public, folder, name = m.group(1), m.group(2), m.group(3)
        target = home.get(public) if public else (folder if folder else home.get(name) if (p.parent / f'{name}.hpp').exists() else None)
        if target is None or target not in ORDER: continue
        if ORDER.index(target) > here:
            bad.append(f'src/{rel}: includes {m.group(0).split(chr(34))[1]} of the higher folder {target}/')
home.setdefault('error', 'base')
headers = 0
for p in sorted((root / 'include' / 'seprank').glob('*.hpp')):
    if p.name == 'seprank.hpp': continue
    headers += 1
    mine = home.get(p.stem)
    if mine is None:
        bad.append(f'include/seprank/{p.name}: no source src/<folder>/{p.stem}.cpp places it in a folder')
        continue
    for m in inc.finditer(p.read_text()):
        target = home.get(m.group(1)) if m.group(1) else None
        if target in ORDER and ORDER.index(target) > ORDER.index(mine):
            bad.append(f'include/seprank/{p.name} (of {mine}/): includes seprank/{m.group(1)}.hpp of the higher folder {target}/')
print(f'{files} files in {len(ORDER)} folders ({" < ".join(ORDER)}), {headers} public headers')
if bad:
    print('\n'.join(bad))
    sys.exit(1)
print('every include points to its own folder or one below')
