"""The checkout's wheel and sdist, built as pip builds them, and the installed layout for tools that
read packages from one folder (import-linter, grimp).

Both are built through setuptools' PEP 517 hooks (``build_sdist``, ``build_wheel``: what ``python -m
build --no-isolation`` and ``pip wheel --no-build-isolation`` call), offline, from a copy of the files
git would commit (tracked and untracked-but-not-ignored), so nothing left in the checkout (a stale
``build/`` or ``*.egg-info/``) leaks in. ``python -m tests.layout`` unpacks the wheel and runs
lint-imports on it; ``make test`` runs it first.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
import zipfile
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")
# setuptools' own PEP 517 backend, run in this interpreter (no isolated build environment, no index).
HOOK = "import sys, setuptools.build_meta as backend; print(getattr(backend, sys.argv[1])(sys.argv[2]))"


def package_dirs(repo: Path = REPO_ROOT) -> dict[str, str]:
    return tomllib.loads((repo / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]


def checkout_files(repo: Path = REPO_ROOT) -> list[str]:
    """What a commit of the checkout would hold now: tracked files as they are on disk (deleted ones
    left out) and new files git does not ignore."""
    listed = subprocess.run(["git", "-C", str(repo), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            capture_output=True, check=True).stdout.decode().split("\0")
    return sorted({name for name in listed if name and os.path.lexists(repo / name)})


def export_checkout(destination: Path, repo: Path = REPO_ROOT) -> Path:
    """Copy ``checkout_files`` into DESTINATION (links stay links), as a fresh clone would hold them."""
    for name in checkout_files(repo):
        target = destination / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if (repo / name).is_symlink():
            target.symlink_to(os.readlink(repo / name))
        else:
            shutil.copy2(repo / name, target)
    return destination


def build_hook(hook: str, source: Path, outdir: Path) -> Path:
    """Run the backend's ``build_sdist`` or ``build_wheel`` in ``source``; returns the file it wrote."""
    outdir.mkdir(parents=True, exist_ok=True)
    result = subprocess.run([sys.executable, "-c", HOOK, hook, str(outdir)], cwd=source, capture_output=True,
                            text=True, timeout=300, check=False)
    if result.returncode != 0:
        raise RuntimeError(f"{hook} failed in {source}:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return outdir / result.stdout.strip().splitlines()[-1]


@dataclass(frozen=True)
class Distributions:
    sdist: Path
    wheel: Path


def build_distributions(workdir: Path, repo: Path = REPO_ROOT) -> Distributions:
    """The sdist and the wheel of the checkout, built from one export of it under WORKDIR."""
    source = export_checkout(workdir / "source", repo)
    return Distributions(sdist=build_hook("build_sdist", source, workdir / "dist"),
                         wheel=build_hook("build_wheel", source, workdir / "dist"))


def unpack_wheel(wheel: Path, destination: Path) -> Path:
    """The wheel's files under DESTINATION, as an installer lays out site-packages; returns DESTINATION."""
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(destination)
    return destination


def install_layout(destination: Path, wheel: Path | None = None, repo: Path = REPO_ROOT) -> Path:
    """The checkout's wheel (WHEEL, or one built now) unpacked into DESTINATION; returns DESTINATION."""
    if wheel is None:
        with tempfile.TemporaryDirectory(prefix="codemix-wheel-") as folder:
            return unpack_wheel(build_distributions(Path(folder), repo).wheel, destination)
    return unpack_wheel(wheel, destination)


def lint_imports(layout: Path, config: Path = REPO_ROOT / "pyproject.toml") -> subprocess.CompletedProcess:
    return subprocess.run([str(LINT_IMPORTS), str(config), "--no-cache"],
                          cwd=layout, env={"PYTHONPATH": str(layout), "PATH": "/usr/bin:/bin"},
                          capture_output=True, text=True, timeout=300, check=False)


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="codemix-layout-") as folder:
        result = lint_imports(install_layout(Path(folder) / "site-packages"))
    sys.stdout.write(result.stdout)
    sys.stderr.write(result.stderr)
    return result.returncode


if __name__ == "__main__":
    sys.exit(main())
