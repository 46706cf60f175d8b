"""tagpipe's import layers: no import cycle, and no module imports a layer above its own.

Every module of tagpipe/ is parsed with `ast`, and every import in it -- at module level and
inside functions, which defer an import but still tie the two modules together -- is an
edge of the import graph (``from tagpipe.x import y`` is an edge to ``tagpipe.x.y`` when that
is a module, else to ``tagpipe.x``; a package's own ``__init__`` running before its
submodules is not an edge).  LAYERS is the one map of the layers, bottom to top, by module
prefix: a prefix covers a module and everything under it (the package root, ``tagpipe``,
covers only ``tagpipe/__init__.py``), the longest prefix wins, and a module may import its
own layer and those below.  A new module fails the test until it is placed in the map.
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "tagpipe"
ROOT = "tagpipe"
NATIVE = ("tagpipe._core",)  # compiled: a node of the graph with no file to parse

LAYERS = [  # bottom -> top
    ("core", ["tagpipe._core", "tagpipe._version"]),
    ("delegate", ["tagpipe._delegate"]),
    ("spec", ["tagpipe.spec"]),
    ("plan", ["tagpipe.plan"]),
    ("columns", ["tagpipe.columns", "tagpipe._threads"]),
    (
        "stages",
        [
            "tagpipe.classify",
            "tagpipe.pretokenizer",
            "tagpipe._kernels",
            "tagpipe.decoding",
            "tagpipe.encodings",
            "tagpipe.offsets",
        ],
    ),
    ("sequences", ["tagpipe.sequences"]),
    ("tokenizer", ["tagpipe.tokenizer"]),
    ("helpers", ["tagpipe.accelerate", "tagpipe.hub", "tagpipe.sentencepiece", "tagpipe.integrations"]),
    ("cli", ["tagpipe.cli", "tagpipe.__main__"]),
    ("package", [ROOT]),
]

# Cycles tolerated only until the change named beside them lands.  Each must still exist: when
# it is gone, the test says so, and its entry is deleted.
KNOWN_CYCLES: dict = {}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _is_module(name: str, known) -> bool:
    return name in known or any(name == n or name.startswith(n + ".") for n in NATIVE)


def imports(name: str, source: str, is_package: bool, known) -> list[tuple[str, int]]:
    """(the tagpipe module imported, line) for every import statement of module `name`
    (`is_package`: its source is a package's __init__.py)."""
    tree = ast.parse(source, name)
    package = name if is_package else name.rpartition(".")[0]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            for a in node.names:
                full = f"{base}.{a.name}"
                out.append((full if _is_module(full, known) else base, node.lineno))
    return [(m, line) for m, line in out if m == ROOT or m.startswith(ROOT + ".")]


def graph() -> dict[str, list[tuple[str, int]]]:
    return {
        name: imports(name, path.read_text(encoding="utf-8"), path.name == "__init__.py", FILES)
        for name, path in FILES.items()
    }


def layer_of(module: str):
    """(index, name) of the module's layer, by its longest prefix in LAYERS, or None."""
    best = None
    for i, (layer, prefixes) in enumerate(LAYERS):
        for p in prefixes:
            if module == p or (p != ROOT and module.startswith(p + ".")):
                if best is None or len(p) > best[2]:
                    best = (i, layer, len(p))
    return best[:2] if best else None


def cycles(edges: dict[str, list[tuple[str, int]]]) -> list[set[str]]:
    """The strongly connected components with more than one module, or a module importing itself
    (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w, _ in edges.get(v, []):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1 or any(w == v for w, _ in edges.get(v, [])):
                out.append(comp)

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


FILES = modules()
EDGES = graph()


def test_the_graph_is_read():
    assert {"tagpipe", "tagpipe.tokenizer", "tagpipe.cli.main"} <= set(EDGES)
    assert ("tagpipe._core",) == tuple(m for m, _ in EDGES["tagpipe._kernels"] if m == "tagpipe._core")


def test_every_module_is_in_a_layer():
    names = set(EDGES) | {m for targets in EDGES.values() for m, _ in targets}
    missing = sorted(m for m in names if layer_of(m) is None)
    assert not missing, f"modules in no layer of tests/test_layers.py LAYERS (place them there): {missing}"


def test_no_import_cycles():
    found = [frozenset(c) for c in cycles(EDGES)]
    new = [sorted(c) for c in found if c not in KNOWN_CYCLES]
    assert not new, f"import cycles: {new}"
    gone = [sorted(c) for c in KNOWN_CYCLES if c not in found]
    assert not gone, f"these cycles are gone: delete their KNOWN_CYCLES entries in tests/test_layers.py: {gone}"


def test_no_module_imports_a_layer_above_its_own():
    wrong = []
    for module, targets in sorted(EDGES.items()):
        (mine, name) = layer_of(module) or (len(LAYERS), "?")
        for target, line in targets:
            (theirs, their_name) = layer_of(target) or (-1, "?")
            if theirs > mine:
                wrong.append(
                    f"{module} (layer {name}) imports {target} (layer {their_name}): "
                    f"{FILES[module].relative_to(PACKAGE.parent)}:{line}"
                )
    assert not wrong, "imports upward:\n  " + "\n  ".join(wrong)


@pytest.mark.parametrize(
    "source, expected",
    [
        ("import tagpipe.tokenizer\n", {"tagpipe.tokenizer"}),
        ("from tagpipe import _core, tokenizer\n", {"tagpipe._core", "tagpipe.tokenizer"}),
        ("from tagpipe.tokenizer import Tokenizer\n", {"tagpipe.tokenizer"}),
        (
            "def f():\n    from . import corpus\n    from .resources import load_model\n",
            {"tagpipe.cli.corpus", "tagpipe.cli.resources"},
        ),
        ("from .. import hub\nfrom ..tokenizer import Tokenizer\n", {"tagpipe.hub", "tagpipe.tokenizer"}),
        ("import tagpipe\nimport numpy\n", {"tagpipe"}),
    ],
)
def test_imports_are_resolved(source, expected):
    assert {m for m, _ in imports("tagpipe.cli.main", source, False, FILES)} == expected
    assert {m for m, _ in imports("tagpipe.cli", "from . import bench\n", True, FILES)} == {"tagpipe.cli.bench"}


def test_a_missing_extension_is_named_not_a_namespace_package(tmp_path):
    """tagpipe/_core/ holds only the stubs: without the built _core*.so, importing tagpipe must
    say so instead of handing out the stub directory as an empty namespace package."""
    package = Path(__file__).resolve().parents[1] / "tagpipe"
    shutil.copytree(package, tmp_path / "tagpipe", ignore=shutil.ignore_patterns("*.so", "*.pyd", "__pycache__"))
    run = subprocess.run([sys.executable, "-c", "import tagpipe"], cwd=tmp_path, capture_output=True, text=True)
    assert run.returncode != 0
    assert "native extension tagpipe._core is not built" in run.stderr
