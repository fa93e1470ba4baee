"""The package layering (import-linter's contract in pyproject.toml), module-level cycles, and
declared dependencies that are really used. Checked with import-linter and grimp, not by hand."""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import grimp
import pytest

from codemix import LAYERS
from tests.conftest import REPO_ROOT
from tests.layout import install_layout, lint_imports, package_dirs

PACKAGES = ("codemix", *LAYERS)


@pytest.fixture(scope="module")
def layout(tmp_path_factory) -> Path:
    return install_layout(tmp_path_factory.mktemp("layout"))


def test_the_layers_contract_holds_and_has_no_exceptions(layout: Path) -> None:
    config = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    (contract,) = [c for c in config["contracts"] if c["type"] == "layers"]
    assert "ignore_imports" not in contract and contract["layers"][0] == "codemix.mix"
    assert contract["layers"][-1].startswith("codemix.config")
    result = lint_imports(layout)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 kept, 0 broken" in result.stdout


def test_an_upward_import_breaks_the_contract(layout: Path, tmp_path: Path) -> None:
    """A deliberate violation in a copy of the installed tree: filters (layer 2) importing pipelines (layer 4)."""
    shutil.copytree(layout, tmp_path, dirs_exist_ok=True)
    lint_imports_ok = lint_imports(tmp_path)
    assert lint_imports_ok.returncode == 0, "guard: the copy itself is clean"
    with open(tmp_path / "codemix" / "filters" / "code.py", "a") as module:
        module.write("\nimport codemix.pipelines.build  # a lower layer reaching up\n")
    result = lint_imports(tmp_path)
    assert result.returncode != 0
    assert "codemix.filters.code -> codemix.pipelines.build" in result.stdout and "0 kept, 1 broken" in result.stdout


def test_every_package_folder_is_installed() -> None:
    """Each folder with an ``__init__.py`` under a layer is a package the wheel lists (or it would be left out)."""
    listed = set(tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    expected = set()
    for package, folder in package_dirs().items():
        for init in (REPO_ROOT / folder).rglob("__init__.py"):
            relative = init.parent.relative_to(REPO_ROOT / folder).parts
            expected.add(".".join((package, *relative)))
    assert len(expected) >= 11, "guard: the layers were found"
    assert expected == listed


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components with more than one member (an import cycle each)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for successor in graph[node]:
            if successor not in index:
                visit(successor)
                low[node] = min(low[node], low[successor])
            elif successor in on_stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    sys.setrecursionlimit(10_000)
    for node in graph:
        if node not in index:
            visit(node)
    return cycles


def test_no_module_imports_itself_through_others(layout: Path, monkeypatch) -> None:
    monkeypatch.syspath_prepend(str(layout))
    for name in [name for name in sys.modules if name == "codemix" or name.startswith("codemix.")]:
        monkeypatch.delitem(sys.modules, name)
    graph = grimp.build_graph("codemix", cache_dir=None)
    imports = {module: graph.find_modules_directly_imported_by(module) for module in graph.modules}
    assert len(imports) > 80, "guard: grimp saw the whole code base"
    assert strongly_connected(imports) == []


# Declared dependencies no module of ours imports, and the package that imports them at run time
# (each claim is checked in that package's installed sources below).
IMPORTED_BY_A_DEPENDENCY = {"regex": ("datatrove", "datatrove"), "spacy": ("datatrove", "datatrove"),
                            "psutil": ("megatron-core", "megatron"), "fasteners": ("datatrove", "datatrove")}

# Development tools that run rather than get imported, and where the project runs them.
RUN_AS_A_TOOL = {"pytest-timeout": ("pyproject.toml", "\ntimeout = "), "ruff": ("Makefile", "ruff check"),
                 "import-linter": ("tests/layout.py", "lint-imports"),
                 "moto": ("tests/pipelines/portable_services.py", '"-m", "moto.server"')}


def declared(group: str | None) -> list[str]:
    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]
    requirements = project["dependencies"] if group is None else project["optional-dependencies"][group]
    return [re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0] for requirement in requirements]


@functools.cache
def installed_packages() -> dict[str, list[str]]:
    """Top-level import names -> distributions: one scan of the installed metadata for every lookup."""
    return metadata.packages_distributions()


def import_names(distribution: str) -> set[str]:
    wanted = re.sub(r"[-_.]+", "-", distribution).lower()
    return {name for name, dists in installed_packages().items()
            if any(re.sub(r"[-_.]+", "-", d).lower() == wanted for d in dists) and not name.startswith("_")}


@functools.cache
def sources_under(root: Path) -> tuple[str, ...]:
    """The text of every ``.py`` file under ``root``, read once for all the names searched in it."""
    return tuple(path.read_text(encoding="utf-8", errors="replace") for path in root.rglob("*.py"))


def imports_in(roots: list[Path], name: str) -> bool:
    pattern = re.compile(rf"^\s*(?:import|from)\s+{re.escape(name)}\b|files\(\"{re.escape(name)}\"\)", re.MULTILINE)
    return any(pattern.search(text) for root in roots for text in sources_under(root))


def test_every_declared_dependency_is_used() -> None:
    code = [REPO_ROOT / folder for folder in package_dirs().values()]
    everything = code + [REPO_ROOT / "tests", REPO_ROOT / "bench"]
    for group, roots in ((None, code), ("dev", everything)):
        for distribution in declared(group):
            names = import_names(distribution)
            assert names, f"{distribution} is declared but not installed"
            if group == "dev" and distribution in RUN_AS_A_TOOL:
                file, usage = RUN_AS_A_TOOL[distribution]
                assert usage in (REPO_ROOT / file).read_text(), f"{distribution}: {file} no longer runs it"
                continue
            if distribution in IMPORTED_BY_A_DEPENDENCY:
                user, package = IMPORTED_BY_A_DEPENDENCY[distribution]
                site = Path(metadata.distribution(user).locate_file(package))
                assert any(imports_in([site], name) for name in names), f"{user} no longer imports {distribution}"
                continue
            assert any(imports_in(roots, name) for name in names), f"{distribution} is declared but never imported"


def test_nothing_imports_a_layer_by_its_folder_name(tmp_path: Path) -> None:
    """Outside a checkout only ``codemix.<layer>`` exists: every module imports, and the build's code
    fingerprint resolves, without a bare ``filters`` or ``pipelines`` (a checkout's cwd would hide one)."""
    script = ("import importlib, pkgutil, sys\n"
              "import codemix\n"
              "for layer in codemix.LAYERS:\n"
              "    package = importlib.import_module(f'codemix.{layer}')\n"
              "    for module in pkgutil.walk_packages(package.__path__, f'codemix.{layer}.'):\n"
              "        if not module.name.endswith('__main__'):\n"
              "            importlib.import_module(module.name)\n"
              "from codemix.pipelines.fingerprints import code_fingerprint\n"
              "code_fingerprint()\n"
              "print(sorted(name for name in sys.modules if name.split('.')[0] in codemix.LAYERS))\n")
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    result = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True,
                            timeout=600, check=False)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip().splitlines()[-1] == "[]"
