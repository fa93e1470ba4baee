"""Vendored folders found from a repository's own evidence, and licenses per folder, on real layouts
(tests/filters/data/vendored/README.md names each repository and commit)."""

from __future__ import annotations

import dataclasses
import json
import sysconfig
from pathlib import Path

import pytest

from codemix.filters.licenses import detect_license, is_folder_license_evidence, is_license_evidence, is_license_file
from codemix.filters.reuse import license_evidence_of, resolve_licenses
from codemix.filters.vendored import holder_fact, may_say_vendored, vendored_tree, vendored_trees, vendoring_facts

DATA = Path(__file__).parent / "data" / "vendored"


def layout(name: str) -> dict[str, str]:
    return json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))


def trees_of(files: dict[str, str], repo: str = "", *, heads: bool = False):
    """The vendored trees of a layout from its declarations, license texts and manifests (and, with ``heads``, the
    holders its files' heads name, as the filter stage reads them)."""
    facts = []
    for path, text in files.items():
        if heads and (held := holder_fact(path, text)) is not None:
            facts.append(held)
        if may_say_vendored(path):
            license_file = is_license_file(path)
            facts += vendoring_facts(path, text, license_file=license_file,
                                     detected=detect_license(path, text) if license_file else None)
    return vendored_trees(facts, repo)


def licenses_of(files: dict[str, str]):
    return resolve_licenses(license_evidence_of(path, text) for path, text in files.items()
                            if is_license_evidence(path) or is_folder_license_evidence(path))


@pytest.mark.parametrize(("repository", "path", "evidence"), [
    # pip declares its vendored folder in pyproject.toml; vendor.txt names each package in it.
    ("pip", "src/pip/_vendor/certifi/core.py", "vendor.txt at src/pip/_vendor/"),
    ("pip", "src/pip/_vendor/requests/api.py", "vendor.txt at src/pip/_vendor/"),
    # Unity's README names its own copyright holders, not cJSON's; json-patch-tests has its own package.json.
    ("cjson", "tests/unity/src/unity.c", "own README.md at tests/unity/ naming"),
    ("cjson", "tests/json-patch-tests/README.md", "+ package.json at tests/json-patch-tests/"),
])
def test_vendored_tree_named_with_its_evidence(repository, path, evidence):
    files = layout(repository)
    assert path in files  # the fixture holds the file the case is about
    tree = vendored_tree(path, trees_of(files))
    assert tree is not None and evidence in tree.evidence


def test_declared_vendor_root_names_the_declaration():
    trees = {tree.folder: tree.evidence for tree in trees_of(layout("pip"))}
    assert trees["src/pip/_vendor"] == "[tool.vendoring] in pyproject.toml"


@pytest.mark.parametrize(("repository", "path"), [
    ("pip", "src/pip/__init__.py"),
    ("pip", "src/pip/_internal/network/session.py"),
    ("cjson", "cJSON.c"),
    ("cjson", "tests/parse_examples.c"),  # the repository's own tests beside the vendored test framework
    ("ripgrep", "crates/globset/src/lib.rs"),  # a workspace crate with copies of the root's license files
    ("ripgrep", "crates/core/main.rs"),
])
def test_own_code_is_not_vendored(repository, path):
    files = layout(repository)
    assert path in files
    assert vendored_tree(path, trees_of(files)) is None


@pytest.mark.parametrize(("repository", "path", "expected"), [
    ("pip", "src/pip/__init__.py", "MIT"),
    ("pip", "src/pip/_vendor/certifi/core.py", "MPL-2.0"),  # certifi's own license, not pip's MIT
    ("pip", "src/pip/_vendor/requests/api.py", "Apache-2.0"),
    ("cjson", "cJSON.c", "MIT"),
    ("ripgrep", "crates/globset/src/lib.rs", "Unlicense OR MIT"),  # its Cargo.toml, as at the root
])
def test_license_of_the_nearest_folder_up_the_tree(repository, path, expected):
    files = layout(repository)
    assert path in files
    assert licenses_of(files).for_path(path) == expected


def test_a_header_still_beats_the_folder_license():
    files = layout("pip")
    assert licenses_of(files).for_path("src/pip/_vendor/certifi/core.py", "MIT") == "MIT"


def test_git_config_files_are_the_repositorys_own():
    """linguist lists .gitignore among vendored paths for its statistics; it is the repository's own file."""
    from codemix.filters.vendored import is_vendored

    assert ".gitignore" in layout("pip")
    assert not is_vendored(".gitignore") and not is_vendored("tests/unity/.gitignore")
    assert is_vendored("node_modules/left-pad/index.js")  # the list still speaks for what it is about


@pytest.mark.parametrize("path", ["third_party/zlib/.gitignore", "deps/hiredis/.github/workflows/build.yml",
                                  "node_modules/left-pad/.gitattributes"])
def test_git_config_inside_a_vendored_folder_is_the_copied_projects(path):
    """The exemption is for the repository's own ``.github/`` and git config: inside a folder linguist calls
    vendored they came with the copy (redis-style ``deps/hiredis/.github/``)."""
    from codemix.filters.vendored import is_vendored

    assert is_vendored(path) and not is_vendored(path.split("/", 2)[-1])


# CPython's own module: "This is a copy of lib2to3.fixes.fix_imports.MAPPING" is a table of its own project.
COMPAT_PICKLE = Path(sysconfig.get_path("stdlib")) / "_compat_pickle.py"


def test_a_file_whose_head_says_it_is_a_copy_is_vendored_alone():
    """prometheus (d15adb9): ``_bootstrap_dark.scss`` opens "This file is a copy of ForEvolve/bootstrap-dark dark
    theme"; ``app.scss`` beside it is Prometheus' own, and so is CPython's ``_compat_pickle.py``, whose "This is a
    copy of" names a table, not a file. Read through the filter stage's per-document step."""
    from codemix.document import Document
    from codemix.pipelines.filter import vendored_file_or_tree, vendored_outcome

    files = layout("prometheus")
    found = {}
    for path, text in files.items():
        doc = Document(id=path, text=text, source="s", kind="file", repo="prometheus/prometheus", path=path,
                       language="scss", license="")
        found[path] = vendored_file_or_tree(doc, {})
    copied, own = (f"web/ui/react-app/src/themes/{name}" for name in ("_bootstrap_dark.scss", "app.scss"))
    assert found[own] is None
    assert found[copied].folder == copied and "This file is a copy of" in found[copied].evidence
    doc = Document(id="x", text=files[copied], source="s", kind="file", repo="prometheus/prometheus", path=copied)
    assert vendored_file_or_tree(Document(id="y", text=COMPAT_PICKLE.read_text(), source="s", kind="file",
                                          repo="python3.11", path="_compat_pickle.py"), {}) is None
    alone = vendored_outcome(doc, found[copied], "own_repository")  # a repository of one file
    assert (alone.repo, alone.path) == (f"prometheus/prometheus:{copied}", "_bootstrap_dark.scss")


def test_a_line_scoped_do_not_edit_is_not_a_generated_file():
    """tomli's ``__version__ = "2.4.1"  # DO NOT EDIT THIS LINE MANUALLY`` (a bump tool rewrites the line)."""
    from codemix.document import Document
    from codemix.filters.code import check_autogenerated
    from codemix.filters.config import CodeFilterConfig

    path = "src/pip/_vendor/tomli/__init__.py"
    text = layout("pip")[path]
    assert "DO NOT EDIT THIS LINE" in text
    doc = Document(id="t", text=text, source="s", kind="file", path=path, language="python")
    assert check_autogenerated(doc, CodeFilterConfig()) == (True, "")
    generated = Document(id="g", text="# Code generated by protoc-gen-go. DO NOT EDIT.\n" + text, source="s",
                         kind="file", path="x.py", language="python")
    assert check_autogenerated(generated, CodeFilterConfig()) == (False, "autogenerated")


def test_a_package_whose_manifest_names_this_repository_is_its_own():
    """Without the root's license files to compare holders with, ripgrep's globset crate (own LICENSE-MIT,
    own Cargo.toml) is told apart by its manifest's URL, github.com/BurntSushi/ripgrep: developed here."""
    files = {path: text for path, text in layout("ripgrep").items() if "/" in path}  # the root's files left out
    manifest = files["crates/globset/Cargo.toml"]
    assert "github.com/BurntSushi/ripgrep" in manifest and ".workspace = true" in manifest
    # Its workspace inheritance alone would say it too: left out, so the URL is what is tested.
    files["crates/globset/Cargo.toml"] = "\n".join(line for line in manifest.splitlines() if "workspace" not in line)
    assert vendored_tree("crates/globset/src/lib.rs", trees_of(files, "BurntSushi/ripgrep")) is None
    assert vendored_tree("crates/globset/src/lib.rs", trees_of(files, "someone/else")) is not None  # guard


def test_prose_about_copyright_names_no_holder():
    """A license's "copyright notice" lines are not holders; a holder line has a year or (c)."""
    from codemix.filters.vendored import copyright_holders

    text = layout("cjson")["LICENSE"]
    assert copyright_holders(text) == {"dave gamble"}
    assert "copyright notice" in text.lower()  # guard: the prose lines are there


@pytest.mark.parametrize(("name", "expected"), [("LICENSE-UNICODE", "Unicode-3.0"),
                                                ("LICENSE-UNICODE@d667a6c", "Unicode-DFS-2016")])
def test_unicode_licenses_are_not_read_as_mit_0(name, expected):
    """Vendored Unicode/ICU tables carry Unicode's license, whose grant reads like MIT's without its notice
    clause (what MIT-0 is): it was read as MIT-0, a permissive license it is not."""
    text = layout("unicode-ident")[name]
    assert "Permission is hereby granted, free of charge, to any person obtaining" in text
    assert detect_license("LICENSE-UNICODE", text) == expected


@pytest.mark.parametrize(("path", "copied"), [
    ("src/lzf.h", True),  # Marc Lehmann, 2000-2008: before the root's earliest year (Redis Ltd., 2006)
    ("src/strl.c", True),  # Todd C. Miller, 1998
    ("src/crc16.c", True),  # Georges Menie; its BSD clause protects "the University of California, Berkeley"
    ("src/mt19937-64.c", True),  # Matsumoto and Nishimura; "The names of its contributors may not be used"
    ("src/connection.c", False),  # zhenwei pi, 2022, MIT: a contributor's own file
    ("src/quicklist.c", False),  # Matt Stancliff, 2014, the root's BSD text naming Redis
    ("src/geo.c", False),
    ("src/ae.c", False),  # Redis Ltd.
])
def test_a_single_file_copied_in_without_saying_so(path: str, copied: bool):
    """valkey (55bbbe0): files copied into ``src/`` carry their authors' headers and no statement that they are
    copies. The expected answers are the hand-made list ``bench/repos_holdout_2_vendored.tsv`` (written from the tree
    before any code read it); the root's COPYING names Valkey contributors (2024) and Redis Ltd. (2006)."""
    from codemix.document import Document
    from codemix.pipelines.filter import resolve_vendored, vendored_file_or_tree

    files = layout("valkey")
    facts = [fact for p, text in files.items() if may_say_vendored(p)
             for fact in vendoring_facts(p, text, license_file=is_license_file(p),
                                         detected=detect_license(p, text) if is_license_file(p) else None)]
    key = "s\x00valkey-io/valkey"
    vendored = dict(resolve_vendored(key, facts))
    assert vendored[key].owner.first_year == 2006  # guard: the root's evidence was read
    doc = Document(id=path, text=files[path], source="s", kind="file", repo="valkey-io/valkey", path=path, language="c")
    found = vendored_file_or_tree(doc, vendored)
    assert (found is not None) == copied, found
    if copied:
        assert found.folder == path and "header names" in found.evidence
    truth = (Path(__file__).parents[2] / "bench" / "repos_holdout_2_vendored.tsv").read_text()
    assert (f"valkey-io/valkey\t{path}\t" in truth) == copied


def test_a_file_whose_banner_is_its_published_page_is_a_copy():
    """libzmq (6b708e4) keeps autoconf-archive's ``ax_check_vscript.m4`` in ``m4/``; its banner is that macro's page,
    ``https://www.gnu.org/software/autoconf-archive/ax_check_vscript.html``. libzmq's own ``src/zmq.cpp`` opens with
    an SPDX tag and no such URL; a banner URL naming the repository itself is no copy."""
    from codemix.document import Document
    from codemix.filters.vendored import published_page
    from codemix.pipelines.filter import vendored_file_or_tree

    files = layout("libzmq")
    macro = "m4/ax_check_vscript.m4"
    found = vendored_file_or_tree(Document(id="m", text=files[macro], source="s", kind="file", repo="zeromq/libzmq",
                                           path=macro), {})
    assert found is not None and "autoconf-archive/ax_check_vscript.html" in found.evidence
    assert vendored_file_or_tree(Document(id="z", text=files["src/zmq.cpp"], source="s", kind="file",
                                          repo="zeromq/libzmq", path="src/zmq.cpp"), {}) is None
    own = files[macro].replace("https://www.gnu.org/software/autoconf-archive/",
                               "https://github.com/zeromq/libzmq/blob/master/m4/")
    assert published_page(macro, own, "zeromq/libzmq") is None


def test_a_readme_saying_its_subfolders_are_copies():
    """gevent (04752c4) keeps CPython's test suites in ``src/greentest/3.10`` ... ``3.15``; the README beside them says
    "The test directories that begin with a number (e.g., 2.7 and 3.5) are copies of the standard library tests".
    Each subfolder is another project's; the README itself, beside them, is gevent's."""
    files = layout("gevent")
    trees = trees_of(files, "gevent/gevent")
    found = vendored_tree("src/greentest/3.12/test_ssl.py", trees)
    assert found is not None and found.folder == "src/greentest/3.12" and "are copies of" in found.evidence
    assert vendored_tree("src/greentest/README.rst", trees) is None
    assert vendored_tree("src/gevent/hub.py", trees) is None


def _judge(repository: str, repo: str, files: dict[str, str], path: str):
    """``vendored_file_or_tree`` for ``path`` with the evidence every file of ``files`` gives, as the filter stage
    gathers it (``vendoring_evidence``, then ``resolve_vendored``)."""
    from codemix.document import Document
    from codemix.pipelines.filter import resolve_vendored, vendored_file_or_tree, vendoring_evidence

    docs = {p: Document(id=p, text=t, source="s", kind="file", repo=repo, path=p) for p, t in files.items()}
    facts = [fact for doc in docs.values() for _, fact in vendoring_evidence(doc)]
    return vendored_file_or_tree(docs[path], dict(resolve_vendored(f"s\x00{repo}", facts)))


@pytest.mark.parametrize(("repository", "repo", "path", "said"), [
    # gevent (04752c4): "A vendored version of part of https://github.com/ionelmc/python-tblib"
    ("gevent", "gevent/gevent", "src/gevent/_tblib.py", "vendored version of part of https://github.com/ionelmc"),
    # its first line, "/* copied from Python-2.7.2/Modules/posixmodule.c */"
    ("gevent", "gevent/gevent", "src/gevent/libev/stathelper.c", "copied from Python-2.7.2/Modules/posixmodule.c"),
    # "The code is taken from twisted.python.win32 module." under Twisted's MIT text
    ("gevent", "gevent/gevent", "src/gevent/win32util.py", "taken from twisted.python.win32 module"),
    # yaml-cpp (c3f8112): "This file is an adjusted copy of https://github.com/jk-jeon/dragonbox"
    ("yaml-cpp", "jbeder/yaml-cpp", "src/contrib/dragonbox.h", "is an adjusted copy of"),
    # difftastic (9e2d60c): "This file is from https://github.com/rstudio/shiny, under the GPL v3."
    ("difftastic", "Wilfred/difftastic", "sample_files/r_1.R", "This file is from https://github.com/rstudio/shiny"),
    # "This file is under the GPLv2 license, as it is part of git source code."
    ("difftastic", "Wilfred/difftastic", "sample_files/makefile_1.mk", "part of git source code"),
    # "// Taken from https://doc.qt.io/qt-6/qmlapplications.html", its first line
    ("difftastic", "Wilfred/difftastic", "sample_files/qml_1.qml", "Taken from https://doc.qt.io/qt-6/"),
])
def test_a_file_saying_where_it_came_from_is_a_copy(repository, repo, path, said):
    """Each file's own opening says it came from another project (all in the third holdout's hand list,
    ``bench/repos_holdout_3_vendored.tsv``, written before any code read them); the detail quotes the words."""
    truth = (Path(__file__).parents[2] / "bench" / "repos_holdout_3_vendored.tsv").read_text()
    assert f"{repo}\t{path}\t" in truth  # guard: the hand list calls it a copy
    found = _judge(repository, repo, layout(repository), path)
    assert found is not None and found.folder == path and said in found.evidence, found


@pytest.mark.parametrize(("repository", "repo", "path"), [
    ("gevent", "gevent/gevent", "src/gevent/hub.py"),
    ("yaml-cpp", "jbeder/yaml-cpp", "src/emitterutils.cpp"),
    ("difftastic", "Wilfred/difftastic", "src/main.rs"),
    # delve (3b77598): "// Copied from src/syscall/ztypes_linux_ppc64le.go#L518-L532" above one struct, below the
    # package clause and imports: it is about that struct, not the file.
    ("delve", "go-delve/delve", "pkg/proc/linutil/regs_ppc64le_arch.go"),
])
def test_the_repositorys_own_files_say_no_such_thing(repository, repo, path):
    files = layout(repository)
    if repository == "delve":
        assert "Copied from src/syscall" in files[path]  # guard: the words are there, below the code
    assert _judge(repository, repo, files, path) is None


def test_a_package_inside_a_folder_named_for_others_code():
    """difftastic (9e2d60c) keeps tree-sitter grammars in ``vendored_parsers/``; ``tree-sitter-janet-simple/`` has
    its own package.json and Cargo.toml and no LICENSE (its package.json's license is empty), so the own-license
    rule cannot see it. Its own manifest, inside a folder whose name says vendored, can; difftastic's own root
    manifest is no such package."""
    files = layout("difftastic")
    assert not any(p.startswith("vendored_parsers/tree-sitter-janet-simple/") and is_license_file(p) for p in files)
    trees = trees_of(files, "Wilfred/difftastic")
    found = vendored_tree("vendored_parsers/tree-sitter-janet-simple/grammar.js", trees)
    assert found is not None and found.folder == "vendored_parsers/tree-sitter-janet-simple"
    assert "inside vendored_parsers/" in found.evidence
    assert vendored_tree("src/main.rs", trees) is None


def test_an_identical_file_in_several_folders_stating_its_terms_is_a_copy():
    """raylib (abe23bf) keeps the same ``raygui.h`` (the separate raygui project) beside its examples in seven
    folders; its opening comment states "LICENSE: zlib/libpng" at line 331. libzmq (6b708e4) keeps one
    ``libzmq.import.props`` per Visual Studio version in five folders: its own build files, which state no terms.
    The fixtures hold one copy each; the test lays it at the paths the repository holds it at."""
    raylib = layout("raylib")
    paths = [f"examples/{f}/raygui.h" for f in ("audio", "core", "models", "shaders", "shapes", "text", "textures")]
    files = {**{p: raylib["examples/core/raygui.h"] for p in paths}, "src/raylib.h": raylib["src/raylib.h"]}
    found = _judge("raylib", "raysan5/raylib", files, "examples/audio/raygui.h")
    assert found is not None and "the same text in 7 folders" in found.evidence
    assert _judge("raylib", "raysan5/raylib", files, "src/raylib.h") is None
    single = {"examples/core/raygui.h": raylib["examples/core/raygui.h"], "src/raylib.h": raylib["src/raylib.h"]}
    assert _judge("raylib", "raysan5/raylib", single, "examples/core/raygui.h") is None  # one copy is no evidence
    props = layout("libzmq")["builds/deprecated-msvc/vs2010/libzmq.import.props"]
    builds = {f"builds/deprecated-msvc/vs{v}/libzmq.import.props": props for v in (2010, 2012, 2013, 2015, 2017)}
    assert _judge("libzmq", "zeromq/libzmq", builds, "builds/deprecated-msvc/vs2012/libzmq.import.props") is None


def test_a_readme_saying_its_folder_is_developed_as_a_separate_project():
    """uBlock (fe277a4): ``src/lib/lz4/README.md`` says "The files in this directory are developed as a separate
    project at: https://github.com/gorhill/lz4-wasm" (the same author's other repository, in the hand list
    ``bench/repos_holdout_3_vendored.tsv``); uBlock's own ``src/js/wasm/README.md`` says no such thing."""
    files = layout("ublock")
    assert "developed as a separate project" in files["src/lib/lz4/README.md"]  # guard
    trees = trees_of(files, "gorhill/uBlock")
    found = vendored_tree("src/lib/lz4/lz4-block-codec-js.js", trees)
    assert found is not None and found.folder == "src/lib/lz4" and "developed as a separate" in found.evidence
    assert vendored_tree("src/js/wasm/biditrie.wat", trees) is None


def test_a_folder_beside_vendored_trees_in_a_folder_named_for_others_code():
    """difftastic (9e2d60c): ``vendored_parsers/`` holds four grammars that are vendored trees by their own evidence
    (kotlin, latex, smali: own LICENSE + package.json; janet-simple: own package.json) and ``highlights/``, queries
    copied from grammars' repositories with no evidence of their own (the hand list calls it vendored). The folder's
    name and its siblings together make it another project's; the siblings alone, or the name alone, do not."""
    files = layout("difftastic")
    repo, query = "Wilfred/difftastic", "vendored_parsers/highlights/ada.scm"
    found = _judge("difftastic", repo, files, query)
    assert found is not None and found.folder == "vendored_parsers/highlights" and "beside 4 vendored trees" in found.evidence
    renamed = {p.replace("vendored_parsers/", "grammars/"): t for p, t in files.items()}
    assert _judge("difftastic", repo, renamed, query.replace("vendored_parsers/", "grammars/")) is None  # no name
    alone = {p: t for p, t in files.items() if not p.startswith("vendored_parsers/tree-sitter-")}
    assert _judge("difftastic", repo, alone, query) is None  # a name, no siblings


# The spent fourth holdout (tests/filters/data/vendored/README.md): copies a repository declares in its own lists.
@pytest.mark.parametrize(("repository", "path", "evidence"), [
    ("ccache", "src/third_party/cpp-httplib/httplib.h", "LICENSE.adoc's section on src/third_party/cpp-httplib/httplib.h"),
    ("ccache", "src/third_party/fmt/fmt/format.h", "section on src/third_party/fmt/fmt/*.h"),
    ("ccache", "src/third_party/fmt/fmt/format.cc", "section on src/third_party/fmt/fmt/format.cc"),
    ("ccache", "src/third_party/win32-compat/win32/mktemp.c", "section on src/third_party/win32-compat/win32/mktemp.*"),
    ("premake", "contrib/curl/lib/inet_pton.c", "contrib/VERSIONS.txt lists curl 8.11"),
    ("premake", "contrib/curl/premake5.lua", "contrib/VERSIONS.txt lists curl"),  # the hand list names contrib/curl whole
    ("premake", "contrib/lua/src/lua.h", "contrib/VERSIONS.txt lists lua 5.3.5"),
    ("freshrss", "lib/simplepie/simplepie/src/Misc.php", "composer.json at lib/ installs simplepie/simplepie into './'"),
])
def test_a_copy_the_repository_lists_in_its_own_files(repository, path, evidence):
    files = layout(repository)
    assert path in files
    tree = vendored_tree(path, trees_of(files, repository))
    assert tree is not None and evidence in tree.evidence, tree


@pytest.mark.parametrize(("repository", "repo", "path"), [
    # ccache's own build files beside the copies they wire in: a CMakeLists.txt without project() is no package.
    ("ccache", "ccache/ccache", "src/third_party/fmt/CMakeLists.txt"),
    ("ccache", "ccache/ccache", "src/third_party/blake3/CMakeLists.txt"),
    ("ccache", "ccache/ccache", "src/ccache/ccache.cpp"),
    ("premake", "premake/premake-core", "src/host/premake.c"),
    ("freshrss", "FreshRSS/FreshRSS", "lib/Minz/ActionController.php"),  # beside composer's packages in lib/
    # The Nord theme's own LICENSE names Joel Garcia, not the root's; its README says it is a theme "for FreshRSS".
    ("freshrss", "FreshRSS/FreshRSS", "p/themes/Nord/metadata.json"),
])
def test_the_repositorys_own_files_beside_listed_copies(repository, repo, path):
    files = layout(repository)
    assert path in files
    assert vendored_tree(path, trees_of(files, repo)) is None


def test_a_theme_written_for_the_repository_is_told_by_its_readme():
    """Guard for the case above: under a root text naming a holder (FreshRSS's AGPL text, a holder's line put above
    it), the Nord theme's own LICENSE (Joel Garcia) makes it another project's without its README's "for
    [FreshRSS]", and the README still answers. The AGPL text's own line (the FSF's) names no holder:
    ``test_a_license_texts_own_copyright_is_no_holder``."""
    files = layout("freshrss")
    files["LICENSE.txt"] = "Copyright (C) 2012 Marien Fressinaud\n\n" + files["LICENSE.txt"]
    assert vendored_tree("p/themes/Nord/metadata.json", trees_of(files, "FreshRSS/FreshRSS")) is None
    del files["p/themes/Nord/README.md"]
    tree = vendored_tree("p/themes/Nord/metadata.json", trees_of(files, "FreshRSS/FreshRSS"))
    assert tree is not None and "joel garcia" in tree.evidence


def _judged(repository: str, repo: str, files: dict[str, str] | None = None):
    """Each fixture file's ``vendored_file_or_tree`` answer and whether it names the repository's people, with the
    repository's evidence read as the filter stage reads it (its holders counted from the files' heads)."""
    from codemix.document import Document
    from codemix.filters.vendored import RepositoryOwner, names_owner
    from codemix.pipelines.filter import (
        license_evidence,
        resolve_repository_license,
        resolve_vendored,
        vendored_file_or_tree,
        vendoring_evidence,
    )

    docs = [Document(id=path, text=text, source="s", kind="file", repo=repo, path=path, language="")
            for path, text in (files or layout(repository)).items()]
    key = f"s\x00{repo}"
    vendored = dict(resolve_vendored(key, [fact for doc in docs for _, fact in vendoring_evidence(doc)]))
    licenses = dict([resolve_repository_license(key, [ev for doc in docs for _, ev in license_evidence(doc)])])
    owner = vendored[key].owner if key in vendored else RepositoryOwner()  # a repository naming no one, nothing found
    return owner, {doc.path: (vendored_file_or_tree(doc, vendored, licenses[key].for_path(doc.path)),
                              names_owner(doc.path, doc.text, owner)) for doc in docs}


def test_copies_whose_header_points_to_a_license_file_their_folders_lack():
    """hugo (7b5199f): its root LICENSE is Apache-2.0 naming no one; its own files name "The Hugo Authors". Go's
    templates copied in say "Copyright 2011 The Go Authors ... governed by a BSD-style license that can be found in
    the LICENSE file", a file their folders do not hold."""
    owner, found = _judged("hugo", "gohugoio/hugo")
    assert owner.people == ("the hugo authors",) and not owner.holders
    copied = found["tpl/internal/go_templates/texttemplate/exec.go"][0]
    assert copied is not None and "points to a BSD-3-Clause license file" in copied.evidence
    assert "taken from https://golang.org/cl/43652" in found["tpl/math/round.go"][0].evidence
    assert "temporary fork of https://github.com/josharian/vitter" in found["tpl/collections/vitter.go"][0].evidence
    # Its own packages under folders linguist lists (``(^|/)cache/``, ``^deps/``) name its people.
    for own in ("cache/filecache/filecache.go", "deps/deps.go", "hugolib/site.go"):
        assert found[own] == (None, True), own
    assert found["tpl/internal/go_templates/texttemplate/exec.go"][1] is False


def test_a_copy_older_than_the_repositorys_people():
    """CyberChef (2e048b0): a bare Apache-2.0 root; its files say "@copyright Crown Copyright 2016..."; Dojo's
    Blowfish (2005, BSD) is a copy, its own ``vendor/ascon.mjs`` (Crown Copyright 2025) is not."""
    owner, found = _judged("cyberchef", "gchq/CyberChef")
    assert owner.people == ("crown copyright",) and owner.people_year == 2016 and not owner.holders
    blowfish = found["src/core/lib/Blowfish.mjs"][0]
    assert blowfish is not None and "'the dojo foundation' from 2005" in blowfish.evidence
    assert found["src/core/vendor/ascon.mjs"] == (None, True)


def test_what_a_comment_below_the_includes_says_is_about_one_part():
    """nlohmann/json's ``cpp_future.hpp``: "The following code is taken from https://github.com/abseil/..." at line 40,
    below its includes, is about one template; hugo's ``round.go`` says the same in the comment it opens with."""
    from codemix.filters.vendored import copied_file_statement

    text = layout("nlohmann-json")["include/nlohmann/detail/meta/cpp_future.hpp"]
    assert "The following code is taken from https://github.com/abseil" in text
    assert copied_file_statement(text, "nlohmann/json") is None
    assert copied_file_statement(layout("hugo")["tpl/math/round.go"], "gohugoio/hugo") is not None


def test_a_license_texts_own_copyright_is_no_holder():
    """SteamKit (the fifth holdout, spent): its root LGPL-2.1 text's only copyright line is the license document's own
    ("Copyright (C) 1991, 1999 Free Software Foundation, Inc. ... Everyone is permitted to copy and distribute verbatim
    copies of this license document"); its library folder's ``license.txt`` names the project, "Ryan Stecker & SteamRE
    Team". The FSF is not the repository's holder, so that folder is not another project's."""
    from codemix.filters.vendored import copyright_holders

    files = layout("steamkit")
    assert "Free Software Foundation" in files["LICENSE"].split("Preamble")[0]  # guard: the text's own copyright line
    assert copyright_holders(files["LICENSE"]) == frozenset()
    assert copyright_holders(files["SteamKit2/SteamKit2/license.txt"]) == {"ryan stecker & steamre team"}
    assert vendored_tree("SteamKit2/SteamKit2/Steam/CMClient.cs", trees_of(files, "SteamRE/SteamKit")) is None
    # The same folder under a root text naming a holder the folder's text does not name is still a copy.
    named = {**files, "LICENSE": "Copyright (C) 2018 Jane Doe\n\n" + files["LICENSE"]}
    assert vendored_tree("SteamKit2/SteamKit2/Steam/CMClient.cs", trees_of(named, "SteamRE/SteamKit")) is not None


def test_under_a_gnu_root_the_repositorys_people_name_it():
    """uBlock (the third holdout, spent): its root GPL-3.0 text names only the FSF, the license document's own line;
    its own files name "Raymond Hill" (the most named of its people), so CodeMirror's folder, whose LICENSE names
    Marijn Haverbeke, is still a copy (SteamKit's files name no one, and nothing stands in there)."""
    from codemix.document import Document
    from codemix.pipelines.filter import resolve_vendored, vendoring_evidence

    files = layout("ublock")
    docs = [Document(id=p, text=t, source="s", kind="file", repo="gorhill/uBlock", path=p) for p, t in files.items()]
    facts = [fact for doc in docs for _, fact in vendoring_evidence(doc)]
    vendored = dict(resolve_vendored("s\x00gorhill/uBlock", facts))["s\x00gorhill/uBlock"]
    tree = vendored_tree("src/lib/codemirror/LICENSE", vendored.trees)
    assert tree is not None and "marijn haverbeke" in tree.evidence and "raymond hill" in tree.evidence
    assert vendored_tree("src/js/start.js", vendored.trees) is None


def test_a_linguist_folder_inside_the_projects_own_package():
    """caffeine (the fifth holdout, spent): linguist's ``(^|/)cache/`` matches its own Java package
    ``com.github.benmanes.caffeine.cache``; each file declares the package its folders spell, so the folder is part
    of the project's package tree. The same files below a ``vendor/`` folder, or a ``cache/`` folder above the
    package, are still vendored by the path."""
    from codemix.document import Document
    from codemix.filters.apply import DocumentFilter
    from codemix.filters.config import FiltersConfig
    from codemix.filters.vendored import in_own_package, is_vendored

    document_filter = DocumentFilter(FiltersConfig())
    for path, text in layout("caffeine").items():
        assert is_vendored(path)  # guard: the path list calls it vendored
        assert in_own_package(path, text)
        doc = Document(id=path, text=text, source="s", kind="file", repo="ben-manes/caffeine", path=path)
        assert document_filter.path_drop_reason(doc) is None
        for elsewhere in ("vendor/" + path, path.replace("/java/com/", "/java/cache/com/", 1)):
            assert not in_own_package(elsewhere, text)
            assert document_filter.path_drop_reason(dataclasses.replace(doc, path=elsewhere)) == "vendored_path"
    # A package declaration the folders do not spell names no package tree (a copy keeps its own package).
    text = layout("caffeine")["caffeine/src/main/java/com/github/benmanes/caffeine/cache/Buffer.java"]
    assert not in_own_package("src/main/java/org/other/cache/Buffer.java", text)


def test_a_python_module_inside_its_own_package_path():
    """sympy 1.14.0's ``sympy/external/gmpy.py`` (linguist's ``(^|/)external/``) imports ``from sympy.external import
    import_module``: its folders spell its own package, ``external`` below the outermost ``sympy``. The same text in
    a folder its imports do not spell, or with ``external/`` as the outermost folder its imports show, is still
    vendored by the path."""
    from codemix.filters.vendored import in_own_package, is_vendored, package_folders

    text = layout("sympy")["sympy/external/gmpy.py"]
    assert is_vendored("sympy/external/gmpy.py")  # guard: the path list calls it vendored
    assert package_folders("sympy/external/gmpy.py", text) == 2
    assert in_own_package("sympy/external/gmpy.py", text)
    assert not in_own_package("other/external/gmpy.py", text)  # one dot: only its own folder is shown a package
    assert not in_own_package("vendor/sympy/external/gmpy.py", text)


def test_a_header_granting_other_terms_in_another_holders_name():
    """caffeine (ccef955; the fifth holdout, spent): Apache-2.0, its own files name Ben Manes. Eclipse Collections' tests
    copied into its own package ("Copyright (c) 2021 Goldman Sachs ... made available under the terms of the Eclipse
    Public License v1.0") and JSR-166's ("Written by Doug Lea ... released to the public domain") grant themselves
    under another holder's terms of another family: copies, in the hand list. Its adapters beside them are its own;
    Guava's test under the same Apache-2.0 (2017, after caffeine's people's year) is told by nothing here."""
    truth = (Path(__file__).parents[2] / "bench" / "repos_holdout_5_vendored.tsv").read_text()
    owner, found = _judged("caffeine-copies", "ben-manes/caffeine")
    assert owner.people == ("ben manes",)  # guard: the repository's people were read (two Eclipse files: not people)
    eclipse, jsr166 = "caffeine/src/eclipseTest/java/com/github/benmanes/caffeine/eclipse/", \
        "caffeine/src/jsr166Test/java/com/github/benmanes/caffeine/jsr166/"
    for copy, said in [(eclipse + "mutable/Key.java", "'goldman sachs' under EPL-1.0"),
                       (eclipse + "mutable/Sum.java", "'goldman sachs' under EPL-1.0"),
                       # "released to the public domain, as explained at http://creativecommons.org/publicdomain/zero/1.0/"
                       (jsr166 + "MapTest.java", "'doug lea and martin buchholz' under CC0-1.0"),
                       (jsr166 + "Item.java", "'doug lea' under CC0-1.0")]:
        assert f"\t{copy}\t" in truth or "\tcaffeine/src/jsr166Test/" in truth  # guard: the hand list calls it a copy
        assert found[copy][0] is not None and said in found[copy][0].evidence, (copy, found[copy])
    for own in (eclipse + "mutable/CaffeineMutableMapTestCase.java", eclipse + "ConcurrentMapAdapter.java",
                jsr166 + "package-info.java", "caffeine/src/main/java/com/github/benmanes/caffeine/cache/Caffeine.java",
                "guava/src/compatibilityTest/java/com/github/benmanes/caffeine/guava/LocalCacheMapComputeTest.java"):
        assert found[own][0] is None, own


@pytest.mark.parametrize(("path", "copied"), [
    ("src/setproctitle.c", True),  # William Ahern 2010, then Redis Ltd. 2013: MIT under the root's BSD
    ("src/siphash.c", True),  # Jean-Philippe Aumasson 2012: CC0, "This version was modified by Redis Ltd."
    ("src/crcspeed.c", True),  # Mark Adler 2013: zlib's terms
    ("src/connection.c", False),  # zhenwei pi, MIT, 2022; his unix.c 2022, setcpuaffinity.c 2020, rdma.c 2021
    ("src/unix.c", False),
    ("src/setcpuaffinity.c", False),
    ("src/quicklist.c", False),
])
def test_other_terms_in_another_holders_name_in_a_bsd_tree(path, copied):
    """valkey (55bbbe0): files copied into ``src/`` grant themselves under their authors' own terms (MIT, CC0, zlib)
    in a BSD-3-Clause tree; a contributor whose MIT headers carry several years (2020 to 2022) writes for the
    repository under terms of his own. Expected answers: the hand list ``bench/repos_holdout_2_vendored.tsv``."""
    truth = (Path(__file__).parents[2] / "bench" / "repos_holdout_2_vendored.tsv").read_text()
    assert (f"valkey-io/valkey\t{path}\t" in truth) == copied
    owner, found = _judged("valkey", "valkey-io/valkey")
    assert "zhenwei pi" in owner.returning  # guard: his files' years were read
    assert (found[path][0] is not None) == copied, found[path]
    if copied:
        assert "header names" in found[path][0].evidence and "bsd-3-clause" in found[path][0].evidence.lower()


def test_a_copyright_below_the_code_is_about_a_part():
    """YOURLS (b8c7882; the fifth holdout, spent): its own ``js/common.js`` runs 108 lines of its code, then appends
    the jQuery cookie plugin ("Copyright (c) 2006 Klaus Hartl", before YOURLS's 2009): the file is YOURLS's (the hand
    list does not name it). ``includes/functions-kses.php`` opens, after ``<?php`` and YOURLS's note, with kses'
    header (Ulf Harnhammar 2002): a copy, in the hand list."""
    from codemix.filters.vendored import file_header

    truth = (Path(__file__).parents[2] / "bench" / "repos_holdout_5_vendored.tsv").read_text()
    files = layout("yourls")
    assert "Copyright (c) 2006 Klaus Hartl" in files["js/common.js"]  # guard: the appended header is in the fixture
    assert "Klaus Hartl" not in file_header(files["js/common.js"])
    _, found = _judged("yourls", "YOURLS/YOURLS")
    assert found["js/common.js"][0] is None and "YOURLS/YOURLS\tjs/common.js\t" not in truth
    kses = found["includes/functions-kses.php"][0]
    assert kses is not None and "'ulf harnhammar' from 2002" in kses.evidence
    assert "YOURLS/YOURLS\tincludes/functions-kses.php\t" in truth


def test_a_header_naming_another_projects_release():
    """YOURLS (b8c7882): ``js/jquery.notifybar.js`` opens "Notify Bar - jQuery plugin * Copyright (c) 2009-2010 Dmitri
    Smirnov ... Version: 1.2.2 ... Project home: http://www.dmitri.me/blog/notify-bar": MIT like YOURLS, not older
    than YOURLS's 2009, but a release of its own project (in the hand list). YOURLS's own files name no such thing."""
    truth = (Path(__file__).parents[2] / "bench" / "repos_holdout_5_vendored.tsv").read_text()
    _, found = _judged("yourls", "YOURLS/YOURLS")
    notify = found["js/jquery.notifybar.js"][0]
    assert notify is not None and "'Version: 1.2.2'" in notify.evidence and "dmitri.me" in notify.evidence
    assert "YOURLS/YOURLS\tjs/jquery.notifybar.js\t" in truth or "YOURLS/YOURLS\tjs/jquery.notifybar.js" in truth
    assert found["js/common.js"][0] is None


def _evidence_trees(repository: str, repo: str):
    """The vendored trees of a fixture with all the evidence the filter stage reads (its files' holders too)."""
    from codemix.document import Document
    from codemix.pipelines.filter import vendoring_evidence

    docs = [Document(id=p, text=t, source="s", kind="file", repo=repo, path=p) for p, t in layout(repository).items()]
    return vendored_trees([fact for doc in docs for _, fact in vendoring_evidence(doc)], repo)


def test_copies_in_a_swift_package_under_a_bare_license():
    """apple/swift-nio (6301857): its root ``LICENSE.txt`` is the bare Apache-2.0 text; its own files name "Apple Inc.
    and the SwiftNIO project authors". ``Sources/CNIOLLHTTP/`` carries llhttp's MIT ``LICENSE`` ("Copyright Fedor
    Indutny, 2018"): the repository's people stand in for the root's holders, so the folder is another project's.
    ``Sources/CNIOAtomics/src/cpp_magic.h`` opens "this is https://github.com/18sg/uSHET/blob/.../lib/cpp_magic.h"."""
    tree = vendored_tree("Sources/CNIOLLHTTP/c_nio_api.c", _evidence_trees("swift-nio", "apple/swift-nio"))
    assert tree is not None and tree.folder == "Sources/CNIOLLHTTP" and "fedor indutny" in tree.evidence
    _, found = _judged("swift-nio", "apple/swift-nio")
    assert "18sg/uSHET" in found["Sources/CNIOAtomics/src/cpp_magic.h"][0].evidence
    for own in ("Sources/NIOCore/Channel.swift", "Sources/NIOPosix/Bootstrap.swift"):
        assert found[own][0] is None, own


def test_a_java_package_copied_under_its_authors_terms():
    """FasterXML/jackson-core (b367da1): ``com/fasterxml/jackson/core/io/schubfach/`` holds Raffaello Giulietti's
    Schubfach ("Copyright 2018-2020 Raffaello Giulietti", MIT) in jackson's own package, under jackson's bare Apache-2.0
    LICENSE; its own files name Tatu Saloranta."""
    owner, found = _judged("jackson-core", "FasterXML/jackson-core")
    assert owner.people == ("tatu saloranta tatu saloranta@iki fi",)  # guard: the people were read
    schubfach = "src/main/java/com/fasterxml/jackson/core/io/schubfach/"
    for copy in (schubfach + "DoubleToDecimal.java", schubfach + "MathUtils.java"):
        assert "'raffaello giulietti' under MIT" in found[copy][0].evidence
    assert found["src/main/java/com/fasterxml/jackson/core/JsonFactory.java"][0] is None


def test_erlang_packages_and_files_vendored_into_rebar3():
    """erlang/rebar3 (e8147e3): ``vendor/bbmustache/`` carries its own LICENSE (Hinagiku Soranoba) and ``rebar.config``;
    ``apps/rebar/src/vendored/r3_hex_core.erl`` opens "Vendored from hex_core v0.18.0". ``rebar_prv_shell.erl`` is
    MIT by Trifork under rebar3's Apache-2.0, but its header names the project ("rebar: Erlang Build Tools"): its own."""
    tree = vendored_tree("vendor/bbmustache/src/bbmustache.erl", _evidence_trees("rebar3", "erlang/rebar3"))
    assert tree is not None and tree.folder == "vendor/bbmustache"
    _, found = _judged("rebar3", "erlang/rebar3")
    assert "Vendored from hex_core v0.18.0" in found["apps/rebar/src/vendored/r3_hex_core.erl"][0].evidence
    assert "Copyright (c) 2011 Trifork" in layout("rebar3")["apps/rebar/src/rebar_prv_shell.erl"]  # guard
    for own in ("apps/rebar/src/rebar_prv_shell.erl", "apps/rebar/src/rebar3.erl"):
        assert found[own][0] is None, own


def test_a_bsd_holder_on_the_line_below_its_years():
    """r-lib/fs (81211aa): ``src/bsd/setmode.c`` and ``strmode.c`` are NetBSD's, "Copyright (c) 1989, 1993, 1994" over
    "The Regents of the University of California.  All rights reserved."; fs's own LICENSE names "fs authors" (2025).
    ``src/windows/getmode.cc`` ("code adapted from https://cgit.freedesktop.org/libbsd/...") names UC below its code."""
    _, found = _judged("r-lib-fs", "r-lib/fs")
    for copy in ("src/bsd/setmode.c", "src/bsd/strmode.c", "src/bsd/reallocarray.c"):
        assert found[copy][0] is not None, copy
    assert "'the regents of the university of california' from 1989" in found["src/bsd/setmode.c"][0].evidence
    for own in ("src/windows/getmode.cc", "src/fs.cc"):
        assert found[own][0] is None, own


def test_an_authors_own_distributions_under_a_root_without_license():
    """cpanminus has no root license; each of its author's CPAN distributions carries its own LICENSE and Makefile.PL.
    Those naming the holder its folders share, or whose META.json names this repository, are its own; a copied
    distribution of another holder (Spreadsheet-Read), or of the same author but whose META.json names its own
    repository (Hash-MultiValue 1.200), stays a copy."""
    files = layout("cpanminus")
    assert not any(path.count("/") == 0 for path in files)  # no root license text in the fixture (nor the repository)
    trees = {tree.folder for tree in trees_of(files, "miyagawa/cpanminus")}
    assert trees == {"App-cpanminus/testdist/Hash-MultiValue-1.200", "App-cpanminus/testdist/Spreadsheet-Read-0.48"}
    # Without the META.json files, the holder the distributions' texts share still says they are the repository's.
    bare = {path: text for path, text in files.items() if not path.endswith("META.json")}
    assert {tree.folder for tree in trees_of(bare, "miyagawa/cpanminus")} == {
        "App-cpanminus/testdist/Hash-MultiValue-1.200", "App-cpanminus/testdist/Spreadsheet-Read-0.48"} - {
        "App-cpanminus/testdist/Hash-MultiValue-1.200"}


def test_a_copy_larger_than_the_project_declared_by_its_copyright_record():
    """RcppArmadillo's 644 Armadillo headers outnumber its own files, so their holder is the one its files name most;
    its ``inst/COPYRIGHTS`` record still says whose they are, and the package's own headers stay its own."""
    files = layout("rcpparmadillo")
    assert "Conrad Sanderson" in files["inst/include/armadillo_bits/Mat_bones.hpp"]
    trees = trees_of(files, "RcppCore/RcppArmadillo")
    assert vendored_tree("inst/include/armadillo_bits/Mat_bones.hpp", trees) is not None
    assert vendored_tree("inst/include/RcppArmadillo.h", trees) is None


def test_a_folder_of_copies_carries_its_files_without_a_header():
    """r-lib/fs (81211aa): ``src/bsd/`` holds five files whose headers name NetBSD's, OpenBSD's and libbsd's holders
    (the University of California 1989, Otto Moerbeek 2008, Guillem Jover 2004, Robert Millan 2006) under their own
    BSD terms, before fs's "fs authors" (2025), and ``cdefs.h``, seven lines of macros that say nothing: the folder
    is a folder of copies (the hand list names all of ``src/bsd``), and fs's own header-less files stay its own."""
    truth = (Path(__file__).parents[2] / "bench" / "repos_dev_46v_vendored.tsv").read_text()
    assert "r-lib/fs\tsrc/bsd\t" in truth
    files = layout("r-lib-fs-bsd")
    assert "opyright" not in files["src/bsd/cdefs.h"]  # guard: the file names no one
    _, found = _judged("r-lib-fs-bsd", "r-lib/fs")
    cdefs = found["src/bsd/cdefs.h"][0]
    assert cdefs is not None and cdefs.folder == "src/bsd" and "5 of the 6 files of src/bsd/" in cdefs.evidence
    # a copy by its own header keeps its own evidence
    assert "'the regents of the university of california' from 1989" in found["src/bsd/setmode.c"][0].evidence
    for own in ("src/fs.cc", "src/utils.cc", "src/file.cc", "src/dir.cc", "src/windows/getmode.cc"):
        assert found[own][0] is None, own


def test_a_folder_of_own_files_beside_a_few_copies_is_not_one():
    """The same files with fs's own files moved into ``src/bsd/``: two copies among five of its own files are copies
    one by one, not a folder of copies."""
    files = layout("r-lib-fs-bsd")
    moved = {("src/bsd/" + path.rsplit("/", 1)[-1] if path.endswith(".cc") else path): text
             for path, text in files.items() if path not in ("src/bsd/string.h", "src/bsd/unistd.h", "src/bsd/strmode.c")}
    from codemix.document import Document
    from codemix.pipelines.filter import resolve_vendored, vendored_file_or_tree, vendoring_evidence

    docs = [Document(id=p, text=t, source="s", kind="file", repo="r-lib/fs", path=p, language="") for p, t in moved.items()]
    vendored = dict(resolve_vendored("s\x00r-lib/fs", [fact for doc in docs for _, fact in vendoring_evidence(doc)]))
    found = {doc.path: vendored_file_or_tree(doc, vendored) for doc in docs}
    assert found["src/bsd/setmode.c"] is not None and found["src/bsd/setmode.c"].folder == "src/bsd/setmode.c"
    assert found["src/bsd/cdefs.h"] is None and found["src/bsd/fs.cc"] is None


def test_projects_named_by_the_sections_of_a_license_file():
    """pkulchenko/ZeroBraneStudio (8142e63; the sixth holdout, spent): its root LICENSE opens with ZeroBrane's own MIT
    section (Paul Kulchenko), then one section per bundled project, headed "--[[ Copas License ]]---",
    "--[[ Metalua License ]]---", "--[[ LuaCheck ]]---"..., each naming its holders. The folders of ``lualibs/`` so
    named are those projects' (the hand list names them); the author's own MobDebug section names him, and
    ``api/lua/``, alone of its folder to match the "Lua License" section, is ZeroBrane's API description."""
    truth = (Path(__file__).parents[2] / "bench" / "repos_holdout_6_vendored.tsv").read_text()
    trees = _evidence_trees("zerobrane", "pkulchenko/ZeroBraneStudio")
    for path in ("lualibs/copas/copas.lua", "lualibs/metalua/compiler.lua", "lualibs/luacheck/cache.lua",
                 "lualibs/luainspect/ast.lua"):
        tree = vendored_tree(path, trees)
        assert tree is not None and "LICENSE's section" in tree.evidence, path
        assert f"pkulchenko/ZeroBraneStudio\t{tree.folder}\t" in truth
    assert "Copyright (c) 2014 - 2017 Peter Melnichenko" in vendored_tree("lualibs/luacheck/cache.lua", trees).evidence
    for own in ("api/lua/baselib.lua", "src/main.lua", "lualibs/mobdebug/mobdebug.lua"):
        assert vendored_tree(own, trees) is None, own


def test_a_generated_script_is_not_read_as_a_copy():
    """RcppArmadillo (d6ccbfd): ``configure`` opens "Generated by GNU Autoconf 2.72 for RcppArmadillo", then the FSF's
    1992 copyright of the generator's own text, older than the package's people: the tool wrote it, so it is no
    copy, and the code filters drop it as ``autogenerated``."""
    from codemix.document import Document
    from codemix.filters.code import check_autogenerated
    from codemix.filters.config import CodeFilterConfig

    files = layout("rcpparmadillo")
    assert "Free Software Foundation" in files["configure"]  # guard: the header the copy rules read
    _, found = _judged("rcpparmadillo", "RcppCore/RcppArmadillo")
    assert found["configure"][0] is None
    doc = Document(id="c", text=files["configure"], source="s", kind="file", path="configure", language="Shell")
    assert check_autogenerated(doc, CodeFilterConfig()) == (False, "autogenerated")
    # linguist's vendor.yml lists ``(^|/)configure$``; the file's own head says a tool wrote it
    from codemix.filters.apply import DocumentFilter
    from codemix.filters.config import FiltersConfig
    from codemix.filters.vendored import is_vendored

    assert is_vendored("configure")
    document_filter = DocumentFilter(FiltersConfig())
    assert document_filter.path_drop_reason(doc) is None
    # raylib (abe23bf): ``src/external/glad.h`` ("Loader generated by glad 2.0.0-beta") sits in a folder linguist calls
    # vendored: still a vendored path
    glad = Document(id="g", text=layout("raylib")["src/external/glad.h"], source="s", kind="file",
                    path="src/external/glad.h", language="C")
    assert "generated by glad 2.0.0" in glad.text and document_filter.path_drop_reason(glad) == "vendored_path"


def test_a_header_granting_a_choice_by_the_licenses_addresses():
    """haskell-crypto/cryptonite (d163f69; the sixth holdout, spent): Argon2's and BLAKE2's reference files grant "the
    terms of a Creative Commons CC0 1.0 License/Waiver or the Apache Public License 2.0, at your option", naming the
    texts by their addresses, under their authors' names (Daniel Dinu and others; Samuel Neves), in cryptonite's
    BSD-3-Clause tree by Vincent Hanquez: copies (the hand list names both folders); his own files stay his."""
    from codemix.filters.vendored import header_terms

    truth = (Path(__file__).parents[2] / "bench" / "repos_holdout_6_vendored.tsv").read_text()
    files = layout("cryptonite")
    assert header_terms(files["cbits/argon2/core.c"]) == "Apache-2.0 OR CC0-1.0"
    _, found = _judged("cryptonite", "haskell-crypto/cryptonite")
    for copy, folder in (("cbits/argon2/core.c", "cbits/argon2"), ("cbits/blake2/ref/blake2-impl.h", "cbits/blake2")):
        assert found[copy][0] is not None and "Apache-2.0 OR CC0-1.0" in found[copy][0].evidence, copy
        assert f"haskell-crypto/cryptonite\t{folder}\t" in truth
    for own in ("cbits/cryptonite_chacha.c", "cbits/cryptonite_poly1305.c"):
        assert "Vincent Hanquez" in files[own] and found[own][0] is None, own


def test_projects_named_by_the_sentences_opening_a_license_files_sections():
    """libgit2/libgit2 (0551dfd): its root COPYING, after libgit2's own GPL-2.0 with the linking exception, opens each
    section after a rule line with the component it covers: "The bundled ZLib code is licensed under the ZLib
    license:" ((C) Jean-loup Gailly and Mark Adler), "The Clar framework is licensed under the ISC license:" (Vicent
    Marti), "The bundled ntlmclient code is licensed under the MIT license:" (Edward Thomson). Three sibling folders of
    ``deps/`` are so named: those copies. libgit2's own glue beside clar, ``deps/clar/clar_libgit2.c``, named after
    the repository, stays its own, as do its ``src/`` files."""
    trees = _evidence_trees("libgit2", "libgit2/libgit2")
    for path, section in (("deps/zlib/adler32.c", "'ZLib'"), ("deps/clar/clar.c", "'Clar'"),
                          ("deps/ntlmclient/ntlm.c", "'ntlmclient'")):
        tree = vendored_tree(path, trees)
        assert tree is not None and f"COPYING's section {section}" in tree.evidence, path
    _, found = _judged("libgit2", "libgit2/libgit2")
    assert found["deps/clar/clar.c"][0] is not None
    for own in ("deps/clar/clar_libgit2.c", "src/libgit2/blob.c", "src/util/str.c"):
        assert found[own][0] is None, own


def test_a_header_less_file_including_the_repositorys_glue_beside_a_copy():
    """libgit2/libgit2 (0551dfd): ``deps/clar/main.c`` names no holder and opens with ``#include "clar_libgit2.h"``,
    the glue named after libgit2 beside the copied clar: it was written for libgit2 (its test main), not copied with
    clar, whose own files carry Vicent Marti's header."""
    files = layout("libgit2")
    assert '#include "clar_libgit2.h"' in files["deps/clar/main.c"] and "Copyright" not in files["deps/clar/main.c"]
    _, found = _judged("libgit2", "libgit2/libgit2")
    assert found["deps/clar/clar.c"][0] is not None  # the folder is still clar's
    assert found["deps/clar/main.c"][0] is None


def test_notes_that_say_what_a_folder_or_its_files_were_copied_from():
    """apple/swift-crypto (1b6b2e2): ``Sources/CCryptoBoringSSL/hash.txt`` says "This directory is derived from BoringSSL
    cloned from https://boringssl.googlesource.com/boringssl at revision ...", and its files (OpenSSL's and BoringSSL's
    Apache-2.0 headers under swift-crypto's own Apache-2.0) name no holder older than the project's people: the note is
    the evidence. ``Sources/CXKCP/vendored-sources.txt`` opens "Vendored code from XKCP#master" over a list of paths:
    those files are XKCP's, and the module's own header ``include/CXKCP.h`` (Apple) stays swift-crypto's."""
    trees = _evidence_trees("swift-crypto", "apple/swift-crypto")
    boring = vendored_tree("Sources/CCryptoBoringSSL/crypto/bio/bio.cc", trees)
    assert boring is not None and "This directory is derived from" in boring.evidence
    keccak = vendored_tree("Sources/CXKCP/FIPS202-opt64/KeccakHash.c", trees)
    assert keccak is not None and "Vendored code from XKCP" in keccak.evidence
    for own in ("Sources/CXKCP/include/CXKCP.h", "Sources/Crypto/Keys/EC/NISTCurvesKeys.swift"):
        assert vendored_tree(own, trees) is None, own


def test_a_single_file_librarys_banner_names_its_release():
    """raysan5/raylib (abe23bf; the third holdout, spent): stb's files open with their own name and release, "stb_image
    - v2.30 - public domain image loader - http://nothings.org/stb", "stb_truetype.h - v1.26 - public domain" over
    "authored from 2009-2021 by Sean Barrett"; raylib's own module opens the same way, "rlgl v6.0 - A multi-OpenGL
    abstraction layer", but names no home and Ramon Santamaria, the repository's holder."""
    from codemix.filters.vendored import banner_release

    owner, found = _judged("raylib", "raysan5/raylib")
    files = layout("raylib")
    for copy in ("src/external/stb_image.h", "src/external/stb_truetype.h"):
        assert banner_release(copy, files[copy], owner, "raysan5/raylib") is not None, copy
    assert "nothings.org/stb" in banner_release("src/external/stb_image.h", files["src/external/stb_image.h"], owner,
                                                "raysan5/raylib")
    assert "Ramon Santamaria" in files["src/rlgl.h"] and "rlgl v6.0 - " in files["src/rlgl.h"]  # guard
    assert banner_release("src/rlgl.h", files["src/rlgl.h"], owner, "raysan5/raylib") is None
    assert found["src/rlgl.h"][0] is None


def test_an_editors_project_settings_are_the_repositorys_own():
    """raysan5/raylib (abe23bf): ``projects/VSCode/.vscode/settings.json`` is raylib's own VS Code project (linguist
    lists ``.vscode/`` only to keep it out of language statistics; the third holdout's judgments call its drop wrong);
    inside a folder linguist calls vendored it came with the copy."""
    from codemix.filters.vendored import is_vendored

    truth = (Path(__file__).parents[2] / "bench" / "repos_holdout_3_judgments.py").read_text()
    assert 'p.startswith("projects/VSCode/.vscode/")' in truth
    assert not is_vendored("projects/VSCode/.vscode/settings.json")
    assert is_vendored("src/external/glfw/.vscode/settings.json")


def test_files_whose_xcode_header_names_another_project_and_holder():
    """ReactiveCocoa/ReactiveObjC (1af6617; the seventh holdout, spent): Xcode's header template names the project a
    file was created in on the line below its name. Its own files say "//  ReactiveObjC" and "Copyright (c) 2012
    GitHub, Inc."; ``ReactiveObjC/extobjc/`` says "//  extobjc" and "Copyright (C) 2012 Justin Spahr-Summers. Released
    under the MIT license." — the same year and license as the repository's, so only the project line tells the copy.
    ``metamacros.h`` (a "/** ... ExtendedC" header) goes with its folder, four of whose five files are copies."""
    files = layout("reactiveobjc")
    assert sum("//  ReactiveObjC\n" in text for text in files.values()) >= 40  # guard: the repository's own project
    owner, found = _judged("reactiveobjc", "ReactiveCocoa/ReactiveObjC")
    assert "reactiveobjc" in owner.projects and "extobjc" not in owner.projects
    for copy in ("EXTScope.h", "EXTKeyPathCoding.h", "EXTRuntimeExtensions.m"):
        tree = found[f"ReactiveObjC/extobjc/{copy}"][0]
        assert tree is not None and "project 'extobjc'" in tree.evidence, copy
    metamacros = found["ReactiveObjC/extobjc/metamacros.h"][0]
    # four by their project line; since round 12 the fifth too, its holder named by no file outside the folder
    assert metamacros is not None and "of the 5 files of ReactiveObjC/extobjc/" in metamacros.evidence
    own = [path for path in files if path.startswith("ReactiveObjC/RAC")]
    assert len(own) >= 40 and all(found[path][0] is None for path in own)


def test_header_less_sources_of_the_library_a_readme_says_the_repository_is_built_on():
    """jpsim/Yams (1c0fd02; the seventh holdout, spent): its README says it is "built on
    [LibYAML](https://github.com/yaml/libyaml)", and ``Sources/CYaml/src/writer.c`` is LibYAML's, without a line
    naming anyone: every name it defines is ``yaml_*`` ("libyaml" less its "lib"). Yams's own ``CYaml.h`` defines
    nothing. A binding's own glue calls the library but defines its own names (sqlite3-ruby's ``database.c``)."""
    from codemix.filters.vendored import defined_prefix

    files = layout("yams")
    assert "github.com/yaml/libyaml" in files["README.md"] and "opyright" not in files["Sources/CYaml/src/writer.c"]
    _, found = _judged("yams", "jpsim/Yams")
    tree = found["Sources/CYaml/src/writer.c"][0]
    assert tree is not None and "links yaml/libyaml" in tree.evidence and "as yaml_*" in tree.evidence
    for own in ("Sources/CYaml/include/CYaml.h", "Sources/Yams/Parser.swift"):
        assert found[own][0] is None, own
    glue = layout("sqlite3-ruby")["ext/sqlite3/database.c"]
    assert glue.count("sqlite3_") > 20  # guard: it calls the library often
    assert defined_prefix(glue)[0] != "sqlite3"


def test_a_header_less_file_naming_the_library_whose_names_it_defines():
    """elixir-sqlite/exqlite (344c267; the sixth holdout, spent): ``c_src/sqlite3.h`` carries SQLite's blessing, no
    copyright line, and says "This header file defines the interface that the SQLite library presents to client
    programs"; the names it defines are ``sqlite3_*`` ("SQLite" and a version digit). exqlite's own
    ``c_src/sqlite3_nif.c`` defines ``exqlite_*``, the repository's name."""
    files = layout("exqlite")
    assert "interface that the SQLite library" in files["c_src/sqlite3.h"]
    _, found = _judged("exqlite", "elixir-sqlite/exqlite")
    tree = found["c_src/sqlite3.h"][0]
    assert tree is not None and "names 'SQLite'" in tree.evidence and "as sqlite3_*" in tree.evidence
    assert found["c_src/sqlite3_nif.c"][0] is None


def test_files_whose_holder_a_section_of_the_root_license_names_for_another_project():
    """pkulchenko/ZeroBraneStudio (8142e63; the sixth holdout, spent): its root LICENSE opens with ZeroBrane's own
    section (Paul Kulchenko) and then carries one section per bundled project; "--[[ scintillua ]]---" names
    "Copyright (c) 2007-2016 Mitchell". ``lualibs/lexers/ada.lua`` says "Copyright 2006-2020 Mitchell. See LICENSE."
    (a pointer, not part of the holder's name): scintillua's lexer, in a folder of no name the sections give. Its own
    ``src/main.lua`` and the author's MobDebug name Paul Kulchenko."""
    files = layout("zerobrane")
    assert files["lualibs/lexers/ada.lua"].startswith("-- Copyright 2006-2020 Mitchell. See LICENSE.")
    _, found = _judged("zerobrane", "pkulchenko/ZeroBraneStudio")
    tree = found["lualibs/lexers/ada.lua"][0]
    assert tree is not None and "'mitchell'" in tree.evidence and "section 'scintillua'" in tree.evidence
    for own in ("src/main.lua", "lualibs/mobdebug/mobdebug.lua"):
        assert found[own][0] is None, own


def test_packages_an_installed_distributions_record_lists():
    """pypa/setuptools (7d53128): ``setuptools/_vendor/`` holds packages installed with ``pip install --target``, each
    beside its ``.dist-info`` folder, whose ``RECORD`` lists the files the wheel installed ("packaging/version.py,
    sha256=..."): ``packaging/`` and ``packaging-26.0.dist-info/`` are packaging's. setuptools' own lint settings
    beside them (``_vendor/ruff.toml``) and its own code are not listed."""
    files = layout("setuptools")
    assert "packaging/version.py,sha256=" in files["setuptools/_vendor/packaging-26.0.dist-info/RECORD"]
    trees = trees_of(files, "pypa/setuptools")
    for copy in ("setuptools/_vendor/packaging/version.py", "setuptools/_vendor/packaging-26.0.dist-info/RECORD"):
        tree = vendored_tree(copy, trees)
        assert tree is not None and "packaging-26.0.dist-info/RECORD lists it" in tree.evidence, copy
    for own in ("setuptools/_vendor/ruff.toml", "setuptools/dist.py"):
        assert vendored_tree(own, trees) is None, own


def test_a_repositorys_own_files_that_look_like_copies_at_first_sight():
    """Controls from jqlang/jq (579e6f7) and rusqlite/rusqlite (bc26760): jq's header-less ``src/exec_stack.h`` defines
    ``stack_*`` under a comment "Stack" (a word, not a library's name: no copy by its prefix); its ``src/parser.c`` is
    Bison's output ("A Bison parser, made by GNU Bison 3.8.2.", under the FSF's 1984 notice: a generated file, not an
    older holder's copy); rusqlite's ``src/unlock_notify.rs`` opens with a doc link to the SQLite page it implements
    ("//! [Unlock Notification](http://sqlite.org/unlock_notify.html)"), not its own published address. valkey-io/valkey
    (55bbbe0; the second holdout, spent) names its own macros' prefix in capitals ("REDISMODULE API")."""
    from codemix.filters.generated import generator_header
    from codemix.filters.vendored import prefix_fact, published_page

    jq, rusqlite = layout("jq"), layout("rusqlite")
    stack = prefix_fact("src/exec_stack.h", jq["src/exec_stack.h"])
    assert stack is not None and stack.name == "stack"  # guard: its names do share a prefix
    assert not stack.names
    assert generator_header(jq["src/parser.c"]) and "Free Software Foundation" in jq["src/parser.c"]
    assert "sqlite.org/unlock_notify.html" in rusqlite["src/unlock_notify.rs"]
    assert published_page("src/unlock_notify.rs", rusqlite["src/unlock_notify.rs"], "rusqlite/rusqlite") is None
    # valkey's own ``src/redismodule.h`` speaks of "the older REDISMODULE API", its macros' own prefix, not a library
    redis = prefix_fact("src/redismodule.h", layout("valkey")["src/redismodule.h"])
    assert redis is not None and redis.name == "redismodule" and not redis.names


def test_a_copied_librarys_holder_whose_files_fill_one_folder_is_no_returning_contributor():
    """cashapp/zipline (2f1b935; the eighth holdout, spent after its run): QuickJS's files in
    ``zipline/native/quickjs/`` carry the years each was written (Fabrice Bellard 2016-2017, 2017-2018, 2017-2021, MIT)
    and fill their folder; zipline's own files name Block, Square or Cash App under the bare Apache-2.0. A holder with
    several years is a returning contributor (valkey's rule) only where his files are a minority of their folder."""
    files = layout("zipline")
    assert sum("Fabrice Bellard" in text for text in files.values()) >= 10  # guard: the copy's files
    owner, found = _judged("zipline", "cashapp/zipline")
    assert "fabrice bellard" not in owner.returning and owner.people
    for copy in ("zipline/native/quickjs/cutils.c", "zipline/native/quickjs/libregexp.c"):
        tree = found[copy][0]
        assert tree is not None and "'fabrice bellard'" in tree.evidence, copy
    own = [path for path in files if path.startswith("zipline/src/")]
    assert len(own) >= 20 and all(found[path][0] is None for path in own)


def test_release_banners_of_a_bundle_and_of_a_projects_sources():
    """A bundle's "Vue.js v2.6.14" over "(c) 2014-2021 Evan You" (GenieFramework/Stipple.jl f3351a0, the eighth holdout,
    spent) and GLFW's "// GLFW 3.5 - www.glfw.org" over each of its sources (raysan5/raylib abe23bf's
    ``src/external/glfw/``; "GLFW 3.5 X11 - www.glfw.org" in a platform's file) name another project's release;
    raylib's own ``src/rcore.c`` names raylib. A project's banner in its own repository is its own."""
    from codemix.filters.vendored import RepositoryOwner, banner_release, project_banner

    vue = layout("stipple")["assets/js/vue.js"]
    why = banner_release("assets/js/vue.js", vue, RepositoryOwner(people=("genieframework",)), "GenieFramework/Stipple.jl")
    assert why is not None and "'Vue.js' v2.6.14 by 'evan you'" in why
    glfw = layout("raylib-glfw")
    for path in ("src/external/glfw/src/context.c", "src/external/glfw/src/x11_init.c"):
        why = project_banner(glfw[path], "raysan5/raylib")
        assert why is not None and "'GLFW'" in why and "www.glfw.org" in why, path
        assert project_banner(glfw[path], "glfw/glfw") is None  # GLFW's own repository
    assert project_banner(glfw["src/rcore.c"], "raysan5/raylib") is None


def test_a_folder_note_opening_with_what_it_holds_and_where_from():
    """Tencent/rapidjson (24b5e7a; the eighth holdout, spent): ``bin/jsonchecker/readme.txt`` opens "Test suite from
    http://json.org/JSON_checker/." and ``bin/types/readme.txt`` "Test data obtained from https://github.com/...": the
    folders are those copies. ``bin/data/readme.txt``, "sample.json is obtained from ...", is about one file, so
    rapidjson's own ``bin/data/abcde.txt`` beside it stays its own."""
    trees = trees_of(layout("rapidjson"), "Tencent/rapidjson")
    for path, said in (("bin/jsonchecker/fail1.json", "Test suite from"), ("bin/types/readme.txt", "Test data obtained")):
        tree = vendored_tree(path, trees)
        assert tree is not None and said in tree.evidence, path
    assert vendored_tree("bin/data/abcde.txt", trees) is None


def test_a_folder_whose_files_are_named_for_the_repository_under_a_contributors_license():
    """Tencent/rapidjson (24b5e7a; the eighth holdout, spent): ``contrib/natvis/`` holds ``rapidjson.natvis``, a
    README about it and Bart Muzzin's MIT LICENSE: its own license names another holder, but its one file is named for
    the repository, a contribution written for it, not a copy."""
    files = layout("rapidjson")
    assert "Bart Muzzin" in files["contrib/natvis/LICENSE"]
    assert vendored_tree("contrib/natvis/rapidjson.natvis", trees_of(files, "Tencent/rapidjson")) is not None  # guard
    _, found = _judged("rapidjson", "Tencent/rapidjson")
    for path in ("contrib/natvis/LICENSE", "contrib/natvis/README.md", "contrib/natvis/rapidjson.natvis"):
        assert found[path][0] is None, path


def test_a_root_license_text_of_the_library_a_wrapper_compiles():
    """johnnovak/nim-glfw (793a575; the eighth holdout, spent): a Nim wrapper that compiles GLFW from source keeps GLFW's
    zlib ``LICENSE.md`` (Marcus Geelnard, Camilla Löwy) at its root beside its own MIT ``LICENSE``; ``glfw.nimble``
    declares MIT. The headers naming GLFW's holders lie in ``glfw/src`` and ``glfw/include`` (and one ported example),
    whose banners name GLFW, the name of the folder above them: that folder's subfolders (``deps/`` too) and the
    root text are the copy's; the wrapper's ``glfw/wrapper.nim`` beside them, ``glfw.nim`` and its examples are its
    own."""
    files = layout("nim-glfw")
    assert "Camilla" in files["LICENSE.md"] and "Erik Johansson Andersson" in files["LICENSE"]  # guard: two texts
    owner, found = _judged("nim-glfw", "johnnovak/nim-glfw")
    for path in ("LICENSE.md", "glfw/src/context.c", "glfw/src/CMakeLists.txt", "glfw/include/GLFW/glfw3.h",
                 "glfw/deps/linmath.h", "glfw/deps/wayland/xdg-shell.xml"):
        tree = found[path][0]
        assert tree is not None and "root LICENSE.md (Zlib)" in tree.evidence, path
    for path in ("LICENSE", "glfw.nim", "glfw.nimble", "glfw/wrapper.nim", "examples/minimal.nim", "README.md"):
        assert found[path][0] is None, path
    assert not owner.holders  # GLFW's holders are not the wrapper's
    # The repository declaring GLFW's license for itself keeps the text its own.
    files["glfw.nimble"] = files["glfw.nimble"].replace('license     = "MIT"', 'license     = "MIT AND Zlib"')
    from codemix.filters.vendored import root_license_copies
    facts = _facts(files, "johnnovak/nim-glfw")
    assert root_license_copies(facts) == ()


def _facts(files: dict[str, str], repo: str) -> list:
    from codemix.document import Document
    from codemix.pipelines.filter import vendoring_evidence

    return [fact for path, text in files.items()
            for _, fact in vendoring_evidence(Document(id=path, text=text, source="s", kind="file", repo=repo, path=path))]


def test_files_without_a_package_line_inside_the_repositorys_own_package_tree():
    """cashapp/zipline (2f1b935; the eighth holdout, spent): its SQLDelight schemas sit in
    ``.../sqldelight/app/cash/zipline/loader/internal/cache/`` (linguist's ``(^|/)cache/``) beside Kotlin sources that
    declare ``app.cash.zipline.loader.internal.cache``; its ``proguard-rules.pro`` (a linguist file name) keeps its own
    classes ("-keep ... class app.cash.zipline.QuickJsException"). Both are the repository's own, read from the package
    roots its sources declare; the Gradle wrapper script stays ``vendored_path``, and so does a schema below a
    ``cache/`` folder above the package root."""
    from codemix.document import Document
    from codemix.filters.apply import DocumentFilter
    from codemix.filters.config import FiltersConfig
    from codemix.filters.vendored import in_own_namespace, is_vendored

    owner, _ = _judged("zipline-own", "cashapp/zipline")
    assert owner.packages == frozenset({"app.cash.zipline"})
    document_filter = DocumentFilter(FiltersConfig())
    files = layout("zipline-own")
    own = [path for path in files if path.endswith((".sq", ".pro"))]
    assert len(own) == 4
    for path in own:
        doc = Document(id=path, text=files[path], source="s", kind="file", repo="cashapp/zipline", path=path)
        assert is_vendored(path) and document_filter.path_drop_reason(doc) == "vendored_path"  # guard: the path list
        assert in_own_namespace(path, doc.text, owner.packages), path
        assert document_filter.path_drop_reason(doc, own_code=True) is None
    assert not in_own_namespace("gradlew", files["gradlew"], owner.packages)
    schema = "zipline-loader/src/commonMain/sqldelight/app/cash/zipline/loader/internal/cache/Files.sq"
    assert not in_own_namespace("cache/" + schema, files[schema], owner.packages)
    assert not in_own_namespace(schema, files[schema], frozenset({"com.example.other"}))


def test_a_copied_test_suite_whose_manifest_names_its_own_repository():
    """python-jsonschema/jsonschema (b37f7be): ``json/`` is the JSON Schema Test Suite merged in as a subtree, with its
    own ``LICENSE`` (MIT, "Copyright (c) 2012 Julian Berman", the root's holder too) and a ``package.json`` whose
    ``"repository": "github:json-schema-org/JSON-Schema-Test-Suite"`` (npm's shorthand) names another repository than
    this one: a copy of that project, though its author is the repository's. The repository's own package stays its
    own, and the same folder naming this repository would be a package developed here."""
    files = layout("jsonschema")
    assert "Julian Berman" in files["COPYING"] and "Julian Berman" in files["json/LICENSE"]  # guard: one holder
    trees = trees_of(files, "python-jsonschema/jsonschema")
    tree = vendored_tree("json/tests/draft7/type.json", trees)
    assert tree is not None and "'json-schema-org/json-schema-test-suite', not this repository" in tree.evidence
    assert vendored_tree("jsonschema/validators.py", trees) is None
    own = dict(files, **{"json/package.json": files["json/package.json"].replace(
        "json-schema-org/JSON-Schema-Test-Suite", "python-jsonschema/jsonschema")})
    assert vendored_tree("json/tests/draft7/type.json", trees_of(own, "python-jsonschema/jsonschema")) is None


def test_the_files_of_a_root_license_text_named_for_what_it_licenses():
    """mvdan/gofumpt (2d7b4e6): ``LICENSE`` is Daniel Martí's BSD-3-Clause, ``LICENSE.google`` the Go Authors' (named for
    what it licenses); gofumpt modified gofmt's sources (``gofmt.go``, ``internal.go``, ``format/rewrite.go``) and
    copies go/printer and go/format into ``internal/govendor/``, each headed "Copyright ... The Go Authors". Those files
    and that text are the copies'; gofumpt's own files (Daniel Martí's headers) are its own. With the texts' names
    swapped to plain ones (no subject), the spread files are not told apart."""
    files = layout("gofumpt")
    assert "The Go Authors" in files["LICENSE.google"] and "Daniel Mart" in files["LICENSE"]  # guard
    _, found = _judged("gofumpt", "mvdan/gofumpt")
    for path in ("LICENSE.google", "gofmt.go", "format/rewrite.go", "internal/govendor/go/printer/nodes.go",
                 "internal/govendor/diff/diff.go"):
        tree = found[path][0]
        assert tree is not None and "LICENSE.google (BSD-3-Clause)" in tree.evidence, path
    for path in ("LICENSE", "doc.go", "format/format.go", "main_test.go", "internal/version/version.go"):
        assert found[path][0] is None, path
    from codemix.filters.vendored import root_license_copies
    plain = {("LICENSE.txt" if path == "LICENSE.google" else path): text for path, text in files.items()}
    assert root_license_copies(_facts(plain, "mvdan/gofumpt")) == ()


def test_headers_naming_their_holders_repository_elsewhere():
    """mkdocs/mkdocs (2862536): its search plugin carries lunr-languages' files, each headed "Lunr languages, `Danish`
    language * https://github.com/MihaiValentin/lunr-languages * Copyright 2014, Mihai Valentin" (or a fork's address
    and its author: MiKr13, Mihir Kumar): a holder who is not the repository's (Tom Christie) beside that holder's own
    repository. Such headers fill ``lunr-language/``, so its files without one (``lunr.multi.js``) go with them;
    mkdocs's own files are its own."""
    from codemix.filters.vendored import RepositoryOwner, foreign_home

    files = layout("mkdocs")
    folder = "mkdocs/contrib/search/lunr-language/"
    assert "Tom Christie" in files["LICENSE"] and "MihaiValentin/lunr-languages" in files[folder + "lunr.da.js"]
    owner = RepositoryOwner(holders=frozenset({"tom christie"}))
    why = foreign_home(files[folder + "lunr.da.js"], owner, "mkdocs/mkdocs")
    assert why is not None and "'mihaivalentin/lunr-languages'" in why
    assert foreign_home(files[folder + "lunr.da.js"], RepositoryOwner(holders=frozenset({"mihai valentin"}))) is None
    assert foreign_home(files[folder + "lunr.da.js"], owner, "MihaiValentin/lunr-languages") is None  # its own home
    _, found = _judged("mkdocs", "mkdocs/mkdocs")
    for name in ("lunr.da.js", "lunr.hi.js", "lunr.kn.js", "lunr.multi.js"):
        assert found[folder + name][0] is not None, name
    for path in ("mkdocs/contrib/search/search_index.py", "mkdocs/commands/build.py", "mkdocs/themes/mkdocs/js/base.js"):
        assert found[path][0] is None, path


def test_a_single_file_credited_to_another_projects_repository():
    """Uniswap/v2-core (ee547b1; the eighth holdout, spent): ``SafeMath.sol`` says "a library for performing overflow-safe
    math, courtesy of DappHub (https://github.com/dapphub/ds-math)": ds-math's code, credited in a comment; the
    repository's own ``UQ112x112.sol`` cites a Wikipedia page and ``Math.sol`` no one. A credit to this repository
    itself says nothing."""
    from codemix.filters.vendored import copied_file_statement

    files = layout("v2-core")
    said = copied_file_statement(files["contracts/libraries/SafeMath.sol"], "Uniswap/v2-core")
    assert said is not None and "courtesy of DappHub" in said
    assert copied_file_statement(files["contracts/libraries/SafeMath.sol"], "dapphub/ds-math") is None
    for path in ("contracts/libraries/UQ112x112.sol", "contracts/libraries/Math.sol"):
        assert copied_file_statement(files[path], "Uniswap/v2-core") is None, path


def test_a_subtree_the_changelog_says_is_synced_with_another_repository():
    """pypa/setuptools (7d53128): ``NEWS.rst`` says release after release "Synced with pypa/distutils@d7633fbed", "Merge
    with pypa/distutils@24bd3179b": ``setuptools/_distutils/`` is that repository kept as a subtree (the folder named for
    it, letters and digits compared, holding the most files; not the docs about it in ``docs/deprecated/distutils/``).
    One such entry, or entries naming this repository, say nothing."""
    from codemix.filters.vendored import synced_trees

    files = layout("setuptools-synced")
    assert files["NEWS.rst"].count("pypa/distutils@") == 2  # guard: the entries
    facts = _facts(files, "pypa/setuptools")
    trees = synced_trees(facts, "pypa/setuptools")
    tree = vendored_tree("setuptools/_distutils/command/build.py", trees)
    assert tree is not None and "synced with pypa/distutils" in tree.evidence
    for path in ("setuptools/dist.py", "docs/deprecated/distutils/apiref.rst"):
        assert vendored_tree(path, trees) is None, path
    assert synced_trees(facts, "pypa/distutils") == ()
    once = dict(files, **{"NEWS.rst": files["NEWS.rst"].replace("Merge with pypa/distutils@24bd3179b", "Merge")})
    assert synced_trees(_facts(once, "pypa/setuptools"), "pypa/setuptools") == ()


def test_ports_made_here_keep_their_origins_notice():
    """crystal-lang/crystal (3fe7241) and dlang/phobos (3d56c74), the ninth holdout (spent after its run): "Source port of
    Dragonbox's reference implementation in C++", "Crystal adaptation of "mu" from the "nsync" library", "test cases
    derived from Microsoft's STL", "source code derived from the following", "Conversion to D by Don Clugston", "ported
    to D" keep their origin's copyright and license; they are the repository's own derived work, not copies. A copy's
    header (QuickJS's, zipline) says no such thing."""
    from codemix.filters.vendored import derived_work

    ports = {**layout("crystal-ports"), **layout("phobos")}
    for path in ("src/float/printer/dragonbox.cr", "src/sync/mu.cr", "spec/std/float_printer/hexfloat_spec.cr",
                 "src/crystal/system/win32/group.cr", "std/internal/math/errorfunction.d", "std/mathspecial.d"):
        assert derived_work(ports[path]), path
    assert not derived_work(layout("zipline")["zipline/native/quickjs/cutils.c"])
    from codemix.document import Document
    from codemix.filters.vendored import RepositoryOwner, Vendored
    from codemix.pipelines.filter import vendored_file_or_tree

    side = {"s\x00crystal-lang/crystal": Vendored(owner=RepositoryOwner(holders=frozenset({"manas technology solutions"})))}
    path = "src/float/printer/dragonbox.cr"
    doc = Document(id=path, text=ports[path], source="s", kind="file", repo="crystal-lang/crystal", path=path)
    assert vendored_file_or_tree(doc, side, "Apache-2.0") is None
    unsaid = doc.text.replace("Source port of", "From")  # the same header without saying it is a port
    assert vendored_file_or_tree(dataclasses.replace(doc, text=unsaid), side, "Apache-2.0") is not None


def test_a_page_of_the_same_owners_other_repository_is_a_model():
    """dlang/phobos's ``.github/workflows/main.yml`` opens "very similar to the DMD script: https://github.com/dlang/dmd/
    blob/master/.github/workflows/main.yml": another repository of the same owner, its model, not another project's
    file; in another owner's repository the same line names a copy."""
    from codemix.filters.vendored import published_page

    text = layout("phobos")[".github/workflows/main.yml"]
    assert published_page(".github/workflows/main.yml", text, "dlang/phobos") is None
    assert published_page(".github/workflows/main.yml", text, "someone/else") is not None



def _fetched(files: dict[str, str], repo: str):
    from codemix.filters.vendored import fetched_trees, with_own_glue

    facts = _facts(files, repo)
    return with_own_glue(fetched_trees(facts, repo), facts)


def test_plugins_an_updater_script_lists_are_a_folder_of_copies():
    """amix/vimrc (46294d5; the ninth holdout, spent): ``update_plugins.py`` lists "ale
    https://github.com/dense-analysis/ale" and 47 more, each downloaded into ``sources_non_forked/<name>``: 46 of the
    folder's 51 subfolders, so the folder is one of copies (``gist-vim``, no longer listed, with them); the author's own
    ``vimrcs/`` and ``sources_forked/set_tabline`` stay. Two listed names alone are those two folders only."""
    files = layout("vimrc-plugins")
    assert "https://github.com/dense-analysis/ale" in files["update_plugins.py"]  # guard: the list
    trees = _fetched(files, "amix/vimrc")
    for path in ("sources_non_forked/ale/autoload/ale.vim", "sources_non_forked/gist-vim/README.md"):
        tree = vendored_tree(next(p for p in files if p.startswith(path.rsplit("/", 1)[0].rsplit("/", 1)[0] + "/")
                                  and p.split("/")[1] == path.split("/")[1]), trees)
        assert tree is not None and tree.folder == "sources_non_forked" and "update_plugins.py lists" in tree.evidence
    for path in ("vimrcs/basic.vim", "sources_forked/set_tabline/plugin/set_tabline.vim", "update_plugins.py"):
        assert vendored_tree(path, trees) is None, path
    script = files["update_plugins.py"]
    head, body = script.split('PLUGINS = """', 1)
    entries, tail = body.split('""".strip()', 1)
    two = dict(files, **{"update_plugins.py": head + 'PLUGINS = """\n' + "\n".join(entries.strip().splitlines()[:2])
                         + '\n""".strip()' + tail})
    assert sorted(tree.folder for tree in _fetched(two, "amix/vimrc")) == ["sources_non_forked/ale",
                                                                         "sources_non_forked/auto-pairs"]


def test_paths_a_data_file_keys_to_other_repositories_and_the_frameworks_wrappers_beside_them():
    """ohmyzsh/ohmyzsh (830a5bc; the ninth holdout, spent): ``.github/dependencies.yml`` keys ``plugins/gitfast`` to
    ``repo: felipec/git-completion`` (and kube-ps1, history-substring-search...): those folders are copies. The
    wrapper ``gitfast.plugin.zsh``, named as every plugin folder's ``<name>.plugin.zsh`` (``plugins/git/`` ...), is
    oh-my-zsh's own; kube-ps1's file of that name carries Jon Mosco's copyright (upstream's script, renamed) and stays
    the copy's. A script that pushes folders out (a subtree split) names no copies."""
    files = layout("ohmyzsh-dependencies")
    assert "repo: felipec/git-completion" in files[".github/dependencies.yml"]  # guard: the declaration
    trees = _fetched(files, "ohmyzsh/ohmyzsh")
    for path in ("plugins/gitfast/_git", "plugins/gitfast/git-prompt.sh", "plugins/kube-ps1/kube-ps1.plugin.zsh",
                 "plugins/history-substring-search/history-substring-search.zsh"):
        tree = vendored_tree(path, trees)
        assert tree is not None and ".github/dependencies.yml names" in tree.evidence, path
    for path in ("plugins/gitfast/gitfast.plugin.zsh", "plugins/history-substring-search/history-substring-search.plugin.zsh",
                 "plugins/git/git.plugin.zsh", "lib/git.zsh"):
        assert vendored_tree(path, trees) is None, path
    pushed = dict(files, **{".github/dependencies.yml": files[".github/dependencies.yml"] + "\n# git subtree split\n"})
    assert _fetched(pushed, "ohmyzsh/ohmyzsh") == ()


@pytest.mark.parametrize(("text", "expected"), [
    ("git clone --depth 1 https://github.com/nothings/stb.git third_party/stb\n", [("third_party/stb", "nothings/stb")]),
    ("git subtree add --prefix=deps/lua https://github.com/lua/lua.git v5.4.6 --squash\n", [("deps/lua", "lua/lua")]),
    ("  - lualine https://github.com/nvim-lualine/lualine.nvim\n", [("lualine", "nvim-lualine/lualine.nvim")]),
    ("# See https://github.com/nothings/stb for the headers we use\n", []),  # prose names no target
    ("git clone https://github.com/nothings/stb.git \"$BUILD/stb\"\n", []),  # a build folder outside the tree
])
def test_fetch_lists_read_targets_and_their_repositories(text, expected):
    from codemix.filters.fetch_lists import fetched_copies

    assert [(target, url) for target, url, _ in fetched_copies("scripts/update.sh", text)] == expected


def test_only_data_files_and_texts_naming_a_host_are_scanned_for_fetched_copies():
    """Issue 49: ``fetch_lists.may_fetch`` spares the scan of a script naming no host (most code: every .py, .js, .ts).
    On the real files of the vimrc and ohmyzsh layouts, every file whose scan finds a copy passes it, and their
    scripts naming no host do not; a host's name in another case is no address for the scan either."""
    from codemix.filters import fetch_lists

    files = {**layout("vimrc-plugins"), **layout("ohmyzsh-dependencies")}
    found = [path for path, text in files.items() if list(fetch_lists._scan(path, text))]
    assert {"update_plugins.py", ".github/dependencies.yml"} <= set(found)  # guard: the scan finds them
    assert all(fetch_lists.may_fetch(path, files[path]) for path in found)
    hostless = [path for path, text in files.items()
                if path.endswith((".py", ".vim", ".zsh", ".sh")) and not any(host in text for host in fetch_lists.HOSTS)]
    assert len(hostless) > 10 and not any(fetch_lists.may_fetch(path, files[path]) for path in hostless)
    shouted = "git clone https://GitHub.com/nothings/stb.git third_party/stb\n"
    assert not fetch_lists.may_fetch("scripts/update.sh", shouted)
    assert list(fetch_lists._scan("scripts/update.sh", shouted)) == []


def _resolved(name: str, repo: str):
    from codemix.document import Document
    from codemix.pipelines.filter import resolve_vendored, vendoring_evidence

    files = layout(name)
    facts = [fact for path, text in files.items()
             for _, fact in vendoring_evidence(Document(id=path, text=text, source="s", kind="file", repo=repo, path=path))]
    found = dict(resolve_vendored(f"s\x00{repo}", facts))
    return files, next(iter(found.values()))


def test_a_holder_named_only_in_one_small_folder_is_a_copied_package_not_the_repositorys_people():
    """HaxeFoundation/hxcpp (56ab586; the ninth holdout, spent; its ``project/thirdparty/`` left out of the fixture):
    sljit's 21 sources in ``src/hx/cppia/sljit_src/`` say "Copyright Zoltan Herczeg (hzmester@freemail.hu). All rights
    reserved." over BSD terms (no year: read as a holder by the address) and made him the most named of the
    repository's people; the Haxe Foundation's files lie beyond that folder. He is no person of the repository, and
    his files, stating their own terms with his name found in no other folder, are a folder of copies."""
    from codemix.filters.vendored import copyright_holders

    files, found = _resolved("hxcpp-sljit", "HaxeFoundation/hxcpp")
    assert copyright_holders(files["src/hx/cppia/sljit_src/sljitLir.c"]) == {"zoltan herczeg"}
    assert found.owner.people == ("haxe foundation",)
    tree = vendored_tree("src/hx/cppia/sljit_src/sljitLir.c", found.trees)
    assert tree is not None and "zoltan herczeg" in tree.evidence
    for path in ("src/hx/cppia/Cppia.cpp", "src/hx/libs/mysql/my_api.cpp", "include/hxcpp.h"):
        assert path in files and vendored_tree(path, found.trees) is None, path


def test_zlibs_copyright_notice_names_its_holders_and_its_folder_is_a_copy():
    """dlang/phobos (3d56c74; the ninth holdout, spent): zlib 1.3.1 in ``etc/c/zlib/`` with its ``LICENSE``,
    "Copyright notice:" over "(C) 1995-2022 Jean-loup Gailly and Mark Adler" (a holder line without the word). The
    root's Boost text names no one, so the repository's people stand in: the D Language Foundation across ``std/``,
    not zlib's authors, whose files all lie in ``etc/c/zlib/`` (a seventh of the tree). Phobos's own D binding
    ``etc/c/zlib.d`` beside it stays."""
    from codemix.filters.vendored import copyright_holders

    files, found = _resolved("phobos-zlib", "dlang/phobos")
    assert copyright_holders(files["etc/c/zlib/LICENSE"]) == {"jean loup gailly and mark adler"}
    assert "mark adler" not in found.owner.people and found.owner.people
    tree = vendored_tree("etc/c/zlib/deflate.c", found.trees)
    assert tree is not None and "own LICENSE at etc/c/zlib/" in tree.evidence
    for path in ("etc/c/zlib.d", "std/zlib.d", "std/algorithm/sorting.d"):
        assert path in files and vendored_tree(path, found.trees) is None, path


def test_a_folder_released_on_its_own_under_other_terms():
    """ohmyzsh/ohmyzsh (830a5bc; the ninth holdout, spent): ``plugins/zsh-navigation-tools/`` carries its own
    ``LICENSE`` ("dual-licensed under MIT and GPLv3", naming no one) beside the root's MIT, its own ``NEWS`` and its own
    ``Makefile``: psprint's Zsh Navigation Tools, a project released on its own. Under the root's terms, or without a
    changelog, the same folder says nothing."""
    def trees_with_paths(files):
        return vendored_trees(_facts(files, "ohmyzsh/ohmyzsh"), "ohmyzsh/ohmyzsh")

    files = layout("ohmyzsh-znt")
    trees = trees_with_paths(files)
    tree = vendored_tree("plugins/zsh-navigation-tools/n-list", trees)
    assert tree is not None and "NEWS and Makefile" in tree.evidence and "GPL-3.0" in tree.evidence
    assert vendored_tree("plugins/git/git.plugin.zsh", trees) is None
    same_terms = dict(files, **{"plugins/zsh-navigation-tools/LICENSE": files["LICENSE.txt"].replace("Robby Russell", "")})
    assert vendored_tree("plugins/zsh-navigation-tools/n-list", trees_with_paths(same_terms)) is None
    no_news = {path: text for path, text in files.items() if not path.endswith("/NEWS")}
    assert vendored_tree("plugins/zsh-navigation-tools/n-list", trees_with_paths(no_news)) is None


def test_godot_addons_whose_manifest_names_another_author_and_scripts_saying_where_they_were_taken_from():
    """Orama-Interactive/Pixelorama (7888c60; the tenth holdout, FIT after its run): Godot's addon manifest
    ``plugin.cfg`` names each addon's author: ``addons/applinks`` "FoolLin" (no license file),
    ``addons/dockable_container`` "gilzoide", beside the root's "Orama Interactive" MIT; the owner's own Keychain
    addon stays its own. A script's "## Code taken and modified from https://github.com/Pukkah/..." below its
    ``extends Node`` and a shader's "Shader from https://godotshaders.com/..." say they are copies; a shader "Based on"
    one is Pixelorama's own."""
    from codemix.filters.vendored import copied_file_statement

    files = layout("pixelorama-addons")
    trees = trees_of(files, "Orama-Interactive/Pixelorama")
    tree = vendored_tree("addons/applinks/export_plugin.gd", trees)
    assert tree is not None and "'foollin'" in tree.evidence
    assert vendored_tree("addons/dockable_container/dockable_container.gd", trees) is not None
    assert vendored_tree("addons/keychain/Keychain.gd", trees) is None
    for path in ("src/Autoload/HTML5FileExchange.gd", "src/Shaders/Effects/BrightnessContrast.gdshader",
                 "src/Shaders/Effects/Pixelize.gdshader"):
        assert copied_file_statement(files[path], "Orama-Interactive/Pixelorama") is not None, path
    for path in ("src/Shaders/Effects/OutlineInline.gdshader", "src/Main.gd"):
        assert copied_file_statement(files[path], "Orama-Interactive/Pixelorama") is None, path
    # below the first definition, such a comment is about a part: oh-my-zsh's wrapper "# taken from
    # https://github.com/gradle/gradle-completion" inside its function
    wrapper = layout("ohmyzsh-dependencies")["plugins/gradle/gradle.plugin.zsh"]
    assert "taken from https://github.com/gradle/gradle-completion" in wrapper  # guard
    assert copied_file_statement(wrapper, "ohmyzsh/ohmyzsh") is None


def test_a_readme_saying_what_its_vendor_named_folder_holds_is_the_repositorys_note():
    """gptoolbox's ``external/README.md`` ("This directory contains matlab functions written by others"; the tenth
    holdout, FIT after its run) and gevent's ``deps/README.rst`` ("Managing Embedded Dependencies"; the third holdout's
    judgments call its drop wrong) sit right in folders linguist calls vendored and say what the folder holds: the
    repository's notes about its copies. libev's own README inside ``deps/libev/`` is the copy's."""
    from codemix.document import Document
    from codemix.filters.apply import DocumentFilter
    from codemix.filters.config import FiltersConfig

    files = layout("folder-notes")
    check = DocumentFilter(FiltersConfig())

    def reason(key: str) -> str | None:
        path = key.split("/", 1)[1]
        return check.path_drop_reason(Document(id=path, text=files[key], source="s", kind="file", path=path))

    assert reason("gptoolbox/external/README.md") is None
    assert reason("gevent/deps/README.rst") is None
    assert reason("gevent/deps/libev/README") == "vendored_path"
    assert check.path_drop_reason(Document(id="r", text="# Notes\n\nHow we build it.\n", source="s", kind="file",
                                           path="external/README.md")) == "vendored_path"  # a note saying nothing


def test_a_copy_statement_naming_a_module_and_the_commit_it_was_copied_at():
    """pester/Pester (ec8ca45; the tenth holdout, FIT after its run): ``src/csharp/Pester/Tracing/ITracer.cs`` opens
    "// Copied from Profiler module, branch: Fix-error-autodetection, commit: 150bbcf": a module's name and the commit
    it was copied at, no address. A module named without a commit says nothing of a copy."""
    from codemix.filters.vendored import copied_file_statement

    text = layout("pester-tracing")["src/csharp/Pester/Tracing/ITracer.cs"]
    said = copied_file_statement(text, "pester/Pester")
    assert said is not None and "Profiler module" in said
    no_commit = text.split(", branch", 1)[0] + "\n" + text.split("\n", 1)[1]
    assert copied_file_statement(no_commit, "pester/Pester") is None


def test_a_header_defining_the_names_of_the_library_the_repository_is():
    """curl/curl (5c61e16, a race repository): ``include/curl/curlver.h`` defines ``LIBCURL_*`` names and its opening
    comment speaks of "libcurl version info"; libcurl is curl's own library, so the prefix names the repository, not
    another project. The same header in a repository of another name is a copy of libcurl's."""
    from codemix.filters.vendored import prefix_fact, upstream_copies

    text = layout("curl-version")["include/curl/curlver.h"]
    fact = prefix_fact("include/curl/curlver.h", text)
    assert fact is not None and fact.name == "libcurl" and "libcurl" in fact.names  # guard: it looks like a copy
    assert upstream_copies([fact], "curl/curl") == ()
    copied = upstream_copies([fact], "example/http-client")
    assert len(copied) == 1 and "names 'libcurl'" in copied[0].evidence


def test_a_folders_readme_giving_each_subfolder_its_upstream_makes_them_copies_whoever_owns_them():
    """Orama-Interactive/Pixelorama (7888c60; the tenth holdout, spent): ``addons/README.md`` keeps Godot's
    ``thirdparty/README.md`` convention, a section per addon with "- Upstream: <address>" and "- Version: <commit>".
    Each subfolder a section names (by its title or its upstream's name, "godot-dockable-container" for
    ``dockable_container``) is a copy, the owner's own Keychain plugin too ("Upstream:
    https://github.com/Orama-Interactive/Keychain"); without the README the Keychain is the owner's."""
    from codemix.filters.upstream_lists import upstream_sections

    files = layout("pixelorama-addons")
    sections = dict(upstream_sections(files["addons/README.md"]))
    assert sections["Keychain"] == "https://github.com/Orama-Interactive/Keychain"  # guard: the README says so
    facts = _facts(files, "Orama-Interactive/Pixelorama")
    trees = vendored_trees(facts, "Orama-Interactive/Pixelorama")
    for path in ("addons/keychain/Keychain.gd", "addons/applinks/export_plugin.gd",
                 "addons/dockable_container/dockable_container.gd"):
        tree = vendored_tree(path, trees)
        assert tree is not None and "addons/README.md's section" in tree.evidence, path
    assert vendored_tree("src/Main.gd", trees) is None
    without = {path: text for path, text in files.items() if path != "addons/README.md"}
    assert vendored_tree("addons/keychain/Keychain.gd", vendored_trees(_facts(without, "Orama-Interactive/Pixelorama"),
                                                                      "Orama-Interactive/Pixelorama")) is None
    # a section naming this repository is about the repository itself
    assert vendored_tree("addons/keychain/Keychain.gd", vendored_trees(facts, "Orama-Interactive/Keychain")) is None


@pytest.mark.parametrize("text, found", [
    ("## brotli\n\n- Upstream: https://github.com/google/brotli\n- Version: 1.1.0\n", "https://github.com/google/brotli"),
    ("## zstd\n\nSource: https://github.com/facebook/zstd\nCommit: 794ea1b\n", "https://github.com/facebook/zstd"),
    # a section citing a page, with no version taken: no upstream
    ("## Credits\n\nSource: https://example.org/article\n", None),
])
def test_upstream_sections_need_an_upstream_field_or_a_source_with_its_version(text, found):
    from codemix.filters.upstream_lists import upstream_sections

    assert dict(upstream_sections(text)).get(text.split("\n")[0][3:]) == found


def test_a_folder_holding_another_repositorys_root_files_beside_its_own_readme_and_terms_is_a_copy():
    """romkatv/powerlevel10k (604f19a; the development set 46x): ``gitstatus/`` is the same author's romkatv/gitstatus
    kept as a subtree: its own GPL-3.0 ``LICENSE`` beside the root's MIT, its own README, and files that act only at a
    repository's root (``.gitattributes`` with root-anchored paths, ``.clang-format``, ``.vscode/``). Under the root's
    terms, or with one such file, the folder stays the repository's."""
    repo = "romkatv/powerlevel10k"
    files = layout("powerlevel10k-gitstatus")
    assert detect_license("gitstatus/LICENSE", files["gitstatus/LICENSE"]) == "GPL-3.0"  # guard: other terms
    tree = vendored_tree("gitstatus/src/gitstatus.cc", vendored_trees(_facts(files, repo), repo))
    assert tree is not None and "another repository's root" in tree.evidence
    assert vendored_tree("internal/p10k.zsh", vendored_trees(_facts(files, repo), repo)) is None
    same_terms = dict(files, **{"gitstatus/LICENSE": files["LICENSE"]})
    assert vendored_tree("gitstatus/src/gitstatus.cc", vendored_trees(_facts(same_terms, repo), repo)) is None
    one_file = {path: text for path, text in files.items()
                if not path.startswith(("gitstatus/.gitattributes", "gitstatus/.vscode/"))}
    assert vendored_tree("gitstatus/src/gitstatus.cc", vendored_trees(_facts(one_file, repo), repo)) is None


def test_a_comment_line_naming_only_the_files_source_says_it_is_a_copy():
    """pester/Pester (ec8ca45; the tenth holdout, spent): report schemas copied whole, their opening comment below the
    XML declaration saying only where they came from ("<!-- Source: https://github.com/nunit/nunit/... -->",
    "<!-- from https://llg.cubic.org/docs/junit/ -->"); a schema saying nothing and Pester's own script are no copies,
    nor is a file whose source line names this repository, or a line saying more than its source ("Based on")."""
    from codemix.filters.vendored import copied_file_statement

    files = layout("pester-schemas")
    for path in ("src/schemas/NUnit3/TestResult.xsd", "src/schemas/JUnit4/junit_schema_4.xsd"):
        assert copied_file_statement(files[path], "pester/Pester", path) is not None, path
    for path in ("src/schemas/NUnit25/nunit_schema_2.5.xsd", "src/functions/Output.ps1"):
        assert copied_file_statement(files[path], "pester/Pester", path) is None, path
    nunit = files["src/schemas/NUnit3/TestResult.xsd"]
    assert copied_file_statement(nunit, "nunit/nunit", "TestResult.xsd") is None
    assert copied_file_statement(nunit.replace("Source: ", "Based on "), "pester/Pester", "TestResult.xsd") is None
    # below a line of code the line is about a part; a dotfile configures the repository's own tools
    below_code = nunit.replace("<xs:schema", "<!-- x -->\n<a/>\n<xs:schema").replace("<!-- Source:", "<b/>\n<!-- Source:")
    assert copied_file_statement(below_code, "pester/Pester", "TestResult.xsd") is None
    assert copied_file_statement(nunit, "pester/Pester", "src/schemas/.TestResult.xsd") is None
    # the end of a sentence begun on the line above: crystal's script ("... generates the tests in", "# from https://...")
    script = layout("crystal-glob-specs")["scripts/generate_glob_specs.sh"]
    assert "\n# from https://github.com/oxc-project/" in script  # guard
    assert copied_file_statement(script, "crystal-lang/crystal", "scripts/generate_glob_specs.sh") is None


def test_a_source_note_in_the_first_comment_says_where_the_code_came_from():
    """simonbingham/xindi (c683bd4; the thirteenth holdout, spent; round 16): ``public/assets/js/outbound-link-tracking.js``
    opens, inside its jQuery wrapper, "track outbound link information in Google Analytics (source: http://www.blastam.com/
    blog/...)": a snippet taken from that page. The site's own ``core.js`` files cite nothing; a note naming this
    repository's own address, or one below the first comment's opening lines (about a part), is no copy."""
    from codemix.filters.vendored import copied_file_statement

    files = layout("xindi-snippet")
    snippet = files["public/assets/js/outbound-link-tracking.js"]
    said = copied_file_statement(snippet, "simonbingham/xindi", "public/assets/js/outbound-link-tracking.js")
    assert said is not None and said.startswith("(source: http://www.blastam.com/")
    for path in ("public/assets/js/core.js", "admin/assets/js/core.js"):
        assert copied_file_statement(files[path], "simonbingham/xindi", path) is None, path
    own = snippet.replace("http://www.blastam.com/blog/index.php/2011/04/how-to-track-downloads-in-google-analytics/",
                          "https://github.com/simonbingham/xindi/wiki/Tracking")
    assert copied_file_statement(own, "simonbingham/xindi", "public/assets/js/outbound-link-tracking.js") is None
    note = " (source: http://www.blastam.com/blog/index.php/2011/04/how-to-track-downloads-in-google-analytics/)"
    lower = snippet.replace(note, "").replace("mailto email clicks", "mailto email clicks" + note)
    assert "Analytics (source" not in lower and "clicks (source" in lower  # guard: the same note, on the fifth line
    assert copied_file_statement(lower, "simonbingham/xindi", "public/assets/js/outbound-link-tracking.js") is None


def test_files_pointing_to_another_files_notice_take_its_holder():
    """rxi/lite (38bd9b3; the development set 46y): Lua 5.2 copied into ``src/lib/lua52/``, each file's header saying
    only "See Copyright Notice in lua.h"; lua.h says "See Copyright Notice at the end of this file", where "Copyright
    (C) 1994-2015 Lua.org, PUC-Rio" closes it, before the repository's rxi from 2020. The pointing files and lua.h are
    copies; lite's own ``src/main.c`` is not, nor are files pointing to a notice of the repository's holder."""
    from codemix.filters.vendored import first_copyright, holder_fact

    files = layout("lite-lua")
    lua_h = files["src/lib/lua52/lua.h"]
    assert not first_copyright(lua_h[:3000])[0] and "Copyright (C) 1994-2015 Lua.org" in lua_h  # guard: it ends lua.h
    assert holder_fact("src/lib/lua52/lua.h", lua_h).name == "lua org puc rio"
    _, found = _judged("lite-lua", "rxi/lite")
    for path in ("src/lib/lua52/lapi.c", "src/lib/lua52/lauxlib.c", "src/lib/lua52/lua.h"):
        assert found[path][0] is not None and "lua.h" in found[path][0].evidence, path
    assert found["src/main.c"][0] is None and found["LICENSE"][0] is None


def test_the_root_files_holder_is_the_repositorys_and_a_folder_whose_holder_is_named_nowhere_else_is_a_copy():
    """madler/pigz (fe4894f; the development set 46y): no license text at the root; Mark Adler's ``pigz.c``,
    ``yarn.h`` and ``try.h`` at the root, Google's zopfli in ``zopfli/`` (its own Apache-2.0 COPYING and README, "Copyright
    2011 Google Inc." in every file). Mark Adler is one of the repository's people (his files sit at the root), so
    his 2007 ``pigz.c`` is no copy of Google's; ``zopfli/`` is another project's root. Without its README it stays."""
    files = layout("pigz-zopfli")
    owner, found = _judged("pigz-zopfli", "madler/pigz")
    assert any("adler" in person for person in owner.people)
    for path in ("pigz.c", "yarn.h", "try.h", "try.c"):
        assert found[path][0] is None, path
    for path in ("zopfli/src/zopfli/deflate.c", "zopfli/COPYING"):
        assert found[path][0] is not None and "named nowhere" not in found[path][0].evidence \
            and "whom no file beyond it names" in found[path][0].evidence, path
    no_readme = {path: text for path, text in files.items() if path != "zopfli/README"}
    owner, found = _judged("", "madler/pigz", no_readme)
    assert found["zopfli/src/zopfli/deflate.c"][0] is None
    assert found["pigz.c"][0] is None and any("adler" in person for person in owner.people)  # not Google's alone


def test_files_named_for_the_project_a_license_text_beside_them_is_named_for():
    """jonas/tig (1b86f07; the development set 46y): ``compat/utf8proc.license.md`` is utf8proc's license (its
    copyright line names tig's own author among utf8proc's contributors), beside ``utf8proc.c``, ``utf8proc.h`` and the
    header-less ``utf8proc_data.c``: utf8proc's files. tig's own ``compat.h`` and ``wordexp.c`` in the same folder stay
    its own; a text named for the repository itself (``tig.license.md``) or for its terms names no other project."""
    files = layout("tig-utf8proc")
    assert "Jonas Fonseca" in files["compat/utf8proc.license.md"]  # guard: the text names tig's author too
    trees = vendored_trees(_facts(files, "jonas/tig"), "jonas/tig")
    for path in ("compat/utf8proc.c", "compat/utf8proc.h", "compat/utf8proc_data.c", "compat/utf8proc.license.md"):
        assert vendored_tree(path, trees) is not None, path
    for path in ("compat/compat.h", "compat/wordexp.c"):
        assert vendored_tree(path, trees) is None, path
    # read file by file: a header naming the repository's holders keeps its file (pdf.js's qcms glue beside LICENSE_QCMS)
    assert vendored_tree("compat/utf8proc.c", trees).of_copies
    assert vendored_tree("compat/utf8proc.c", vendored_trees(_facts(files, "jonas/utf8proc"), "jonas/utf8proc")) is None
    renamed = {path.replace("utf8proc.license.md", "LICENSE-MIT"): text for path, text in files.items()}
    assert vendored_tree("compat/utf8proc.c", vendored_trees(_facts(renamed, "jonas/tig"), "jonas/tig")) is None


def test_a_folder_under_other_terms_whose_files_name_another_holder():
    """tomoki1207/vscode-pdfviewer (d5f1ea2; the eleventh holdout, FIT after its run): ``lib/LICENSE`` is pdf.js's
    Apache-2.0 naming no one, beside the root's MIT; the headers of the build and viewer files below it name Mozilla
    Foundation, none the repository's holder. ``lib/build/`` and ``lib/web/`` (the subfolders holding those files)
    and the text are copies; the extension's own header-less ``lib/main.js`` and ``lib/pdf.css`` beside them are not.
    Under the root's terms the folder says nothing."""
    repo = "tomoki1207/vscode-pdfviewer"
    files = layout("pdfviewer-lib")
    assert detect_license("lib/LICENSE", files["lib/LICENSE"]) == "Apache-2.0"  # guard: other terms
    trees = vendored_trees(_facts(files, repo), repo)
    for path in ("lib/build/pdf.js", "lib/web/viewer.js", "lib/web/debugger.js", "lib/LICENSE"):
        tree = vendored_tree(path, trees)
        assert tree is not None and "'mozilla foundation'" in tree.evidence, path
    for path in ("lib/main.js", "lib/pdf.css", "src/extension.ts"):
        assert vendored_tree(path, trees) is None, path
    same_terms = dict(files, **{"lib/LICENSE": files["LICENSE"].replace("tomoki1207", "")})
    assert vendored_tree("lib/web/viewer.js", vendored_trees(_facts(same_terms, repo), repo)) is None


def test_a_file_named_for_the_repository_in_a_folder_linguist_names_is_its_own():
    """abapGit/abapGit (409ee22; the eleventh holdout, FIT after its run): ``src/env/`` is abapGit's own package of
    environment classes (``zcl_abapgit_env_factory.clas.abap``...), which linguist's ``(^|/)env/`` calls vendored; a
    file named for the repository there is its own. A file named for it under a pattern on the file's own name, or one
    not named for it, stays ``vendored_path``."""
    from codemix.filters.vendored import is_vendored, named_in_own_folder

    repo = "abapGit/abapGit"
    own = "src/env/zcl_abapgit_env_factory.clas.abap"
    assert is_vendored(own, repo)  # guard: linguist's env/ pattern
    assert named_in_own_folder(own, repo)
    assert not named_in_own_folder("src/env/package.devc.xml", repo)
    assert not named_in_own_folder("deps/abaptxt255.tabl.xml", repo)
    assert not named_in_own_folder("src/env/zcl_abapgit_env_factory.clas.abap", "sbcgua/ajson")


def test_a_holder_line_with_a_placeholder_year_and_all_right_reserved():
    """neorv32 (b3f3908, the eleventh holdout, spent): Petit FatFs's ``LICENSE.txt`` quotes the sources' notice as
    "Copyright (C) 20xx, ChaN, all right reserved." (a placeholder year, ChaN's "all right"); MGSPICO (42398eb) keeps
    FatFs's "Copyright (C) 2022, ChaN, all right reserved."."""
    from codemix.filters.vendored import copyright_holders, first_copyright

    assert copyright_holders(layout("neorv32-petit-fatfs")["sw/bootloader/petit_fatfs/LICENSE.txt"]) == {"chan"}
    assert first_copyright(layout("mgspico-fatfs")["RasPiPico/rp2040/mgspico/ff/ff.c"])[0] == "chan"


def test_a_folder_of_copies_counts_the_files_naming_the_same_holder_without_terms():
    """cliffgraph/MGSPICO (42398eb): FatFs in ``mgspico/ff/``, three files with ChaN's notice and terms, ChaN's MMC
    sample naming ChaN with terms no reader knows, three header-less (``ffconf.h``, ``ffsystem.c``, ``diskio.h``): a
    folder of copies; Harumakkin's own files beside it stay, and the Pico SDK's import script says it is a copy."""
    from codemix.filters.vendored import copied_file_statement

    _, found = _judged("mgspico-fatfs", "cliffgraph/MGSPICO")
    for name in ("ff.c", "ffconf.h", "ffsystem.c", "mmc_pico_spi.c"):
        assert found[f"RasPiPico/rp2040/mgspico/ff/{name}"][0] is not None, name
    tree = found["RasPiPico/rp2040/mgspico/ff/ffconf.h"][0]
    assert "4 of the 7 files of RasPiPico/rp2040/mgspico/ff/" in tree.evidence
    for path in ("RasPiPico/rp2040/mgspico/mgspico.cpp", "RasPiPico/rp2040/mgspico/CUTimeCount.cpp",
                 "RasPiPico/rp2040/mgspico/oled/FONT16X16.h", "RasPiPico/rp2040/mgspico/sdfat.cpp"):
        assert found[path][0] is None, path
    files = layout("mgspico-fatfs")
    assert copied_file_statement(files["RasPiPico/rp2040/pico_sdk_import.cmake"], "cliffgraph/MGSPICO",
                                 "RasPiPico/rp2040/pico_sdk_import.cmake") == \
        "This is a copy of <PICO_SDK_PATH>/external/pico_sdk_import.cmake"
    # without the sample naming ChaN, three of seven files are too few to call the folder one of copies
    fewer = {p: t for p, t in files.items() if not p.endswith("mmc_pico_spi.c")}
    fewer["RasPiPico/rp2040/mgspico/ff/own.c"] = ""
    _, found = _judged("", "cliffgraph/MGSPICO", fewer)
    assert found["RasPiPico/rp2040/mgspico/ff/ffconf.h"][0] is None


def test_files_pointing_to_a_notice_program_named_without_its_extensions():
    """sandraros/shrinker (ac997fc): its renamed copy of abapGit opens "LICENSE and NOTICE / See include program
    ZSHRINKER_ABAPGIT_LICENSE", the file ``zshrinker_abapgit_license.prog.abap`` whose notice names abapGit's
    contributors from 2014, before the repository's sandraros (2023); Shrinker's own classes point nowhere. Its
    shrunk abap2xlsx points to ``zshrinker_demo_abap2xlsx_licen``, a notice saying Shrinker uses a copy of abap2xlsx."""
    _, found = _judged("shrinker-pointers", "sandraros/shrinker")
    for path in ("src/abapgit/zshrinker_abapgit_def.prog.abap", "src/abapgit/zshrinker_abapgit_imp1.prog.abap"):
        tree = found[path][0]
        assert tree is not None and "points to src/abapgit/zshrinker_abapgit_license.prog.abap's notice" in \
            tree.evidence, path
    for path in ("src/zcl_shrinker.clas.abap", "src/zcl_shrinker_utils.clas.abap", "src/zcl_shrinker.clas.xml",
                 "src/demo/abap2xlsx/zshrinker_demo_abap2xlsx.prog.abap", "src/demo/abap2xlsx/zshrinker_demo_abap2xlsx.prog.xml"):
        assert found[path][0] is None, path
    # the metadata abapGit serializes beside each object goes with it
    meta = found["src/abapgit/zshrinker_abapgit_def.prog.xml"][0]
    assert meta is not None and "the metadata of src/abapgit/zshrinker_abapgit_def.prog.abap" in meta.evidence
    # abap2xlsx's notice names no holder (Apache-2.0 follows) but says "Shrinker is using an adapted copy of abap2xlsx"
    tree = found["src/demo/abap2xlsx/zshrinker_demo_abap2xlsx_def.prog.abap"][0]
    assert tree is not None and "uses a copy of 'abap2xlsx'" in tree.evidence
    files = layout("shrinker-pointers")
    licen = "src/demo/abap2xlsx/zshrinker_demo_abap2xlsx_licen.prog.abap"
    _, found = _judged("", "sandraros/abap2xlsx", files)  # a copy of the repository itself is no copy
    assert found["src/demo/abap2xlsx/zshrinker_demo_abap2xlsx_def.prog.abap"][0] is None
    _, found = _judged("", "sandraros/shrinker", {**files, licen: files[licen].replace("using an adapted copy of", "built on")})
    assert found["src/demo/abap2xlsx/zshrinker_demo_abap2xlsx_def.prog.abap"][0] is None


def test_a_release_archive_a_script_downloads_and_unpacks_into_a_folder():
    """mathematic-inc/vscode-pdf (47271e6): ``tools/download_pdfjs.sh`` downloads pdf.js's release archive with curl
    and unzips it into ``assets/pdf.js`` (the same Apache-2.0 as the root, so no terms tell it apart); a one-line
    download piped into tar names its folder with -C."""
    from codemix.filters.fetch_lists import fetched_copies
    from codemix.filters.vendored import fetched_facts, fetched_trees

    text = layout("vscode-pdf-download")["tools/download_pdfjs.sh"]
    assert [(target, url) for target, url, _ in fetched_copies("tools/download_pdfjs.sh", text)] == \
        [("assets/pdf.js", "mozilla/pdf.js")]
    facts = [*fetched_facts("tools/download_pdfjs.sh", text),
             *vendoring_facts("assets/pdf.js/build/pdf.mjs", "x"), *vendoring_facts("assets/pdf.js/LICENSE", "x")]
    from codemix.filters.vendored import file_fact
    facts += [file_fact("assets/pdf.js/build/pdf.mjs"), file_fact("assets/pdf.js/LICENSE")]
    assert [tree.folder for tree in fetched_trees(facts, "mathematic-inc/vscode-pdf")] == ["assets/pdf.js"]
    piped = "curl -sSL https://github.com/foo/bar/archive/refs/tags/v1.2.tar.gz | tar -xz -C third/bar\n"
    assert [(target, url) for target, url, _ in fetched_copies("x.sh", piped)] == [("third/bar", "foo/bar")]
    assert list(fetched_copies("x.sh", text.replace("unzip", "echo"))) == []


def test_a_clone_copied_into_the_tree_by_a_workflow_whoever_owns_the_clone():
    """abapGit/abapGit (409ee22, the eleventh holdout, spent): ``.github/workflows/ajson_mirror.yaml`` clones
    abapGit/ajson_mirror (the same owner's mirror of sbcgua/ajson) and copies ``ajson_mirror/src/z*`` into
    ``src/json/``: the files that glob names there are a copy, whoever owns the source; a clone alone names no folder
    of the tree."""
    from codemix.filters.fetch_lists import fetched_copies
    from codemix.filters.vendored import fetched_facts, fetched_trees, file_fact

    path = ".github/workflows/ajson_mirror.yaml"
    text = layout("abapgit-ajson-mirror")[path]
    assert ("src/json/z*", "abapgit/ajson_mirror") in [(target, url) for target, url, _ in fetched_copies(path, text)]
    present = [file_fact("src/json/zcl_abapgit_ajson.clas.abap"), file_fact("src/json/package.devc.xml"),
               file_fact("src/zcl_abapgit_repo.clas.abap")]
    trees = fetched_trees([*fetched_facts(path, text), *present], "abapGit/abapGit")
    assert [(tree.folder, tree.pattern) for tree in trees] == [("src/json", "src/json/z*")]
    assert vendored_tree("src/json/zcl_abapgit_ajson.clas.abap", trees) is not None
    assert vendored_tree("src/json/package.devc.xml", trees) is None  # the glob names the copied files only
    no_copy = text.replace("cp ajson_mirror/src/z* src/json/", "ls ajson_mirror")
    assert fetched_trees([*fetched_facts(path, no_copy), *present], "abapGit/abapGit") == ()


def test_a_file_opening_with_the_address_of_its_namesake_in_another_repository():
    """iamcco/markdown-preview.nvim (a923f5f): ``app/_static/markdown.css`` opens with the address of
    ``dest/github/markdown.css`` in iamcco/markdown.css, the same owner's other repository; its own ``page.css`` has
    no such line, and the address read in the repository it names is no copy."""
    from codemix.filters.vendored import copied_file_statement

    files = layout("markdown-preview-css")
    css = files["app/_static/markdown.css"]
    said = copied_file_statement(css, "iamcco/markdown-preview.nvim", "app/_static/markdown.css")
    assert said == "* https://github.com/iamcco/markdown.css/blob/master/dest/github/markdown.css"
    assert copied_file_statement(css, "iamcco/markdown.css", "dest/github/markdown.css") is None
    assert copied_file_statement(css, "iamcco/markdown-preview.nvim", "app/_static/other.css") is None
    assert copied_file_statement(files["app/_static/page.css"], "iamcco/markdown-preview.nvim",
                                 "app/_static/page.css") is None


def test_a_license_text_named_for_its_folder():
    """zdia/gorilla (5d4df52, the eleventh holdout, spent): no licence text at the root (GPL-2.0 in
    ``sources/LICENSE.txt``); ``sources/tcllib/tcllib.licence.terms`` is named for the folder that holds it: tcllib's
    modules. Frank Pilhofer's own ``sources/blowfish`` (its BSD text) and ``sources/gorilla.tcl`` are not in it: he
    heads ``gorilla.tcl`` (round 18: a repository with no root licence reads a folder's text naming someone else as a
    copy's, so the heads are read too; without them his name is another's)."""
    trees = {tree.folder: tree.evidence for tree in trees_of(layout("gorilla-tcllib"), "zdia/gorilla", heads=True)}
    assert "the folder's own name" in trees["sources/tcllib"]
    assert vendored_tree("sources/tcllib/sha1/sha1.tcl", trees_of(layout("gorilla-tcllib"), "zdia/gorilla"))
    assert "sources/blowfish" not in trees and vendored_tree("sources/gorilla.tcl", trees_of(layout("gorilla-tcllib"))) \
        is None
    renamed = {p.replace("tcllib.licence.terms", "licence.terms"): t for p, t in layout("gorilla-tcllib").items()}
    assert "sources/tcllib" not in {tree.folder for tree in trees_of(renamed, "zdia/gorilla", heads=True)}
    assert "sources/blowfish" in {tree.folder for tree in trees_of(layout("gorilla-tcllib"), "zdia/gorilla")}


def test_a_folder_holding_only_its_note_beside_copies_copies_nothing():
    """janet-lang/spork (55cb242, the eleventh holdout, spent): ``deps/`` holds miniz and stb with their own licence
    texts and ``fonts/README.txt``, spork's one-line note ("Add ttf font files here..."), a placeholder: not a copy
    beside the copies. With a file beside the note, the folder would be read with its siblings."""
    files = layout("spork-deps")
    _, found = _judged("spork-deps", "janet-lang/spork")
    assert found["deps/miniz/miniz.h"][0] is not None and found["deps/stb/stb_image.h"][0] is not None
    assert found["deps/fonts/README.txt"][0] is None
    with_font = {**files, "deps/fonts/font.h": "static const unsigned char font[] = {0};\n"}
    _, found = _judged("", "janet-lang/spork", with_font)
    assert found["deps/fonts/README.txt"][0] is not None


def test_a_debian_stanza_path_found_by_the_end_of_a_folder_path():
    """davy7125/polyphone (c759b7d): ``packaging/debian/copyright`` describes the package built from ``sources/``
    ("Files: lib/qtsingleapplication/*", Digia; "Files: clavier/*", Pedro Lopez-Cabanillas): the one folder of the tree
    ending so is the stanza's. Found by its end, the folder's files answer first: Davy Triponney's own
    ``sources/clavier/combocc.cpp`` (GPL-3.0 header naming him) stays beside VMPK's ``pianokey.cpp``. A licence note
    saying where the third-party libraries are declares that folder."""
    owner, found = _judged("polyphone-dep5", "davy7125/polyphone")
    assert owner.people == ("davy triponney",)
    tree = found["sources/lib/qtsingleapplication/qtlocalpeer.cpp"][0]
    assert tree is not None and "stanza on lib/qtsingleapplication/*" in tree.evidence
    assert found["sources/clavier/pianokey.cpp"][0] is not None
    for path in ("sources/clavier/combocc.cpp", "sources/core/input/sfark/inputsfark.cpp", "sources/core/action.cpp"):
        assert found[path][0] is None, path
    # ``sources/LICENSE.txt``: "Some of the third-party libraries under lib/ come under different licences": STK's
    # header-less ``Chorus.h`` is in the folder it names
    tree = found["sources/lib/_option_stk/stk/Chorus.h"][0]
    assert tree is not None and "third-party libraries under lib/" in tree.evidence
    files = layout("polyphone-dep5")
    note = files["sources/LICENSE.txt"].replace("third-party libraries under lib/", "libraries we wrote in lib/")
    _, found = _judged("", "davy7125/polyphone", {**files, "sources/LICENSE.txt": note})
    assert found["sources/lib/_option_stk/stk/Chorus.h"][0] is None


def test_reuse_toml_annotations_naming_other_holders_declare_copies():
    """abapGit/abapGit (409ee22, the eleventh holdout, spent): its ``REUSE.toml`` gives every path (``**``) to "2014
    abapGit Contributors" and ``src/json/**/*`` to "2020 Alexander Tsybulsky <https://github.com/sbcgua/ajson>", the
    icon font to Font Awesome: those paths are other projects'; an annotation naming the repository's contributors is
    not."""
    text = layout("abapgit-reuse")["REUSE.toml"]
    trees = {tree.folder: tree for tree in vendored_trees(vendoring_facts("REUSE.toml", text))}
    assert "sbcgua/ajson" in trees["src/json"].evidence and "src/stringmap" in trees
    assert vendored_tree("src/ui/zabapgit_icon_font.w3mi.data.ttf", tuple(trees.values())) is not None
    assert vendored_tree("src/zcl_abapgit_repo.clas.abap", tuple(trees.values())) is None
    own = text.replace("2020 Alexander Tsybulsky <https://github.com/sbcgua/ajson>", "2020 abapGit Contributors")
    assert "src/json" not in {tree.folder for tree in vendored_trees(vendoring_facts("REUSE.toml", own))}


def test_a_folder_with_a_second_license_text_is_not_all_the_named_project():
    """mozilla/pdf.js: ``external/qcms/`` holds ``LICENSE_QCMS`` (named for the folder) and ``LICENSE_PDFJS_QCMS``,
    pdf.js's own text for its glue ``qcms_utils.js``: two texts say the folder is mixed, so it is not qcms's as a whole
    (the files named for qcms beside its text still are)."""
    files = layout("pdfjs-qcms")
    trees = vendored_trees(_facts(files, "mozilla/pdf.js"), "mozilla/pdf.js")
    assert "external/qcms" not in {tree.folder for tree in trees}
    assert vendored_tree("external/qcms/qcms.js", trees) is not None
    one_text = {p: t for p, t in files.items() if not p.endswith("LICENSE_PDFJS_QCMS")}
    assert "external/qcms" in {tree.folder for tree in vendored_trees(_facts(one_text, "mozilla/pdf.js"), "mozilla/pdf.js")}


def test_a_record_of_what_a_tool_installed_keyed_by_its_repository():
    """nf-core/fetchngs (8ec2d93, the twelfth holdout, spent; FIT after its run): ``modules.json`` keys each installed
    module and subworkflow by nf-core/modules's address, with the commit it was installed at; those folders are that
    repository's, though nf-core owns both. The pipeline's own ``modules/local`` and ``workflows`` are not."""
    _, found = _judged("fetchngs-modules", "nf-core/fetchngs")
    for path in ("modules/nf-core/untar/main.nf", "modules/nf-core/sratools/prefetch/main.nf",
                 "subworkflows/nf-core/utils_nfcore_pipeline/main.nf"):
        tree = found[path][0]
        assert tree is not None and "installed from nf-core/modules" in tree.evidence, path
    for path in ("modules/local/aspera_cli/main.nf", "workflows/sra/main.nf"):
        assert found[path][0] is None, path
    from codemix.filters.vendored import fetched_trees

    files = layout("fetchngs-modules")
    no_commits = {**files, "modules.json": files["modules.json"].replace('"git_sha"', '"note"')}
    assert fetched_trees(_facts(no_commits, "nf-core/fetchngs"), "nf-core/fetchngs") == ()


def test_a_third_party_notice_listing_folders_and_files():
    """Jbalkind/tcp_hw (59c92b1, the twelfth holdout, spent; FIT): ``THIRDPARTYLICENSES.md`` lists "All files in
    `basejump_files`" and single files, some by an older path (``include/noc_defs.vh``, now
    ``include/common/noc_defs.vh``, the one file of that name under ``include/``); the engine's own files stay."""
    _, found = _judged("tcp-hw-thirdparty", "Jbalkind/tcp_hw")
    for path in ("basejump_files/bsg_misc/bsg_dff_en.sv", "include/common/noc_defs.vh",
                 "include/tonic_defs/tonic_defaults.vh", "frontend/chksum_calc.sv"):
        tree = found[path][0]
        assert tree is not None and "THIRDPARTYLICENSES.md lists" in tree.evidence, path
    assert found["common/circ_buf_helpers/rd_circ_buf.sv"][0] is None
    files = layout("tcp-hw-thirdparty")
    renamed = {("NOTES.md" if p == "THIRDPARTYLICENSES.md" else p): t for p, t in files.items()}
    _, found = _judged("", "Jbalkind/tcp_hw", renamed)
    assert found["include/common/noc_defs.vh"][0] is None


def test_a_license_text_named_for_a_project_beside_only_license_texts():
    """UBA-PSI/psi-thesis-guide (2fc47de, the twelfth holdout, spent; FIT): ``degree-thesis/fonts/`` holds Roboto's and
    Iosevka's font files (binaries) and their texts ``LICENSE-Roboto.txt``, ``LICENSE-iosevka.md``: the texts are the
    fonts', not the thesis template's; beside a text file of the repository's, a text names no file it covers."""
    files = layout("psi-fonts")
    trees = vendored_trees(_facts(files, "UBA-PSI/psi-thesis-guide"), "UBA-PSI/psi-thesis-guide")
    for path in ("degree-thesis/fonts/LICENSE-Roboto.txt", "degree-thesis/fonts/LICENSE-iosevka.md"):
        assert vendored_tree(path, trees) is not None, path
    assert vendored_tree("degree-thesis/main.tex", trees) is None
    beside = {**files, "degree-thesis/fonts/fonts.tex": "% the template's font setup\n"}
    trees = vendored_trees(_facts(beside, "UBA-PSI/psi-thesis-guide"), "UBA-PSI/psi-thesis-guide")
    assert vendored_tree("degree-thesis/fonts/LICENSE-Roboto.txt", trees) is None


def test_root_sections_saying_their_collection_is_repackaged_from_elsewhere():
    """chaw/r7rs-libs (b8b625c, the twelfth holdout, spent; FIT): the root README's sections are named for its
    collections: "## AutoDiff", "A repackaging of an R6RS implementation by Jeffrey Mark Siskind ...:
    https://github.com/qobi/R6RS-AD"; "## PFDS", "A repackaging of ..., originally written for R6RS Scheme:
    https://github.com/ijp/pfds". The folder of the section's exact name is the copy (not ``autodiff-tests/``, the
    packager's own tests); the packager's ``robin/`` has no such section."""
    _, found = _judged("r7rs-sections", "chaw/r7rs-libs")
    for path in ("autodiff/AD.sld", "pfds/queue.sld", "nltk/n-grams.sld"):
        tree = found[path][0]
        assert tree is not None and "says it is taken from" in tree.evidence, path
    for path in ("autodiff-tests/AD-test.sps", "robin/abbrev.sld"):
        assert found[path][0] is None, path
    files = layout("r7rs-sections")
    plain = {**files, "README.md": files["README.md"].replace("A repackaging of", "An implementation of")
             .replace("originally written for", "for")}
    trees = vendored_trees(_facts(plain, "chaw/r7rs-libs"), "chaw/r7rs-libs")
    assert vendored_tree("pfds/queue.sld", trees) is None


def test_a_root_license_section_saying_who_wrote_a_collection_keeps_its_terms_its_own():
    """chaw/r7rs-libs (b8b625c, the twelfth holdout, spent; FIT): the root LICENSE.md is a list of licences per
    collection; its copyright lines name Ian Price (PFDS) and Göran Weinholt, and its "## Robin" section says "The
    libraries within 'robin' are all written by Peter Lane. The license is the Open Works License". Peter Lane's
    ``robin/*.sld`` under that licence are the repository's, not copies by their terms; Weinholt's
    ``sliding-buffer.sld`` (Andreas Rottmann, MIT) is still read by its header."""
    _, found = _judged("r7rs-robin", "chaw/r7rs-libs")
    for path in ("robin/abbrev.sld", "robin/text.sld"):
        assert found[path][0] is None, path
    assert found["weinholt/sliding-buffer.sld"][0] is not None
    files = layout("r7rs-robin")
    # (and without its opening "The different collections ... have different licenses", which makes the sections the
    # collections' own terms and leaves the repository no license of its own to differ from: reuse.heading_rules)
    unsaid = {**files, "LICENSE.md": files["LICENSE.md"].replace("are all written by Peter Lane", "are collected here")
              .replace("The different collections, and even libraries within each collection, have\ndifferent licenses.", "")}
    _, found = _judged("", "chaw/r7rs-libs", unsaid)
    assert found["robin/abbrev.sld"][0] is not None


def test_folders_git_subrepo_records_as_pulled_from_another_repository():
    """ingydotnet/git-subrepo (5e0f401; development set 46aa): ``ext/bashplus/`` and ``ext/test-more-bash/`` each hold
    the ``.gitrepo`` git-subrepo keeps in a folder it cloned, "[subrepo]" with the ``remote`` and ``commit`` it was pulled
    at. The folders are those repositories' (the same author's: the record says they came in); git-subrepo's own
    ``lib/`` and ``test/`` are not."""
    _, found = _judged("git-subrepo-ext", "ingydotnet/git-subrepo")
    for path, source in (("ext/bashplus/lib/bash+.bash", "ingydotnet/bashplus"),
                         ("ext/test-more-bash/lib/test/more.bash", "ingydotnet/test-more-bash")):
        tree = found[path][0]
        assert tree is not None and f"installed from {source}" in tree.evidence, path
    for path in ("lib/git-subrepo", "test/setup"):
        assert found[path][0] is None, path
    files = layout("git-subrepo-ext")
    unrecorded = {p: t.replace("[subrepo]", "[remote]") if p.endswith(".gitrepo") else t for p, t in files.items()}
    _, found = _judged("", "ingydotnet/git-subrepo", unrecorded)
    assert found["ext/bashplus/lib/bash+.bash"][0] is None


def test_arduino_libraries_named_by_their_own_manifests_authors():
    """sarfata/kbox-firmware (7b47994; development set 46aa): ``lib/Adafruit_BNO055/`` and ``lib/Adafruit_Sensor/`` carry
    Arduino's ``library.properties``, "author=Adafruit <info@adafruit.com>", and no licence text; the repository's own
    files name Thomas Sarlandie (its root text is the GPL's, naming no one). The libraries are Adafruit's; KBox's own
    ``lib/KBoxLogging/`` has no manifest and stays, as does a library whose manifest names the repository's author."""
    _, found = _judged("kbox-libraries", "sarfata/kbox-firmware")
    for path in ("lib/Adafruit_BNO055/Adafruit_BNO055.cpp", "lib/Adafruit_Sensor/Adafruit_Sensor.h"):
        tree = found[path][0]
        assert tree is not None and "library.properties" in tree.evidence and "'adafruit'" in tree.evidence, path
    for path in ("lib/KBoxLogging/src/KBoxLogging.h", "src/common/algo/List.h"):
        assert found[path][0] is None, path
    files = layout("kbox-libraries")
    own = {p: t.replace("Adafruit <info@adafruit.com>", "Thomas Sarlandie <thomas@sarlandie.net>") for p, t in files.items()}
    _, found = _judged("", "sarfata/kbox-firmware", own)
    assert found["lib/Adafruit_BNO055/Adafruit_BNO055.cpp"][0] is None
    # a library whose manifest names a repository of this owner is the owner's (published from here, or a sibling)
    homed = {p: t.replace("github.com/adafruit/Adafruit_BNO055", "github.com/sarfata/kbox-bno055") for p, t in files.items()}
    _, found = _judged("", "sarfata/kbox-firmware", homed)
    assert found["lib/Adafruit_BNO055/Adafruit_BNO055.cpp"][0] is None
    assert found["lib/Adafruit_Sensor/Adafruit_Sensor.h"][0] is not None


def test_a_sibling_project_of_the_same_owner_kept_in_the_tree_is_its_own():
    """pozsarzs/modshell (ea91c60; the twelfth holdout, spent): ``syntax/modshell-script/`` is the author's VS Code
    extension for ModShell's scripts, with its own MIT text (the root's is the EUPL), README, ``.vscode/`` and
    ``.gitattributes``: files that act at a repository's root, as a copied repository's do. Its ``package.json`` names
    its home "https://github.com/pozsarzs/modshell-script", the same owner's: a project kept beside the program (as
    hugo's ``docs/``), not a copy; the same folder naming another owner's repository is one."""
    files, repo = layout("modshell-script"), "pozsarzs/modshell"
    trees = vendored_trees(_facts(files, repo), repo)
    for path in ("syntax/modshell-script/package.json", "syntax/modshell-script/language-configuration.json"):
        assert vendored_tree(path, trees) is None, path
    other = {p: t.replace("pozsarzs/modshell-script", "someone/modshell-script") for p, t in files.items()}
    trees = vendored_trees(_facts(other, repo), repo)
    assert vendored_tree("syntax/modshell-script/language-configuration.json", trees) is not None


def test_a_bsd_clause_naming_the_files_holder_in_a_repository_that_names_no_one():
    """arjenhiemstra/ithowifi (94525a2; development set 46aa): a GPL-3.0 text at the root and no holder in the firmware's
    own files, so the header rules have no holder to compare with; Sensirion's ``SHTSensor.cpp`` beside its sources
    protects "the Sensirion AG" in its BSD clause, its own holder's name: Sensirion's file. The template's "the copyright
    holder" protects no one, and the firmware's header-less ``main.cpp`` stays."""
    _, found = _judged("ithowifi-sensirion", "arjenhiemstra/ithowifi")
    tree = found["software/NRG_itho_wifi/main/SHTSensor.cpp"][0]
    assert tree is not None and "its BSD clause protects 'the sensirion ag', in a repository naming no one" in tree.evidence
    assert found["software/NRG_itho_wifi/main/main.cpp"][0] is None
    files = layout("ithowifi-sensirion")
    plain = {p: t.replace("Neither the name of the Sensirion AG", "Neither the name of the copyright holder")
             for p, t in files.items()}
    _, found = _judged("", "arjenhiemstra/ithowifi", plain)
    # (no clause names it now; round 17 reads it by its own BSD terms, of no family of the repository's GPL-3.0, and
    # a holder the address does not name: ``unnamed_repository_copy``)
    tree = found["software/NRG_itho_wifi/main/SHTSensor.cpp"][0]
    assert "its BSD clause" not in tree.evidence and "under BSD-3-Clause, in a repository naming no one under" in tree.evidence


def test_ansible_roles_named_as_ansible_galaxy_installs_them():
    """MiguelVeiro/dokku-ansible (25bb450; the thirteenth holdout, spent; FIT): ``roles/geerlingguy.docker/`` and
    ``roles/dokku_bot.ansible_dokku/`` are named ``<namespace or author>.<role_name>`` from their own ``meta/main.yml``
    (``galaxy_info``), the name ``ansible-galaxy install`` gives what it installs: Galaxy's roles, whoever wrote them.
    The playbooks and web client are the repository's; a role written here goes by its plain name."""
    files, repo = layout("dokku-ansible-roles"), "MiguelVeiro/dokku-ansible"
    trees = vendored_trees(_facts(files, repo), repo)
    for path in ("roles/geerlingguy.docker/tasks/main.yml", "roles/dokku_bot.ansible_dokku/tasks/main.yml"):
        tree = vendored_tree(path, trees)
        assert tree is not None and "the name ansible-galaxy installs it under" in tree.evidence, path
    for path in ("install-dokku.yml", "web-client/index.php"):
        assert vendored_tree(path, trees) is None, path
    plain = {p.replace("roles/geerlingguy.docker/", "roles/docker/"): t for p, t in files.items()}
    trees = vendored_trees(_facts(plain, repo), repo)
    assert vendored_tree("roles/docker/tasks/main.yml", trees) is None


def test_nes_libraries_told_by_their_authors_and_credit_notes():
    """wendelscardua/stallar (19256c8; the thirteenth holdout, spent; FIT), an NES game under Wendel Scardua's MIT:
    ``src/lib/neslib.s`` opens ";NES hardware-dependent functions by Shiru (shiru@mail.ru)" and "consider it Public
    Domain" (an author by name and address, terms of his own); ``src/mmc3/credit.txt`` opens "The MMC1 functions were
    written by cppchriscpp ... and found here... https://github.com/cppchriscpp/nes-starter-kit/..." (its folder is
    that code); ``src/music/famitone5.s`` opens ";fork of Famitone2 v1.15 by Shiru". The game's own ``main.c`` ("Based
    on ... example of MMC3 for cc65") and ``farcall.s`` stay."""
    _, found = _judged("stallar-nes", "wendelscardua/stallar")
    for path, said in (("src/lib/neslib.s", "header names 'shiru' under the public domain"),
                       ("src/mmc3/mmc3_code.h", "credit.txt says 'The MMC1 functions were written by"),
                       ("src/music/famitone5.s", "fork of Famitone2 v1.15")):
        tree = found[path][0]
        assert tree is not None and said in tree.evidence, path
    for path in ("src/main.c", "src/lib/farcall.s", "src/main-game-state.c"):
        assert found[path][0] is None, path


def test_releases_and_code_based_on_anothers_told_by_their_opening_comments():
    """wendelscardua/stallar (19256c8; the thirteenth holdout, spent; round 16): ``src/lib/nesdoug.h`` and ``.s`` open
    "Written by Doug Fraker" over "version 1.2, 1/1/2022" (another's release, no terms, no home); ``src/lib/unrle.s``
    opens "RLE decompressor based on Shiru's" and ``src/crt0.s`` "based on code by Groepaz/Hitmen <groepaz@gmx.net>,
    Ullrich von Bassewitz <uz@cc65.org>"; ``src/lib/unrle.h``, two declarations and no comment, is the header of that
    copy. ``main.c``, "Based on ... example of MMC3 for cc65 / Doug Fraker 2019", names no one's code: the game's own.
    By an author who is the repository's holder, the same release is its own."""
    _, found = _judged("stallar-nes", "wendelscardua/stallar")
    for path, said in (("src/lib/nesdoug.h", "names its author 'doug fraker' ('version 1.2"),
                       ("src/lib/nesdoug.s", "src/lib/nesdoug.h's opening comment names its author 'doug fraker'"),
                       ("src/lib/unrle.s", "names its author 'shiru' (\"based on Shiru's\")"),
                       ("src/lib/unrle.h", "src/lib/unrle.s's opening comment names its author 'shiru'"),
                       ("src/crt0.s", "names its author 'groepaz/hitmen'")):
        tree = found[path][0]
        assert tree is not None and said in tree.evidence, (path, tree)
    for path in ("src/main.c", "src/lib/farcall.s", "src/main-game-state.c"):
        assert found[path][0] is None, path
    # difftastic's ``src/parse/guess_language.rs`` (9e2d60c; the third holdout, spent): the sentence goes on to name
    # what of GitHub's it follows, a design, not code
    from codemix.filters.vendored import authored_release_fact

    guess = ("//! Guess which programming language a file is written in.\n//!\n//! This is heavily based on GitHub's\n"
             "//! [linguist](https://github.com/github/linguist/blob/master/docs/how-linguist-works.md),\n"
             "//! particularly its\n")
    assert authored_release_fact("src/parse/guess_language.rs", guess) is None
    assert authored_release_fact("src/parse/guess_language.rs", guess.split("//! [linguist]")[0]) is not None
    files = layout("stallar-nes")
    files["LICENSE"] = files["LICENSE"].replace("Wendel Scardua", "Doug Fraker")
    assert "Doug Fraker" in files["LICENSE"]  # guard: the author is now the repository's holder
    _, found = _judged("stallar-nes", "wendelscardua/stallar", files)
    assert found["src/lib/nesdoug.h"][0] is None


def test_a_text_named_for_another_project_covers_its_files_not_their_folder():
    """binji/binjgb (66d69e9; development set 46ab): ``docs/`` holds gb-studio's MIT text as ``LICENSE.gbstudio`` (Chris
    Maltby) beside the emulator's own pages and scripts ("Copyright (C) 2017 Ben Smith"): the text and the files that
    point to it ("copied from <address> (see LICENSE.gbstudio)") are gb-studio's, the folder is not. ``reset.css``
    opens with its home's address, named for it, over its release ("v2.0 | 20110126"): Eric Meyer's reset."""
    _, found = _judged("binjgb-docs", "binji/binjgb")
    for path in ("docs/LICENSE.gbstudio", "docs/simple.css", "docs/simple.html", "docs/reset.css"):
        assert found[path][0] is not None, path
    assert "meyerweb.com/eric/tools/css/reset/" in found["docs/reset.css"][0].evidence
    for path in ("docs/demo.js", "docs/index.html", "src/emulator.c", "LICENSE"):
        assert found[path][0] is None, path
    # the same text named for the folder it sits in is that folder's project
    files = {path.replace("docs/", "gbstudio/"): text for path, text in layout("binjgb-docs").items()}
    _, found = _judged("binjgb-docs", "binji/binjgb", files)
    assert found["gbstudio/demo.js"][0] is not None


def test_release_lines_naming_their_authors_in_the_forms_libraries_write_them():
    """aviaryan/Clipjump (6777987; development set 46ab): AutoHotkey libraries copied into ``lib/`` name their author
    in their release lines, no copyright line: "Gdip standard library v1.45 by tic (Tariq Porter)", "Version:
    0.0.01.00/2011-08-10/just me" (below a byte-order mark), "1.1.01.00/2014-08-30/just me" in a change history, "v 1.3
    / (a & w) Nov 2008 by derRaphael(at)oleco.net" lower in the opening comment. Clipjump's own files ("By: Avi
    Aryan", "5th Revision", a plugin's "@Plugin-Version 0.3") give no such fact. With no license text at its root, the
    holder its NOTICE.txt names is the repository's."""
    from codemix.filters.vendored import authored_release_fact

    files = layout("clipjump-heads")
    assert files["lib/SQLiteDB/Class_SQLiteDB.ahk"].startswith("\ufeff")  # guard: the mark before its comment
    for path, author in (("lib/Gdip_All.ahk", "tic (tariq porter)"), ("lib/SQLiteDB/Class_SQLiteDB.ahk", "just me"),
                         ("lib/TooltipEx.ahk", "just me"), ("plugins/pformat.commonformats.lib/unhtml.ahk", "derraphael")):
        fact = authored_release_fact(path, files[path])
        assert fact is not None and fact.name == author, (path, fact)
    for path in ("lib/TT_Console.ahk", "lib/HotkeyParser.ahk", "plugins/deleteFileFolder.ahk",
                 "plugins/external.ignoreWmanager.ahk"):
        assert authored_release_fact(path, files[path]) is None, path
    # no license text at the root: its NOTICE.txt's holder (Avi Aryan) is the repository's, and each is another's release
    owner, found = _judged("clipjump-heads", "aviaryan/Clipjump", files)
    assert owner.holders == {"avi aryan"} and "LICENSE" not in files
    for path in ("lib/Gdip_All.ahk", "lib/SQLiteDB/Class_SQLiteDB.ahk", "lib/TooltipEx.ahk",
                 "plugins/pformat.commonformats.lib/unhtml.ahk"):
        assert found[path][0] is not None and "opening comment names its author" in found[path][0].evidence, path
    for path in ("lib/TT_Console.ahk", "lib/HotkeyParser.ahk", "plugins/deleteFileFolder.ahk"):
        assert found[path][0] is None, path


def test_nes_libraries_behind_include_guards_and_a_bare_release_banner():
    """z-10/nerdle-nes (e9215e5; development set 46ab; MIT, Roman Stetsyshin): ``LIB/neslib.h`` names Shiru with his
    address and a public-domain dedication below its include guard; ``LIB/nesdoug.h`` "Written by Doug Fraker" and
    "version 1.2" below its guard; ``MUSIC/famitone2.s`` opens ";FamiTone2 v1.12", a file named for the release its first
    line names, naming no one, in a repository of another name. The game's own ``src/*.c`` name nothing."""
    _, found = _judged("nerdle-nes", "z-10/nerdle-nes")
    for path, said in (("LIB/neslib.h", "header names 'shiru' under the public domain"),
                       ("LIB/nesdoug.h", "names its author 'doug fraker'"),
                       ("MUSIC/famitone2.s", "its banner names 'FamiTone2' v1.12, naming no one"),
                       ("crt0.s", "names its author 'groepaz/hitmen'")):
        tree = found[path][0]
        assert tree is not None and said in tree.evidence, (path, tree)
    for path in ("src/main.c", "src/game.c", "LICENSE"):
        assert found[path][0] is None, path
    # the repository named for the release is that release's own
    _, found = _judged("nerdle-nes", "z-10/famitone2")
    assert found["MUSIC/famitone2.s"][0] is None


def test_a_header_less_companion_goes_with_a_bare_release():
    """jroweboy/skull-quest (72b702c; development set 46ab): ``MUSIC/famitone2.s`` opens ";FamiTone2 v1.12" and names no
    one; ``MUSIC/famitone2.h`` beside it, FamiTone2's C declarations without a comment naming anyone, goes with it. The
    game's own ``LIB/music_driver.h`` and ``skullquest.c`` stay."""
    _, found = _judged("skull-quest-music", "jroweboy/skull-quest")
    for path in ("MUSIC/famitone2.s", "MUSIC/famitone2.h"):
        assert found[path][0] is not None and "FamiTone2" in found[path][0].evidence, path
    for path in ("LIB/music_driver.h", "skullquest.c", "License.txt"):
        assert found[path][0] is None, path


def test_a_folders_licence_pointing_to_the_domain_its_package_path_spells():
    """leondejong/image-viewer-actionscript3 (5b97bf5; the fourteenth holdout, spent; FIT): ``src/com/greensock/`` holds
    GreenSock's tweening platform (``package com.greensock``, "UPDATES AND DOCUMENTATION AT: http://www.TweenLite.com",
    no holder) with a LICENSE.txt that is only "http://greensock.com/licensing": the site whose domain, reversed, is the
    folder's package path. The viewer's own ``com/leondejong/`` stays, and a text pointing to the repository's owner's
    domain from its own package folder names the repository."""
    _, found = _judged("image-viewer-greensock", "leondejong/image-viewer-actionscript3")
    for path in ("src/com/greensock/TweenLite.as", "src/com/greensock/easing/Back.as", "src/com/greensock/LICENSE.txt"):
        assert found[path][0] is not None and "points to greensock.com" in found[path][0].evidence, path
    for path in ("src/com/leondejong/imageviewer/Main.as", "LICENSE.txt"):
        assert found[path][0] is None, path
    files = layout("image-viewer-greensock")
    files["src/com/leondejong/LICENSE.txt"] = files["src/com/greensock/LICENSE.txt"].replace("greensock", "leondejong")
    _, found = _judged("image-viewer-greensock", "leondejong/image-viewer-actionscript3", files)
    assert found["src/com/leondejong/imageviewer/Main.as"][0] is None


def test_visual_basic_modules_read_past_their_export_preamble():
    """PerditionC/VBAChromeDevProtocol (1a05957; the fourteenth holdout, spent; FIT): VBA modules open with their export
    preamble ("Attribute VB_Name = ...", a class's "VERSION 1.0 CLASS" block, "Option Explicit") and comment with "'":
    ``JsonConverter.bas`` then says "'from https://github.com/VBA-tools/VBA-JSON", ``basUtf8FromString.bas`` "' code
    from: https://www.di-mgt.com.au/..."; ``Functions.bas``'s "'from https://stackoverflow.com/questions/..." cites an
    answer for the declarations below it, and ``clsCDP.cls`` cites documentation: both its own."""
    from codemix.filters.vendored import copied_file_statement

    files = layout("vbachrome-heads")
    assert files["src/JsonConverter.bas"].startswith("Attribute VB_Name")  # guard: the preamble before the comments
    for path in ("src/JsonConverter.bas", "src/basUtf8FromString.bas"):
        assert copied_file_statement(files[path], "PerditionC/VBAChromeDevProtocol", path) is not None, path
    # "' see https://github.com/EagleAglow/vba-websocket-class" over "' MIT licensed": that repository's file
    said = copied_file_statement(files["src/WinHttpCommon.bas"], "PerditionC/VBAChromeDevProtocol", "src/WinHttpCommon.bas")
    assert said == "EagleAglow/vba-websocket-class (MIT licensed)"
    assert copied_file_statement(files["src/WinHttpCommon.bas"], "EagleAglow/vba-websocket-class", "x.bas") is None
    # CyberChef's ``FromQuotedPrintable.mjs`` (the fourth holdout, spent): its head names its own holder too ("Some parts
    # taken from mimelib (http://github.com/andris9/mimelib)", "@license MIT", "@copyright Crown Copyright 2016"): its own
    parts = ("/**\n * Some parts taken from mimelib (http://github.com/andris9/mimelib)\n * @author Andris Reinman\n"
             " * @license MIT\n *\n * @author n1474335 [n1474335@gmail.com]\n * @copyright Crown Copyright 2016\n"
             " * @license Apache-2.0\n */\n\nimport Operation from \"../Operation.mjs\";\n")
    assert copied_file_statement(parts, "gchq/CyberChef", "src/core/operations/FromQuotedPrintable.mjs") is None
    unlicensed = files["src/WinHttpCommon.bas"].replace("' MIT licensed", "' a reference for the flags")
    assert copied_file_statement(unlicensed, "PerditionC/VBAChromeDevProtocol", "src/WinHttpCommon.bas") is None
    for path in ("src/Functions.bas", "src/clsCDP.cls"):
        assert copied_file_statement(files[path], "PerditionC/VBAChromeDevProtocol", path) is None, path
    # a line that is a string literal closed on it is code, not a Visual Basic comment
    assert copied_file_statement("'use strict';\n'from https://github.com/x/y';\nmodule.exports = 1;\n", "a/b", "x.js") is None


def test_a_file_named_for_the_repository_is_its_own_whatever_its_header():
    """haskell-crypto/cryptonite (d163f69; the sixth holdout, spent): ``cbits/ed25519/`` holds ed25519-donna's headers,
    "Public domain by Adam Langley <agl@imperialviolet.org> & Andrew M. <liquidsun@gmail.com>", and the project's own
    ``ed25519-cryptonite-exts.h``, "Public domain by Olivier Chéron <...>", a contributor's extension named for the
    repository under BSD-3-Clause: the donna files are copies by their headers, the extension is the repository's."""
    _, found = _judged("cryptonite-ed25519", "haskell-crypto/cryptonite")
    tree = found["cbits/ed25519/curve25519-donna-64bit.h"][0]
    assert tree is not None and "under the public domain" in tree.evidence
    assert found["cbits/ed25519/ed25519-cryptonite-exts.h"][0] is None


def test_a_repository_naming_no_one_tells_copies_by_its_own_address():
    """AlissonDiniz/university (a27da57; the fourteenth holdout, spent; after it): no license text, no manifest, its own
    files (``function/enum/``) name no one; jqPlot's plugins name "Chris Leonello", the most named holder, all in one
    small subtree (``web-app/plugin/jqplot-1095/``), whom neither the owner ``AlissonDiniz`` nor ``university`` names: a
    copied package's holder, not the repository's people. Each copy kept on its own grant (jqPlot's "MIT and GPL", the
    webcam plugin's, the validation engine's) then names a holder the address does not, where nothing of the
    repository's governs the path; the PHP Classes client cites its source below ``<?php``."""
    owner, found = _judged("university-copies", "AlissonDiniz/university")
    assert owner.people == () and not owner.holders
    for path in ("web-app/plugin/jqplot-1095/plugins/jqplot.barRenderer.js", "web-app/js/jquery/jquery.webcam.js",
                 "web-app/plugin/validationEngine/js/jquery.validationEngine.js"):
        assert found[path][0] is not None and "in a repository naming no one" in found[path][0].evidence, path
    assert "phpclasses.org" in found["mail/extras/ntlm_sasl_client.php"][0].evidence
    # XRegExp's "// (c) 2007-2012 Steven Levithan" over "// MIT License": a holder line without the word (FIT, round 17)
    assert "'steven levithan' under MIT" in found["mail/examples/scripts/XRegExp.js"][0].evidence
    assert all(tree is None for path, (tree, _) in found.items() if path.startswith("function/enum/"))
    # jqPlot's modified json2.js ("2010-11-01 Chris Leonello ... Public Domain", no copyright line) goes with the folder
    # of copies it sits in; where the root has a license text of its own, the folder rule has no say
    json2 = "web-app/plugin/jqplot-1095/plugins/jqplot.json2.js"
    assert "grant their own terms under holders the repository's address does not name" in found[json2][0].evidence
    _, found = _judged("", "AlissonDiniz/university", {**layout("university-copies"), "LICENSE": "MIT License\n"})
    assert found[json2][0] is None
    # the holder the owner's handle names stays the repository's people, and its files its own
    owner, found = _judged("university-copies", "cleonello/university")
    assert owner.people == ("chris leonello",)
    assert found["web-app/plugin/jqplot-1095/plugins/jqplot.barRenderer.js"][0] is None


def test_a_release_line_over_another_holders_copyright_where_the_root_names_no_one():
    """leondejong/image-viewer-actionscript3 (5b97bf5; the fourteenth holdout, spent; after it): a bare Apache-2.0 text
    at the root, no holder in its own files; Adobe's ``bin/AC_RunActiveContent.js`` opens "//v1.7" over "Copyright
    2005-2007 Adobe Systems Incorporated.  All rights reserved.": a release of a holder the repository's address does not
    name. The viewer's own ``Main.as`` names no one and stays."""
    _, found = _judged("image-viewer-adobe", "leondejong/image-viewer-actionscript3")
    assert "its own release 'v1.7'" in found["bin/AC_RunActiveContent.js"][0].evidence
    assert found["src/com/leondejong/imageviewer/Main.as"][0] is None
    _, found = _judged("image-viewer-adobe", "adobe/image-viewer-actionscript3")
    assert found["bin/AC_RunActiveContent.js"][0] is None


def test_a_bare_release_banner_behind_a_byte_order_mark_and_a_carriage_return():
    """telppa/Translation-Terminator (29e065a; the fourteenth holdout, spent; after it): ``Lib/Chrome.ahk`` opens with a
    byte-order mark and "; Chrome.ahk-plus v1.4.0" ending in "\\r\\n": the release of a library of another name (the
    author's own, from its own repository), as the same line without them is. ``Lib/BaiduTranslator.ahk``'s "; version:
    2024.10.03" under the address of the page it drives is no banner."""
    files = layout("translation-terminator-chrome")
    assert files["Lib/Chrome.ahk"].startswith("\ufeff") and "\r\n" in files["Lib/Chrome.ahk"]  # guard
    _, found = _judged("translation-terminator-chrome", "telppa/Translation-Terminator")
    assert "'Chrome.ahk-plus v1.4.0'" in found["Lib/Chrome.ahk"][0].evidence
    assert found["Lib/BaiduTranslator.ahk"][0] is None


def test_a_gamemaker_extension_published_by_another_and_a_scripts_credit_line():
    """RobotoSkunk/PixelMan-GMS2 (93d9c72; development set 46ac): ``extensions/GooglePlayLicensingAsExt/`` holds the
    manifest of a GameMaker extension, "modelName": "GMExtension" with "packageID":
    "com.yoyogames.googleplaylicensingextension": YoYo Games' package, its Java glue with it (no header of its own).
    Existical's ``fast_file_crypt.gml`` credits "Script by Andrius Valkiunas http://www.existical.com/" over "Version
    1.3": another's release, with its ``.yy`` beside it. The game's own ``scr_sleep`` stays; a package id of the
    repository's owner's is its own."""
    _, found = _judged("pixelman-extensions", "RobotoSkunk/PixelMan-GMS2")
    for path in ("extensions/GooglePlayLicensingAsExt/GooglePlayLicensingAsExt.yy",
                 "extensions/GooglePlayLicensingAsExt/AndroidSource/Java/GooglePlayLicensingAsExt.java"):
        assert "published by 'yoyogames'" in found[path][0].evidence, path
    for path in ("scripts/fast_file_crypt/fast_file_crypt.gml", "scripts/fast_file_crypt/fast_file_crypt.yy"):
        assert "'andrius valkiunas'" in found[path][0].evidence, path
    for path in ("scripts/scr_sleep/scr_sleep.gml", "scripts/scr_sleep/scr_sleep.yy", "LICENSE"):
        assert found[path][0] is None, path
    _, found = _judged("pixelman-extensions", "yoyogames/PixelMan-GMS2")
    assert found["extensions/GooglePlayLicensingAsExt/GooglePlayLicensingAsExt.yy"][0] is None


def test_a_debian_copyright_names_the_packager_not_another_project():
    """dividuum/infon (c25eb74; development set 46ac): ``contrib/infon-devel/debian/copyright``, "This package was
    debianized by Joachim Breitner ... Copyright: 2006 Joachim Breitner", is the Debian packaging of the tool beside
    it, contributed to infon: not a licence text making ``debian/`` another project's. David Henry's ``gl_mdl.c``
    (2005, before the repository's Florian Wesch from 2006) is still a copy."""
    _, found = _judged("infon-debian", "dividuum/infon")
    for path in ("contrib/infon-devel/debian/copyright", "contrib/infon-devel/debian/control",
                 "contrib/infon-devel/infon-devel.py", "infon.c"):
        assert found[path][0] is None, path
    assert "'david henry' from 2005" in found["gl_mdl.c"][0].evidence
    files = layout("infon-debian")  # the same text under another name is a folder's own licence, naming another
    files["contrib/infon-devel/debian/COPYING"] = files.pop("contrib/infon-devel/debian/copyright")
    _, found = _judged("", "dividuum/infon", files)
    assert found["contrib/infon-devel/debian/control"][0] is not None


def test_a_lock_pinning_what_it_installed_by_owner_and_name():
    """JakeJing/fishconfig (3b896a1; the fifteenth holdout, spent; FIT): yazi's ``package.toml`` pins each plugin it
    installed, ``use = "yazi-rs/plugins:full-border"`` over ``rev = "7c174cc"`` (the file opens ``deps = []`` above
    ``[[plugin.deps]]``, which a strict TOML parser refuses); the folders are named for them with yazi's suffix
    (``full-border.yazi``): three of the four plugin folders, so ``yazi/plugins/`` is a folder of copies, and the one
    flavour, pinned alone, is its own copy. The owner's ``init.lua`` and fish config stay."""
    _, found = _judged("fishconfig-yazi", "JakeJing/fishconfig")
    # (the folders with their own MIT text are copies by it too, round 18; mactags.yazi has none: the lock alone)
    assert "fetched (yazi/package.toml lists them)" in found["yazi/plugins/mactags.yazi/main.lua"][0].evidence
    for path in ("yazi/plugins/diff.yazi/main.lua", "yazi/plugins/exifaudio.yazi/LICENSE"):
        assert found[path][0] is not None, path
    assert found["yazi/flavors/catppuccin-mocha.yazi/flavor.toml"][0] is not None
    unlicensed = {path: text for path, text in layout("fishconfig-yazi").items() if not path.endswith("/LICENSE")}
    _, bare = _judged("", "JakeJing/fishconfig", unlicensed)  # the lock alone, without the folders' own texts
    assert "pins yazi-rs/flavors for 'catppuccin-mocha'" in bare["yazi/flavors/catppuccin-mocha.yazi/flavor.toml"][0].evidence
    assert "fetched (yazi/package.toml lists them)" in bare["yazi/plugins/diff.yazi/main.lua"][0].evidence
    for path in ("yazi/init.lua", "fish/config.fish"):
        assert found[path][0] is None, path
    # termpdf.py's module fields name its home, "__url__ = "https://github.com/dsanson/termpdf.py"", a repository of
    # another owner named for the file: a copy (its "__license__ = "MIT"" would keep it otherwise)
    assert "dsanson/termpdf.py" in found["vifm/scripts/termpdf.py"][0].evidence
    from codemix.filters.vendored import copied_file_statement
    assert copied_file_statement(layout("fishconfig-yazi")["vifm/scripts/termpdf.py"], "dsanson/termpdf.py",
                                 "termpdf.py") is None
    files = layout("fishconfig-yazi")  # without the revision, a "use" line names nothing installed
    files["yazi/package.toml"] = "\n".join(line for line in files["yazi/package.toml"].splitlines() if not line.startswith("rev"))
    _, found = _judged("", "JakeJing/fishconfig", files)
    assert found["yazi/plugins/mactags.yazi/main.lua"][0] is None
    # (a plugin folder with its own MIT text naming yazi-rs is a copy by that text alone, round 18: the repository
    # has no licence text of its own and its address names no one of it)
    assert "in a repository with no license text" in found["yazi/plugins/diff.yazi/main.lua"][0].evidence


def test_a_root_licence_crediting_a_folders_project_to_another_holder():
    """charmaur/PolyDiceGenerator (8fa6c99; the fifteenth holdout, spent; FIT): its BSD-2-Clause LICENSE opens
    "PolyDiceGenerator Copyright (c) 2020, charmaur" and "BOSL2 Copyright (c) 2017-2020, Revar Desmera": both lines name
    their holders after the project, and the second credits the folder ``BOSL2/`` (the library copied whole) to another
    holder. The dice model stays the owner's."""
    from codemix.filters.vendored import copyright_holders

    files = layout("polydice-bosl2")
    assert copyright_holders(files["LICENSE"]) == {"charmaur", "revar desmera"}
    _, found = _judged("polydice-bosl2", "charmaur/PolyDiceGenerator")
    for path in ("BOSL2/gears.scad", "BOSL2/std.scad", "BOSL2/LICENSE"):
        assert "LICENSE credits 'BOSL2' to 'revar desmera'" in found[path][0].evidence, path
    assert found["PolyDiceGenerator.scad"][0] is None and found["LICENSE"][0] is None


def test_a_folder_text_naming_others_in_a_repository_with_no_licence_text():
    """hynra/JJA-input-playground (48ac793; the fourteenth holdout, spent): no licence text at its root;
    ``datafiles/licenses.txt`` carries SDL's zlib text ("Sam Lantinga") and Chromium's BSD text for the data files
    beside it. A repository granting nothing of its own holds a text naming others only for what came with that
    folder (round 18): the folder is a copy's. The game's own objects stay, and the same text naming the owner's
    handle is the owner's."""
    _, found = _judged("jja-datafiles", "hynra/JJA-input-playground")
    for path in ("datafiles/licenses.txt", "datafiles/controllertypes.csv"):
        assert "in a repository with no license text whose address names none" in found[path][0].evidence, path
    for path in ("objects/obj_player/Create_0.gml", "objects/obj_pause_menu/Step_0.gml"):
        assert found[path][0] is None, path
    files = layout("jja-datafiles")
    files["datafiles/licenses.txt"] = files["datafiles/licenses.txt"].replace("Sam Lantinga", "Hynra") \
        .replace("The Chromium Authors", "Hynra")
    _, found = _judged("", "hynra/JJA-input-playground", files)
    assert found["datafiles/licenses.txt"][0] is None and found["datafiles/controllertypes.csv"][0] is None


def test_a_head_pointing_to_a_sites_licence_page_and_the_copys_companions():
    """RobotoSkunk/PixelMan-GMS2 (93d9c72; issue 46 development set 46ac; MIT, Edgar Lima): GMLscripts.com's
    functions carry no holder, only "/// GMLscripts.com/license", a line pointing to that site's licence page: the
    file is that site's (round 18). Its GameMaker resource ``b64_to_byte.yy``, named as the script is but for the
    extension, came with it. The game's own ``dec2hex`` (and its resource) stays; a licence publisher's page
    (opensource.org) names terms, not a home."""
    from codemix.filters.vendored import copied_file_statement

    _, found = _judged("pixelman-gmlscripts", "RobotoSkunk/PixelMan-GMS2")
    assert "gmlscripts.com's licence page" in found["scripts/b64_to_byte/b64_to_byte.gml"][0].evidence
    assert "named as scripts/b64_to_byte/b64_to_byte.gml" in found["scripts/b64_to_byte/b64_to_byte.yy"][0].evidence
    for path in ("scripts/dec2hex/dec2hex.gml", "scripts/dec2hex/dec2hex.yy", "LICENSE"):
        assert found[path][0] is None, path
    script = layout("pixelman-gmlscripts")["scripts/b64_to_byte/b64_to_byte.gml"]
    assert copied_file_statement(script.replace("GMLscripts.com/license", "opensource.org/licenses/MIT"),
                                 "RobotoSkunk/PixelMan-GMS2", "scripts/b64_to_byte/b64_to_byte.gml") is None
    # a site the address names is the owner's own (a snippet site run by the owner)
    assert copied_file_statement(script, "gmlscripts/snippets", "scripts/b64_to_byte/b64_to_byte.gml") is None


def test_a_packages_head_file_speaks_for_its_package():
    """brenobaptista/lua-love2d (88b242f; development set 46ad; MIT, Breno Baptista, 2022): the Simple Tiled
    Implementation copied into ``crushing-balls/libs/sti/``: its ``init.lua``, the file Lua loads for ``require
    "sti"``, heads it "@author Landon Manning" over a year-only "@copyright 2019" (the author tag names the holder the
    year leaves unnamed), older than the repository's own: the package is his, its header-less ``graphics.lua`` and
    ``utils.lua`` with it (round 18). lust's banner gives its home on the next line. The owner's own modules stay."""
    from codemix.filters.vendored import first_copyright

    files = layout("lua-love2d-sti")
    assert first_copyright(files["crushing-balls/libs/sti/init.lua"]) == ("landon manning", 2019)
    _, found = _judged("lua-love2d-sti", "brenobaptista/lua-love2d")
    for path in ("crushing-balls/libs/sti/graphics.lua", "crushing-balls/libs/sti/utils.lua"):
        assert "crushing-balls/libs/sti/init.lua, the package's head: header names 'landon manning' from 2019" \
            in found[path][0].evidence, path
    assert "'lust' 0.1.0 at 'https://github.com/bjornbytes/lust'" in found["signal/spec/lust.lua"][0].evidence
    for path in ("crushing-balls/src/camera.lua", "sokoban/libs/mixer.lua", "crushing-balls/main.lua", "LICENSE"):
        assert found[path][0] is None, path
    # the same head under the owner's name is the owner's package; a banner's home under the owner's own account too
    files["crushing-balls/libs/sti/init.lua"] = files["crushing-balls/libs/sti/init.lua"].replace("Landon Manning", "Breno Baptista")
    files["signal/spec/lust.lua"] = files["signal/spec/lust.lua"].replace("bjornbytes", "brenobaptista")
    _, found = _judged("", "brenobaptista/lua-love2d", files)
    assert found["crushing-balls/libs/sti/utils.lua"][0] is None and found["signal/spec/lust.lua"][0] is None


def test_a_python_packages_module_fields_name_its_author():
    """FoxoTech/methylize (93b975d; development set 46ad; MIT, FOXO Technologies, 2022): ``methylize/cpv/__init__.py``
    names Brent Pedersen in ``__author__``, 2013 in ``__year__`` and MIT in ``__license__`` (combined-pvalues, copied):
    the package's head under another author, older than the repository, speaks for ``cpv/`` (round 18); its
    header-less modules go with it. methylize's own modules stay."""
    _, found = _judged("methylize-cpv", "FoxoTech/methylize")
    for path in ("methylize/cpv/__init__.py", "methylize/cpv/acf.py", "methylize/cpv/fdr.py"):
        assert "header names 'brent pedersen' from 2013, before the repository's" in found[path][0].evidence, path
    for path in ("methylize/__init__.py", "methylize/helpers.py", "LICENSE.txt"):
        assert found[path][0] is None, path
    # a package holding a third of the repository or more is its main one (a fork's head may keep an older author)
    files = {path: text for path, text in layout("methylize-cpv").items()
             if path.startswith("methylize/cpv/") or path in ("LICENSE.txt", "methylize/__init__.py", "methylize/helpers.py")}
    _, found = _judged("", "FoxoTech/methylize", files)
    assert found["methylize/cpv/acf.py"][0] is None


def test_a_credits_file_linking_a_file_by_its_name_and_a_head_based_on_its_namesake():
    """evie-calico/esprit (9b5edac; the sixteenth holdout, spent; FIT): its root ``credits.md`` links
    "[fortISSimO.asm](https://github.com/ISSOtm/fortISSimO)" under another author's name: the one file of the tree so
    named is that repository's copy. ``src/include/hardware.inc`` says "Based on Jones' hardware.inc", a file of its own
    name: a revision of that community file; "ISSOtm's Menu System, adapted for use in the VuiBui engine." names
    another's work, adapted. The game's own files stay, and a link to a repository of the owner's is the owner's work
    published elsewhere."""
    _, found = _judged("esprit-credits", "evie-calico/esprit")
    assert "credits.md links 'fortISSimO.asm' to https://github.com/ISSOtm/fortISSimO" \
        in found["src/libs/fortISSimO.asm"][0].evidence
    assert "Based on Jones' hardware.inc" in found["src/include/hardware.inc"][0].evidence
    # "; ISSOtm's Menu System, adapted for use in the VuiBui engine.": another's work, adapted
    assert "ISSOtm's Menu System, adapted for" in found["src/libs/menus.asm"][0].evidence
    # the credits' "pal_fade_dmgcgb.asm", linked to ISSOtm's gist, nearly spells the one file ``pal_fade_dmgbc.asm``
    # (round 19)
    assert "links 'pal_fade_dmgcgb.asm' to https://gist.github.com/ISSOtm/" in found["src/libs/pal_fade_dmgbc.asm"][0].evidence
    for path in ("src/crash.asm", "src/hud.asm", "src/include/config.inc", "credits.md", "LICENSE"):
        assert found[path][0] is None, path
    files = layout("esprit-credits")
    files["credits.md"] = files["credits.md"].replace("ISSOtm/fortISSimO", "evie-calico/fortISSimO")
    files["src/include/hw.inc"] = files.pop("src/include/hardware.inc")  # based on another file, not its namesake
    _, found = _judged("", "evie-calico/esprit", files)
    assert found["src/libs/fortISSimO.asm"][0] is None and found["src/include/hw.inc"][0] is None
    _, found = _judged("", "issotm/menus", files)  # the owner's own work, so named
    assert found["src/libs/menus.asm"][0] is None


def test_a_labelled_source_line_below_a_title():
    """a327ex/SNKRX (6b93a64; the sixteenth holdout, spent; FIT): SDL's game controller database opens "# Game
    Controller DB for SDL in 2.0.10 format" over "# Source: https://github.com/gabomdq/SDL_GameControllerDB": a
    labelled field, not a sentence running on from the title, so the file says where it came from. The game's own
    files stay; an unlabelled "from" after a title line stays a sentence's end."""
    _, found = _judged("snkrx-controllerdb", "a327ex/SNKRX")
    assert "Source: https://github.com/gabomdq/SDL_GameControllerDB" in found["engine/gamecontrollerdb.txt"][0].evidence
    for path in ("main.lua", "arena.lua", "LICENSE"):
        assert found[path][0] is None, path
    files = layout("snkrx-controllerdb")
    files["engine/gamecontrollerdb.txt"] = files["engine/gamecontrollerdb.txt"].replace("# Source:", "# from")
    _, found = _judged("", "a327ex/SNKRX", files)
    assert found["engine/gamecontrollerdb.txt"][0] is None


def test_a_head_crediting_its_author_and_home():
    """matcornic/hugo-theme-learn (3202533; the sixteenth holdout, spent; MIT, Grav, Mathieu Cornic, Valere Jeantet): its
    ``static/`` copies say whose they are and where they live in their opening comments, naming no copyright: "vim-hybrid
    theme by w0ng (https://github.com/w0ng/vim-hybrid)", "... by Gidi Morris, ..." over the original's address, the
    fields "Author: Anthony Garand" and "Website: http://stickyjs.com/", a release "JavaScript autoComplete v1.0.4"
    over its GitHub address (round 19). The plugin's stylesheet in ``static/css/`` goes with its script in
    ``static/js/``; the theme's own scripts and styles stay."""
    _, found = _judged("hugo-learn-credits", "matcornic/hugo-theme-learn")
    assert "names its author 'w0ng'" in found["static/css/hybrid.css"][0].evidence
    assert "names its author 'gidi morris'" in found["static/css/atom-one-dark-reasonable.css"][0].evidence
    assert "names its author 'anthony garand'" in found["static/js/jquery.sticky.js"][0].evidence
    assert "'JavaScript autoComplete v1.0.4'" in found["static/js/auto-complete.js"][0].evidence
    assert "auto-complete.js" in found["static/css/auto-complete.css"][0].evidence
    for path in ("static/js/learn.js", "static/js/hugo-learn.js", "static/css/theme.css", "static/css/tags.css",
                 "static/css/nucleus.css", "LICENSE.md"):
        assert found[path][0] is None, path
    files = layout("hugo-learn-credits")
    # the author one of the repository's holders, or the home the repository's own account: the theme's own file
    files["static/js/jquery.sticky.js"] = files["static/js/jquery.sticky.js"].replace("Anthony Garand", "Mathieu Cornic")
    files["static/css/hybrid.css"] = files["static/css/hybrid.css"].replace("w0ng", "matcornic")
    # a head naming whose idea it follows is no credit of authorship
    files["static/css/atom-one-dark-reasonable.css"] = files["static/css/atom-one-dark-reasonable.css"].replace(
        "ReasonML by Gidi Morris", "ReasonML, inspired by Gidi Morris")
    _, found = _judged("", "matcornic/hugo-theme-learn", files)
    for path in ("static/js/jquery.sticky.js", "static/css/hybrid.css", "static/css/atom-one-dark-reasonable.css"):
        assert found[path][0] is None, path
    # an address not tied to the credit (no home field, not on the credit's lines) may be a tool the file is about
    files = layout("hugo-learn-credits")
    files["static/js/jquery.sticky.js"] = files["static/js/jquery.sticky.js"].replace("// Website:", "// Uses:")
    _, found = _judged("", "matcornic/hugo-theme-learn", files)
    assert found["static/js/jquery.sticky.js"][0] is None


def test_build_glue_naming_its_place_in_a_copied_runtime():
    """a327ex/SNKRX (6b93a64; the sixteenth holdout, spent; MIT, adn): LOVE's Windows runtime sits in ``engine/love/``
    with its own licence text, and beside it the game's build scripts, which pack the game from the repository's root
    ("-w ..\\..\\ -xr!engine/love"): a file that names its folder's place and climbs from there to the root was written
    for this repository, a copy does not know where it was put (round 19). The runtime's readme stays LOVE's."""
    _, found = _judged("snkrx-love-runtime", "a327ex/SNKRX")
    assert "own license.txt at engine/love/" in found["engine/love/readme.txt"][0].evidence
    assert found["engine/love/license.txt"][0] is not None
    for path in ("engine/love/build_windows.bat", "engine/love/build_web.bat", "main.lua", "LICENSE"):
        assert found[path][0] is None, path
    files = layout("snkrx-love-runtime")
    # naming the place without climbing to the root (Godot's addons name where they are installed) says nothing
    files["engine/love/build_web.bat"] = files["engine/love/build_web.bat"].replace("..\\..\\", "")
    _, found = _judged("", "a327ex/SNKRX", files)
    assert found["engine/love/build_web.bat"][0] is not None


def test_a_folders_namesake_module_is_its_head():
    """a327ex/BYTEPATH (51ee308; development set 46ae; MIT, a327ex, 2020): third-party Lua libraries copied into
    ``libraries/<name>/``, each with its module named for its folder: ``bitser/bitser.lua``'s header names Robin Wellner
    in 2016, before the repository's year, so its readme and specs are his library's too (round 19), as a package's
    ``init.lua`` speaks for its folder. ``ser/ser.lua`` has no header of its own beside Ser's licence text: a library's
    namesake module with a bare extension is no framework's wrapper convention (ohmyzsh's ``.plugin.zsh``) and stays
    in the copied folder. The game's own code and its own input library stay."""
    _, found = _judged("bytepath-libraries", "a327ex/BYTEPATH")
    for path in ("libraries/bitser/README.md", "libraries/bitser/spec/bitser_spec.lua"):
        assert "libraries/bitser/bitser.lua, the package's head: header names 'robin wellner'" in found[path][0].evidence, path
    assert "libraries/ripple/ripple.lua, the package's head" in found["libraries/ripple/readme.md"][0].evidence
    assert "own LICENSE.md at libraries/ser/" in found["libraries/ser/ser.lua"][0].evidence
    for path in ("main.lua", "libraries/boipushy/Input.lua", "libraries/grid/grid.lua", "LICENSE"):
        assert found[path][0] is None, path
    files = layout("bytepath-libraries")
    files["libraries/bitser/bitser.lua"] = files["libraries/bitser/bitser.lua"].replace("Robin Wellner", "a327ex")
    files["libraries/bitser/core.lua"] = files.pop("libraries/bitser/bitser.lua").replace("a327ex", "Robin Wellner")
    _, found = _judged("", "a327ex/BYTEPATH", files)
    assert found["libraries/bitser/README.md"][0] is None  # a module not named for its folder speaks for itself alone
    # a namesake saying it is based on another's work is the repository's own (hugo's ``attributes/attributes.go``,
    # "based on/inspired by https://github.com/mdigger/goldmark-attributes" over Dmitry Sedykh's MIT notice)
    files = layout("bytepath-libraries")
    files["libraries/bitser/bitser.lua"] = files["libraries/bitser/bitser.lua"].replace(
        "--[[", "--[[\nThis module is based on Robin Wellner's bitser.", 1)
    _, found = _judged("", "a327ex/BYTEPATH", files)
    assert found["libraries/bitser/README.md"][0] is None


def test_a_header_less_companion_of_a_file_naming_another_holders_home():
    """vjeantet/hugo-theme-docdock (d15e520; development set 46ae): ``static/js/auto-complete.js`` names Simon
    Steinberger / Pixabay beside "https://github.com/Pixabay/JavaScript-autoComplete"; its stylesheet, header-less,
    sits in ``static/css/`` under the same name (round 19). The theme's own scripts and styles stay."""
    _, found = _judged("docdock-companions", "vjeantet/hugo-theme-docdock")
    assert found["static/js/auto-complete.js"][0] is not None
    assert "named as static/js/auto-complete.js" in found["static/css/auto-complete.css"][0].evidence
    for path in ("static/js/docdock.js", "static/js/search.js", "static/css/nucleus.css", "LICENSE.md"):
        assert found[path][0] is None, path
    files = layout("docdock-companions")
    files["static/js/auto-complete.js"] = files["static/js/auto-complete.js"].replace("Pixabay/JavaScript", "vjeantet/JavaScript")
    _, found = _judged("", "vjeantet/hugo-theme-docdock", files)
    assert found["static/css/auto-complete.css"][0] is None  # beside the owner's own repository: no other's home


@pytest.mark.parametrize(("path", "repo", "said"), [
    ("completion/available/knife.completion.bash", "Bash-it/bash-it",
     "Published originally as public domain code at https://github.com/wk8/knife-bash-autocomplete"),
    ("pyglet/libs/win32/constants.py", "pyglet/pyglet", "Most of this file is win32con.py from"),
    ("lua/luasnip/extras/_lambda.lua", "L3MON4D3/LuaSnip", "Mostly borrowed from https://github.com/lunarmodules/Penlight/"),
])
def test_a_head_saying_where_the_file_was_published_borrowed_or_taken(path, repo, said):
    """The seventeenth holdout (spent; FIT, round 19): heads that say the file is another's in words no rule read before
    ("Published originally ... at <repository>", "Most of this file is <file> from <project>", "Mostly borrowed from
    <address>"). A sentence saying only that code follows another's idea stays the repository's."""
    from codemix.filters.vendored import copied_file_statement

    text = layout("h17-copy-statements")[path]
    assert said in copied_file_statement(text, repo, path)
    assert copied_file_statement(text.replace(said, "Inspired by the same tool"), repo, path) is None


def test_a_first_line_naming_the_file_and_its_author():
    """errbit/errbit (d21d0d3; the seventeenth holdout, spent; FIT, round 19; MIT, Errbit Team): ``reset.css`` opens
    "Reset.css - by Eric Meyer" over "Modified for NewsStand": the file names itself and its author, none of the
    repository's, so it is that author's file; errbit's own stylesheet and model stay, and so does the same line naming
    the repository's team."""
    _, found = _judged("errbit-reset", "errbit/errbit")
    assert "names its author 'eric meyer'" in found["app/assets/stylesheets/reset.css"][0].evidence
    for path in ("app/assets/stylesheets/application.css", "app/models/app.rb", "LICENSE"):
        assert found[path][0] is None, path
    files = layout("errbit-reset")
    files["app/assets/stylesheets/reset.css"] = files["app/assets/stylesheets/reset.css"].replace("Eric Meyer", "Errbit Team")
    _, found = _judged("", "errbit/errbit", files)
    assert found["app/assets/stylesheets/reset.css"][0] is None
