"""Repository documents: import graphs per language, dependency order, file-boundary chunks, FIM."""

from __future__ import annotations

import ast
import random
import sysconfig
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer

from codemix.config import ConfigError, load_config
from codemix.mixtures.imports import import_graph
from codemix.mixtures.repository import (
    DUPLICATE_PATH,
    FILE_OVER_CONTEXT,
    FILE_SEP,
    FIM_MIDDLE,
    FIM_PREFIX,
    FIM_SUFFIX,
    PART_RESERVE,
    REPO_NAME,
    SUBMODULES,
    ImportOrderReport,
    RepositoryDocumentConfig,
    apply_fim,
    dependency_order,
    import_order_report,
    render_header,
    render_repository,
    repository_documents,
    split_at_file_boundaries,
)
from codemix.mixtures.tokenizer import SPECIAL_TOKENS, train_bpe
from codemix.pipelines.readers.language import detect_language

STDLIB = Path(sysconfig.get_path("stdlib"))

# Each fixture repository: path -> text, and the exact in-repository import edges it must yield.
PYTHON_REPO = {
    "setup.py": "from setuptools import setup\n\nsetup(name='shapes', package_dir={'': 'src'})\n",
    "src/shapes/__init__.py": "from .circle import (\n    Circle,\n    unit_circle,\n)\nfrom .square import Square\n",
    "src/shapes/base.py": "import math\nfrom abc import ABC, abstractmethod\n\n\nclass Shape(ABC):\n    pass\n",
    "src/shapes/circle.py": "import math\n\nfrom .base import Shape\n\n\nclass Circle(Shape):\n    pass\n",
    "src/shapes/square.py": "from shapes.base import Shape  # absolute, resolved from src/\n\nclass Square(Shape): ...\n",
    "src/shapes/util/__init__.py": "",
    "src/shapes/util/geometry.py": "from .. import base\nfrom ..base import Shape as S\n\ndef area(s: S): ...\n",
    "tests/test_shapes.py": (
        "import pytest\nimport shapes\nfrom shapes import circle, square as sq\n"
        "from shapes.util import geometry\n\ndef test_area():\n    import os.path\n"
    ),
}
PYTHON_EDGES = {
    "src/shapes/__init__.py": {"src/shapes/circle.py", "src/shapes/square.py"},
    "src/shapes/circle.py": {"src/shapes/base.py"},
    "src/shapes/square.py": {"src/shapes/base.py"},
    "src/shapes/util/geometry.py": {"src/shapes/base.py"},
    "tests/test_shapes.py": {
        "src/shapes/__init__.py",
        "src/shapes/circle.py",
        "src/shapes/square.py",
        "src/shapes/util/geometry.py",
    },
}

TYPESCRIPT_REPO = {
    "package.json": '{"name": "calc", "version": "1.0.0"}\n',
    "src/index.ts": (
        "export { add } from './math';\nimport { format } from \"./utils/format.js\";\nimport React from 'react';\n"
        "export const lazy = () => import('./lazy');\n"
    ),
    "src/lazy.js": "module.exports = { value: 1 };\n",
    "src/math.ts": "import { EPS } from './constants'\nexport const add = (a: number, b: number) => a + b;\n",
    "src/constants.ts": "export const EPS = 1e-9;\n",
    "src/utils/format.ts": "import { EPS } from '../constants';\nimport * as lib from '../lib';\n",
    "src/lib/index.ts": "export * from './strings';\n",
    "src/lib/strings.ts": "export const pad = (s: string) => s.padStart(4);\n",
    "scripts/build.js": (
        "const fs = require('fs');\nconst pkg = require('../package.json');\nconst { add } = require(\"../dist/math\");\n"
    ),
}
TYPESCRIPT_EDGES = {
    "src/index.ts": {"src/math.ts", "src/utils/format.ts", "src/lazy.js"},
    "src/math.ts": {"src/constants.ts"},
    "src/utils/format.ts": {"src/constants.ts", "src/lib/index.ts"},
    "src/lib/index.ts": {"src/lib/strings.ts"},
    "scripts/build.js": {"package.json"},
}

JAVA = "src/main/java/com/acme/"
JAVA_REPO = {
    JAVA + "model/User.java": "package com.acme.model;\n\nimport java.util.List;\n\npublic class User {}\n",
    JAVA + "model/Role.java": "package com.acme.model;\n\npublic enum Role { ADMIN }\n",
    JAVA + "service/UserService.java": (
        "package com.acme.service;\n\nimport com.acme.model.User;\nimport com.acme.model.*;\n\npublic class UserService {}\n"
    ),
    JAVA + "util/Strings.java": "package com.acme.util;\n\npublic final class Strings {}\n",
    JAVA + "App.java": (
        "package com.acme;\n\nimport com.acme.service.UserService;\nimport static com.acme.util.Strings.join;\n"
        "\npublic class App {}\n"
    ),
    "src/test/java/com/acme/service/UserServiceTest.java": (
        "package com.acme.service;\n\nimport org.junit.Test;\nimport com.acme.service.UserService;\n"
    ),
}
JAVA_EDGES = {
    JAVA + "service/UserService.java": {JAVA + "model/User.java", JAVA + "model/Role.java"},
    JAVA + "App.java": {JAVA + "service/UserService.java", JAVA + "util/Strings.java"},
    "src/test/java/com/acme/service/UserServiceTest.java": {JAVA + "service/UserService.java"},
}

C_REPO = {
    "include/vec/vec.h": "#pragma once\n#include <stddef.h>\ntypedef struct vec vec;\n",
    "include/vec/alloc.h": "#pragma once\nvoid *vec_alloc(unsigned long n);\n",
    "src/vec.c": '#include "vec/vec.h"\n#include "vec/alloc.h"\n#include "internal.h"\n#include <stdlib.h>\n',
    "src/internal.h": '#ifndef INTERNAL_H\n#define INTERNAL_H\n  #  include "vec/alloc.h"\n#endif\n',
    "tests/test_vec.cpp": '#include <vec/vec.h>\n#include <vector>\n#include "../src/internal.h"\nint main() {}\n',
}
C_EDGES = {
    "src/vec.c": {"include/vec/vec.h", "include/vec/alloc.h", "src/internal.h"},
    "src/internal.h": {"include/vec/alloc.h"},
    "tests/test_vec.cpp": {"include/vec/vec.h", "src/internal.h"},
}

GO_REPO = {
    "go.mod": "module github.com/acme/kv\n\ngo 1.21\n",
    "store/store.go": 'package store\n\nimport (\n\t"errors"\n\t"sync"\n\n\t"github.com/acme/kv/codec"\n)\n',
    "store/store_test.go": 'package store\n\nimport "testing"\n',
    "codec/codec.go": 'package codec\n\nimport "fmt"\n',
    "codec/json.go": 'package codec\n\nimport enc "encoding/json"\n',
    "cmd/kv/main.go": 'package main\n\nimport (\n\t"fmt"\n\tkvstore "github.com/acme/kv/store"\n)\n',
    # A nested module: its import paths share the outer module's prefix, the longer one must win.
    "tools/go.mod": "module github.com/acme/kv/tools\n",
    "tools/internal/paths.go": "package internal\n",
    "tools/gen/gen.go": (
        'package main\n\nimport (\n\t"github.com/acme/kv/tools/internal"\n\t"github.com/acme/kv/codec"\n'
        '\t"github.com/other/util"\n)\n'
    ),
}
GO_EDGES = {
    "store/store.go": {"codec/codec.go", "codec/json.go"},
    "cmd/kv/main.go": {"store/store.go"},  # a package is its directory's non-test files
    "tools/gen/gen.go": {"tools/internal/paths.go", "codec/codec.go", "codec/json.go"},
}

RUST_REPO = {
    "Cargo.toml": '[package]\nname = "tinyparse"\nversion = "0.1.0"\n',
    "src/lib.rs": "pub mod parser;\nmod lexer;\n\npub use crate::parser::Parser;\n",
    "src/lexer.rs": "use std::str::Chars;\n\npub mod token;\n\npub struct Lexer;\n",
    "src/lexer/token.rs": "#[derive(Debug)]\npub enum Token { Ident }\n",
    "src/parser/mod.rs": "mod ast;\nuse crate::lexer::{\n    Lexer,\n    token::Token,\n};\nuse self::ast::Node;\n",
    "src/parser/ast.rs": "use super::super::lexer::token::Token as Tok;\n\npub struct Node(Tok);\n",
    "src/main.rs": "use tinyparse::Parser;\n\nmod cli;\n\nfn main() {}\n",
    "src/cli.rs": "use crate::parser::Parser;\n",
}
RUST_EDGES = {
    "src/lib.rs": {"src/parser/mod.rs", "src/lexer.rs"},
    "src/lexer.rs": {"src/lexer/token.rs"},
    "src/parser/mod.rs": {"src/parser/ast.rs", "src/lexer.rs", "src/lexer/token.rs"},
    "src/parser/ast.rs": {"src/lexer/token.rs"},
    "src/main.rs": {"src/cli.rs"},
    "src/cli.rs": {"src/parser/mod.rs"},
}

FIXTURES = {
    "python": (PYTHON_REPO, PYTHON_EDGES),
    "typescript": (TYPESCRIPT_REPO, TYPESCRIPT_EDGES),
    "java": (JAVA_REPO, JAVA_EDGES),
    "c": (C_REPO, C_EDGES),
    "go": (GO_REPO, GO_EDGES),
    "rust": (RUST_REPO, RUST_EDGES),
}


def as_files(repo: dict[str, str]) -> list[tuple[str, str, str]]:
    """``(path, language, text)`` with the language the readers would detect."""
    return [(path, detect_language(path, text), text) for path, text in repo.items()]


def stdlib_package(name: str) -> list[tuple[str, str, str]]:
    paths = sorted((STDLIB / name).rglob("*.py"))
    return [(str(p.relative_to(STDLIB)), "python", p.read_text(encoding="utf-8")) for p in paths]


@pytest.fixture(scope="module")
def tokenizer() -> Tokenizer:
    return train_bpe([text for _, _, text in stdlib_package("json")], vocab_size=500)


@pytest.fixture(scope="module")
def count(tokenizer):
    return lambda text: len(tokenizer.encode(text).ids)


def unfim(text: str) -> str:
    """Undo ``apply_fim``: the original text from a PSM or SPM example."""
    assert text.startswith(FIM_PREFIX) and text.count(FIM_SUFFIX) == 1 and text.count(FIM_MIDDLE) == 1
    if text.startswith(FIM_PREFIX + FIM_SUFFIX):  # SPM: suffix, then prefix + middle
        suffix, prefix_middle = text[len(FIM_PREFIX + FIM_SUFFIX) :].split(FIM_MIDDLE)
        return prefix_middle + suffix
    prefix, rest = text[len(FIM_PREFIX) :].split(FIM_SUFFIX)
    suffix, middle = rest.split(FIM_MIDDLE)
    return prefix + middle + suffix


def positions(order: list[str]) -> dict[str, int]:
    return {path: i for i, path in enumerate(order)}


# Import graphs and dependency order -----------------------------------------------------------


@pytest.mark.parametrize("language", FIXTURES)
def test_import_graph_finds_exactly_the_in_repository_imports(language):
    repo, edges = FIXTURES[language]
    files = as_files(repo)
    assert any(lang.startswith(language[:2]) for _, lang, _ in files), "fixture must be in the language under test"
    graph = import_graph(files)
    assert graph == {path: edges.get(path, set()) for path in repo}


@pytest.mark.parametrize("language", FIXTURES)
def test_dependency_order_puts_every_imported_file_before_its_importer(language):
    repo, edges = FIXTURES[language]
    order = dependency_order(list(repo), import_graph(as_files(repo)))
    at = positions(order)
    assert sorted(order) == sorted(repo)
    assert sum(map(len, edges.values())) >= 3, "fixture must have edges to order"
    for importer, imported in edges.items():
        assert all(at[target] < at[importer] for target in imported), (importer, order)


def test_lookalikes_of_external_imports_make_no_edges():
    repo = {
        "app/json.py": "",  # not on the path of the root-level script below
        "main.py": "import json\nfrom typing import List\nimport app.missing.deep\n",
        "util/u.go": "package util\n",  # no go.mod: the repository's own import prefix is unknown
        "main.go": 'package main\n\nimport "github.com/other/util"\n',
        "web/a.js": "import x from 'a';\nconst b = require('lodash/b');\n",
        "web/b.js": "",
    }
    graph = import_graph(as_files(repo))
    assert graph["main.py"] == set() and graph["main.go"] == set() and graph["web/a.js"] == set()


def test_import_cycle_terminates_and_keeps_every_file_once():
    repo = {
        "a.py": "import b\n",
        "b.py": "import c\n",
        "c.py": "from a import thing\n",
        "main.py": "import a\n",
        "base.py": "",
        "d.py": "import base\nimport c\n",
    }
    graph = import_graph(as_files(repo))
    assert graph["a.py"] == {"b.py"} and graph["b.py"] == {"c.py"} and graph["c.py"] == {"a.py"}
    order = dependency_order(list(repo), graph)
    assert sorted(order) == sorted(repo)
    at = positions(order)
    assert at["base.py"] < at["d.py"] and at["a.py"] < at["main.py"]
    # Components in topological order, ties by first path: the cycle {a, b, c} and base.py import nothing
    # outside themselves, and "a.py" < "base.py". Inside the cycle every file has one import, so the tie
    # goes to a.py, which frees c.py, then b.py; d.py and main.py follow what they import.
    assert order == ["a.py", "c.py", "b.py", "base.py", "d.py", "main.py"]
    assert import_order_report(order, graph) == ImportOrderReport(
        files=6, edges=6, cycles=1, cycle_edges=3, forward_outside_cycles=0, forward_inside_cycles=1)


def test_dependency_order_ignores_edges_outside_paths_and_is_deterministic():
    graph = {"b": {"a", "missing"}, "a": {"a"}, "c": set()}
    # a (no imports) first; then b and c both have none outstanding, so the path decides.
    assert dependency_order(["c", "b", "a", "b"], graph) == ["a", "b", "c"]
    assert dependency_order(["a", "b", "c"], graph) == dependency_order(["c", "a", "b"], graph)


def test_json_package_orders_scanner_decoder_then_package_then_tool():
    files = stdlib_package("json")
    graph = import_graph(files)
    assert graph["json/decoder.py"] == {"json/scanner.py"}
    assert graph["json/__init__.py"] == {"json/decoder.py", "json/encoder.py"}
    at = positions(dependency_order([p for p, _, _ in files], graph))
    assert at["json/scanner.py"] < at["json/decoder.py"] < at["json/__init__.py"] < at["json/tool.py"]
    assert at["json/encoder.py"] < at["json/__init__.py"]


def test_email_package_respects_most_imports_despite_its_cycles():
    files = stdlib_package("email")
    graph = import_graph(files)
    at = positions(dependency_order([p for p, _, _ in files], graph))
    assert {"email/errors.py", "email/charset.py"} <= graph["email/header.py"]
    assert at["email/errors.py"] < at["email/header.py"] and at["email/charset.py"] < at["email/header.py"]
    assert at["email/feedparser.py"] < at["email/parser.py"]
    assert at["email/mime/base.py"] < at["email/mime/nonmultipart.py"] < at["email/mime/text.py"]
    edges = [(importer, target) for importer, targets in graph.items() for target in targets]
    assert len(edges) > 40
    # email has real cycles (message <-> policy, imports inside functions), so not every edge can
    # hold, but the ordering must satisfy the large majority.
    assert sum(at[target] < at[importer] for importer, target in edges) / len(edges) > 0.8


# Pieces of import syntax from every parser, plus NUL and non-ASCII, glued at random.
IMPORT_FRAGMENTS = [
    *["import ", "from ", "mod ", "use ", "#include ", "require(", "module ", " as "],  # keywords
    *[".", "..", "/", "./", "::", "crate", "super", "self", "a", "b", "*"],  # path pieces
    *["(", ")", "{", "}", ";", ",", "\n", '"', "'", "<", ">", "\x00", "é"],  # punctuation, NUL, non-ASCII
]
FUZZ_LANGUAGES = ["python", "javascript", "typescript", "java", "c", "cpp", "go", "rust", ""]
FUZZ_PATHS = [
    *["a.py", "pkg/__init__.py", "pkg/b.py", "src/x.ts", "src/index.js"],
    *["go.mod", "a/b.rs", "src/lib.rs", "inc/a.h", "com/a/B.java"],
]


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(FUZZ_LANGUAGES), st.lists(st.sampled_from(IMPORT_FRAGMENTS), max_size=60)), max_size=8
    )
)
def test_import_graph_never_raises_and_keeps_only_in_repository_edges(records):
    files = [(FUZZ_PATHS[i % len(FUZZ_PATHS)], language, "".join(parts)) for i, (language, parts) in enumerate(records)]
    graph = import_graph(files)
    for path, targets in graph.items():
        assert path not in targets and targets <= set(graph)


def test_import_graph_is_linear_on_pathological_text():
    hostile = "from " + "." * 200_000 + "\n" + "import (" * 20_000 + "use {" * 20_000 + '#include "' * 20_000
    files = [
        (f"f{i}.{ext}", language, hostile)
        for i, (language, ext) in enumerate(
            [("python", "py"), ("go", "go"), ("rust", "rs"), ("c", "c"), ("java", "java"), ("tsx", "tsx")]
        )
    ]
    graph = import_graph(files)
    assert all(not targets for targets in graph.values())


# Chunking, rendering, FIM --------------------------------------------------------------------


def test_split_packs_in_order_and_sets_oversized_files_aside():
    ordered = [("a", 4), ("b", 5), ("huge", 11), ("c", 1), ("d", 10), ("e", 0)]
    chunks, oversized = split_at_file_boundaries(ordered, 10)
    assert chunks == [["a", "b", "c"], ["d", "e"]] and oversized == ["huge"]


def test_render_layout_uses_markers_that_are_not_special_tokens():
    text = render_repository("acme/kv", [("a.py", "x = 1"), ("b.py", "y = 2\n"), ("empty.py", "")], header=True)
    assert text == "<repo_name>acme/kv\n<file_sep>a.py\nx = 1\n<file_sep>b.py\ny = 2\n<file_sep>empty.py\n"
    assert render_repository("acme/kv", [("a.py", "x\n")], header=False) == "<file_sep>a.py\nx\n"
    markers = (REPO_NAME, FILE_SEP, FIM_PREFIX, FIM_MIDDLE, FIM_SUFFIX)
    assert not any(marker in special or special in marker for marker in markers for special in SPECIAL_TOKENS)


@pytest.mark.parametrize("spm", [False, True])
def test_fim_formats_reconstruct_the_original(spm):
    rng = random.Random(7)
    text = (STDLIB / "json" / "decoder.py").read_text(encoding="utf-8")[:3000]
    for length in [0, 1, 2, 50, 3000]:
        fims = [apply_fim(text[:length], rng, spm=spm) for _ in range(50)]
        assert all(unfim(fim) == text[:length] for fim in fims)
        # SPM always opens with both sentinels; PSM only when its prefix happens to be empty.
        opens = [fim.startswith(FIM_PREFIX + FIM_SUFFIX) for fim in fims]
        assert all(opens) if spm or length == 0 else not all(opens)


def test_fim_layouts_match_starcoder():
    class Fixed(random.Random):
        def randint(self, a, b):  # cut points 2 and 5 in "abcdefgh"
            self.calls = getattr(self, "calls", 0) + 1
            return 5 if self.calls == 1 else 2

    assert apply_fim("abcdefgh", Fixed(), spm=False) == "<fim_prefix>ab<fim_suffix>fgh<fim_middle>cde"
    assert apply_fim("abcdefgh", Fixed(), spm=True) == "<fim_prefix><fim_suffix>fgh<fim_middle>abcde"


@pytest.fixture(scope="module")
def email_files():
    files = stdlib_package("email")
    assert sum(len(text) for _, _, text in files) > 300_000
    return files


def test_over_limit_repository_splits_only_at_file_boundaries(email_files, count):
    limit = 6_000
    texts = {path: text for path, _, text in email_files}
    result = repository_documents("python/email", email_files, count, limit, RepositoryDocumentConfig())
    assert len(result.chunks) >= 5 and sum(len(c.paths) > 1 for c in result.chunks) >= 3, "must need splitting"
    parts = len(result.chunks)
    for chunk in result.chunks:
        assert chunk.tokens == count(chunk.text) <= limit
        # The text is exactly whole files: one rendered block per path, nothing cut; the header says which part.
        assert chunk.text == render_repository("python/email", [(p, texts[p]) for p in chunk.paths], header=True,
                                               part=(chunk.index + 1, parts))
        assert chunk.text.startswith(f"{REPO_NAME}python/email part {chunk.index + 1} of {parts}\n")
    kept = [path for chunk in result.chunks for path in chunk.paths]
    order = dependency_order(list(texts), import_graph(email_files))
    dropped = {d.path for d in result.dropped}
    assert kept == [p for p in order if p not in dropped]
    assert all(
        d.reason == FILE_OVER_CONTEXT and d.tokens > limit - count(render_header("python/email", part=PART_RESERVE))
        for d in result.dropped
    )
    assert len(dropped) >= 1, "email/_header_value_parser.py alone is far over 6,000 tokens"
    # Packing is greedy: the next chunk's first file would not have fit in the previous chunk.
    for before, after in zip(result.chunks, result.chunks[1:]):
        with_next = render_repository(
            "python/email", [(p, texts[p]) for p in before.paths + after.paths[:1]], header=True, part=PART_RESERVE
        )
        assert count(with_next) > limit


def test_file_over_the_limit_is_dropped_not_truncated(count):
    files = [
        ("a.py", "python", "x = 1\n"),
        ("big.py", "python", "value = 'word'\n" * 2_000),
        ("b.py", "python", "import a\n"),
        ("a.py", "python", "shadow = 2\n"),
    ]
    result = repository_documents("r", files, count, 500, RepositoryDocumentConfig())
    assert [(d.path, d.reason) for d in result.dropped] == [("a.py", DUPLICATE_PATH), ("big.py", FILE_OVER_CONTEXT)]
    assert [c.paths for c in result.chunks] == [["a.py", "b.py"]]
    assert "x = 1" in result.chunks[0].text and "shadow" not in result.chunks[0].text


def test_random_order_is_a_seeded_permutation(email_files):
    def order(seed: int) -> list[str]:
        config = RepositoryDocumentConfig(order="random", seed=seed)
        # A whitespace count is enough here: one chunk holds everything, only the order matters.
        result = repository_documents("python/email", email_files, lambda t: len(t.split()), 10**9, config)
        assert len(result.chunks) == 1
        return result.chunks[0].paths

    paths = sorted(p for p, _, _ in email_files)
    assert sorted(order(1)) == paths
    assert order(1) == order(1) and order(1) != order(2) and order(1) != paths


# One file + header (19) + FIM reserve (32) fits; two files + header (>= 159) do not.
SMALL_LIMIT = 150


@pytest.fixture(scope="module")
def many_small_files():
    """400 small modules (70-82 tokens rendered); under SMALL_LIMIT every chunk holds exactly one."""
    return [
        (
            f"pkg/m{i:03d}.py",
            "python",
            f'"""Module {i} of the fixture."""\n\nVALUE_{i} = {i * 7919 % 1000}\n\n\ndef get_{i}():\n    return VALUE_{i}\n',
        )
        for i in range(400)
    ]


def test_fim_and_header_rates_hold_over_400_chunks(many_small_files, count):
    config = RepositoryDocumentConfig(fim_rate=0.5, fim_spm_rate=0.5, metadata_header_probability=0.3, seed=3)
    result = repository_documents("acme/many", many_small_files, count, SMALL_LIMIT, config)
    assert len(result.chunks) == 400 and not result.dropped
    texts = {path: text for path, _, text in many_small_files}
    fim = [c for c in result.chunks if c.fim]
    # Binomial(400, 0.5) has sd 10; 4 sd either side. SPM among ~200 FIM chunks: sd ~ 0.035.
    assert 160 <= len(fim) <= 240
    assert 0.36 <= sum(c.fim == "spm" for c in fim) / len(fim) <= 0.64
    assert 120 - 37 <= sum(c.header for c in result.chunks) <= 120 + 37
    for chunk in result.chunks:
        assert chunk.tokens == count(chunk.text) <= SMALL_LIMIT
        head = render_header("acme/many", part=(chunk.index + 1, len(result.chunks))) if chunk.header else ""
        assert chunk.text.startswith(head) and chunk.text.startswith(REPO_NAME) == chunk.header
        body = chunk.text[len(head) :]
        plain = render_repository("acme/many", [(p, texts[p]) for p in chunk.paths], header=False)
        assert (unfim(body) if chunk.fim else body) == plain
        assert chunk.fim != "spm" or body.startswith(FIM_PREFIX + FIM_SUFFIX)


@pytest.mark.parametrize(("rate", "expected"), [(0.0, 0), (1.0, 400)])
def test_fim_rate_extremes(many_small_files, count, rate, expected):
    config = RepositoryDocumentConfig(fim_rate=rate)
    result = repository_documents("acme/many", many_small_files, count, SMALL_LIMIT, config)
    assert len(result.chunks) == 400 and sum(bool(c.fim) for c in result.chunks) == expected
    assert all(c.header for c in result.chunks)


def test_output_is_deterministic_and_independent_of_input_order(email_files, count):
    config = RepositoryDocumentConfig(fim_rate=0.5, metadata_header_probability=0.5, seed=11)
    first = repository_documents("python/email", email_files, count, 8_000, config)
    shuffled = list(email_files)
    random.Random(0).shuffle(shuffled)
    again = repository_documents("python/email", shuffled, count, 8_000, config)
    assert first == again
    assert {c.fim for c in first.chunks} >= {"psm", "spm"} or len(first.chunks) < 6
    other = repository_documents("python/other", email_files, count, 8_000, config)
    assert [c.text for c in other.chunks] != [c.text for c in first.chunks]


def test_config_loads_and_names_the_bad_field():
    config = load_config(
        RepositoryDocumentConfig, {"order": "random", "fim_rate": 0.5, "seed": 4}, "stages.long.repository"
    )
    assert config.order == "random" and config.fim_rate == 0.5 and config.metadata_header_probability == 1.0
    with pytest.raises(ConfigError, match=r"^stages\.long\.repository\.fim_rate: 1\.5 is not a probability"):
        load_config(RepositoryDocumentConfig, {"fim_rate": 1.5}, "stages.long.repository")
    with pytest.raises(ConfigError, match=r"^stages\.long\.repository\.order: unknown value 'alphabetical'"):
        load_config(RepositoryDocumentConfig, {"order": "alphabetical"}, "stages.long.repository")


def email_import_edges(path: str, text: str, paths: set[str]) -> set[str]:
    """In-package edges of the stdlib ``email`` package by Python's own parser (not ``mixtures.imports``)."""
    package = path.rsplit("/", 1)[0].split("/")
    edges = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            modules = [alias.name.split(".") for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = base + (node.module.split(".") if node.module else [])
            modules = [module] + [module + [alias.name] for alias in node.names]
        else:
            continue
        for parts in modules:
            for target in ("/".join(parts) + ".py", "/".join(parts) + "/__init__.py"):
                if target in paths and target != path:
                    edges.add(target)
    return edges


def test_held_files_that_kept_files_import_are_put_back(email_files, count):
    """No import of a file in the documents points at a held file left out: ``ast`` reads the edges."""
    held_paths = {"email/errors.py", "email/quoprimime.py", "email/mime/audio.py"}
    texts = {path: text for path, _, text in email_files}
    edges = {path: email_import_edges(path, text, set(texts)) for path, text in texts.items()}
    importers = {target for targets in edges.values() for target in targets}
    assert {"email/errors.py", "email/quoprimime.py"} <= importers and "email/mime/audio.py" not in importers, "guard"
    kept = [record for record in email_files if record[0] not in held_paths]
    held = [record for record in email_files if record[0] in held_paths]
    result = repository_documents("python/email", kept, count, 10**9, RepositoryDocumentConfig(), held=held)
    placed = {path for chunk in result.chunks for path in chunk.paths}
    assert result.kept_for_imports == ["email/errors.py", "email/quoprimime.py"]
    assert placed == set(texts) - {"email/mime/audio.py"}
    assert [(path, target) for path in placed for target in edges[path] if target not in placed] == []


def test_held_files_imported_only_through_held_files_are_put_back_too(count):
    files = [("app.py", "python", "from pkg import api\n"), ("pkg/__init__.py", "python", "")]
    held = [("pkg/api.py", "python", "from pkg import table\n"), ("pkg/table.py", "python", "ROWS = [1, 2]\n"),
            ("pkg/unused.py", "python", "from pkg import table\n")]
    result = repository_documents("r", files, count, 10_000, RepositoryDocumentConfig(), held=held)
    assert result.kept_for_imports == ["pkg/api.py", "pkg/table.py"]
    assert [chunk.paths for chunk in result.chunks] == [["pkg/__init__.py", "pkg/table.py", "pkg/api.py", "app.py"]]


def test_first_document_of_a_repository_names_its_submodules(email_files, count):
    config = RepositoryDocumentConfig(metadata_header_probability=0.0)
    result = repository_documents("python/email", email_files, count, 6_000, config, submodules=("ext/a", "ext/b"))
    assert len(result.chunks) > 1, "guard: several documents"
    first, *rest = result.chunks
    parts = len(result.chunks)
    assert first.text.startswith(f"{REPO_NAME}python/email part 1 of {parts}\n{SUBMODULES}ext/a ext/b\n{FILE_SEP}")
    assert all(not chunk.header and chunk.text.startswith(FILE_SEP) for chunk in rest)
    assert all(chunk.tokens == count(chunk.text) <= 6_000 for chunk in result.chunks)
