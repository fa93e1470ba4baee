"""The long stage's file order on a git repository whose import cycle sits upstream of a chain of files.

The greedy rule alone (fewest outstanding imports, ties by path) would take ``app.py`` first, since every
file then has one import outstanding; ordering by strongly connected components puts the cycle first and
the chain after it. Imports are read back with ``ast`` and cycles found by reachability, not by our code.
"""

from __future__ import annotations

import ast
import subprocess
import sysconfig
from pathlib import Path

import pyarrow.parquet as pq
import yaml
from megatron.core.datasets.indexed_dataset import IndexedDataset

from codemix.mix.cli import main as mix
from codemix.mixtures.inspect import read_manifest
from codemix.mixtures.repository import FILE_SEP
from codemix.mixtures.tokenizer import load_tokenizer

STDLIB = Path(sysconfig.get_path("stdlib"))
GIT = ["git", "-c", "user.name=codemix", "-c", "user.email=codemix@example.com", "-c", "init.defaultBranch=main"]

# path -> (its in-repository import, the real stdlib module its body is). z_core <-> z_types is the cycle;
# a_service -> z_core, b_api -> a_service, app -> b_api is the chain downstream of it.
LAYOUT = {
    "pkg/__init__.py": (None, "colorsys.py"),
    "pkg/z_core.py": ("from pkg import z_types", "bisect.py"),
    "pkg/z_types.py": ("from pkg import z_core", "heapq.py"),
    "pkg/a_service.py": ("from pkg import z_core", "fnmatch.py"),
    "pkg/b_api.py": ("from pkg import a_service", "shlex.py"),
    "app.py": ("from pkg import b_api", "textwrap.py"),
}


def in_repo_imports(path: str, text: str, paths: set[str]) -> set[str]:
    """Edges by Python's own parser: ``from pkg import m`` -> pkg/m.py, where that file exists."""
    edges = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                target = f"{node.module.replace('.', '/')}/{alias.name}.py"
                if target in paths and target != path:
                    edges.add(target)
    return edges


def reaches(graph: dict[str, set[str]], start: str, goal: str) -> bool:
    seen, todo = set(), [start]
    while todo:
        node = todo.pop()
        if node == goal:
            return True
        if node not in seen:
            seen.add(node)
            todo += graph.get(node, ())
    return False


def test_a_cycle_upstream_of_a_chain_comes_first_and_no_edge_outside_it_points_forward(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    texts = {}
    for path, (line, module) in LAYOUT.items():
        texts[path] = (f"{line}\n\n" if line else "") + (STDLIB / module).read_text()
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(texts[path])
    (repo / "LICENSE").write_text("MIT License\n\nPermission is hereby granted, free of charge, to any person "
                                  "obtaining a copy of this software.\n")
    subprocess.run([*GIT, "init", "-q", str(repo)], check=True)
    subprocess.run([*GIT, "-C", str(repo), "add", "-A"], check=True)
    subprocess.run([*GIT, "-C", str(repo), "commit", "-qm", "fixture"], check=True)
    spec = {"name": "order", "sources": [{"name": "code", "type": "git", "paths": [str(repo)], "license": "MIT"}],
            # Short enough that the repository becomes several documents, each a part of it.
            "stages": {"long": {"sequence_length": 16384, "token_budget": 100_000, "weights": {"code": 1}}},
            "tokenizer": {"vocab_size": 600, "train_sample_documents": 50}}
    (tmp_path / "spec.yaml").write_text(yaml.safe_dump(spec))
    out = tmp_path / "out"
    assert mix(["build", str(tmp_path / "spec.yaml"), "--out", str(out)]) == 0

    manifest = read_manifest(str(out))
    (prefix,) = manifest["stages"]["long"]["shards"]
    tokenizer = load_tokenizer(str(out / "tokenizer.json"))
    shard = IndexedDataset(prefix)  # held while its memory-mapped rows are read
    rows = pq.read_table(f"{prefix}.provenance.parquet").to_pylist()
    assert len(rows) == len(shard) > 1, "guard: the repository is split into several documents"
    parts = {}
    for row in rows:  # each document says which part of which repository it is, and its files in order
        text = tokenizer.decode(shard[row["document"]].tolist(), skip_special_tokens=False)
        files = [block.split("\n", 1)[0] for block in text.split(FILE_SEP)[1:]]
        assert (row["kind"], row["repo"], row["parts"], row["paths"]) == ("repo", rows[0]["repo"], len(rows), files)
        parts[row["part"]] = files
    assert sorted(parts) == list(range(len(rows)))
    order = [path for part in sorted(parts) for path in parts[part]]  # the parts follow one order
    assert sorted(order) == sorted([*LAYOUT, "LICENSE"])  # the license text is a file of the repository too

    graph = {path: in_repo_imports(path, texts[path], set(LAYOUT)) for path in LAYOUT}
    edges = [(path, target) for path, targets in graph.items() for target in targets]
    in_cycle = {edge for edge in edges if reaches(graph, edge[1], edge[0])}
    assert in_cycle == {("pkg/z_core.py", "pkg/z_types.py"), ("pkg/z_types.py", "pkg/z_core.py")}, "guard: one cycle"
    at = {path: i for i, path in enumerate(order)}
    forward = [(path, target) for path, target in edges if (path, target) not in in_cycle and at[target] > at[path]]
    assert forward == [], order
    assert order.index("app.py") == len(order) - 1  # the greedy rule alone would have taken it first
    report = manifest["stages"]["long"]["import_order"]
    assert report == {"repositories": 1, "files": len(order), "edges": len(edges), "cycles": 1,
                      "cycle_edges": len(in_cycle), "forward_outside_cycles": 0, "forward_inside_cycles": 1}
