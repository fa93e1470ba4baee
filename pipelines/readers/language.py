"""Programming-language detection from a file's path and, failing that, its shebang line.

Names are lowercase and match what code datasets use (The Stack's ``language`` column lowercased),
so a dump's own label and a detected one land in the same bucket. Unknown files get ``""`` rather
than a guess: a later filter can treat "unknown" explicitly, but a wrong label is silent.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

EXTENSIONS: dict[str, str] = {
    # general purpose
    ".py": "python", ".pyi": "python", ".pyw": "python", ".pyx": "cython", ".pxd": "cython",
    ".ipynb": "jupyter notebook",
    ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
    ".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx",
    ".java": "java", ".kt": "kotlin", ".kts": "kotlin", ".scala": "scala", ".sc": "scala",
    ".groovy": "groovy", ".gradle": "groovy", ".clj": "clojure", ".cljs": "clojure",
    ".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".c++": "cpp",
    ".hh": "cpp", ".hpp": "cpp", ".hxx": "cpp", ".h++": "cpp", ".ipp": "cpp", ".inl": "cpp",
    ".cu": "cuda", ".cuh": "cuda", ".m": "objective-c", ".mm": "objective-c++",
    ".cs": "c#", ".fs": "f#", ".fsx": "f#", ".vb": "visual basic",
    ".go": "go", ".rs": "rust", ".swift": "swift", ".dart": "dart", ".zig": "zig", ".nim": "nim",
    ".rb": "ruby", ".rake": "ruby", ".gemspec": "ruby", ".php": "php", ".pl": "perl", ".pm": "perl",
    ".lua": "lua", ".r": "r", ".jl": "julia", ".hs": "haskell", ".lhs": "haskell",
    ".ml": "ocaml", ".mli": "ocaml", ".ex": "elixir", ".exs": "elixir", ".erl": "erlang",
    ".hrl": "erlang", ".elm": "elm", ".f90": "fortran", ".f95": "fortran", ".f03": "fortran",
    ".f": "fortran", ".for": "fortran", ".pas": "pascal", ".ada": "ada", ".adb": "ada",
    ".ads": "ada", ".asm": "assembly", ".s": "assembly", ".v": "verilog", ".sv": "systemverilog",
    ".vhd": "vhdl", ".vhdl": "vhdl", ".sol": "solidity", ".proto": "protocol buffer",
    ".thrift": "thrift", ".graphql": "graphql", ".gql": "graphql", ".tf": "hcl", ".hcl": "hcl",
    ".nix": "nix", ".cmake": "cmake", ".mk": "makefile", ".mak": "makefile", ".vim": "vim script",
    ".el": "emacs lisp", ".lisp": "common lisp", ".scm": "scheme", ".rkt": "racket",
    ".coffee": "coffeescript", ".vue": "vue", ".svelte": "svelte",
    # shells and scripts
    ".sh": "shell", ".bash": "shell", ".zsh": "shell", ".ksh": "shell", ".fish": "fish",
    ".ps1": "powershell", ".psm1": "powershell", ".bat": "batchfile", ".cmd": "batchfile",
    ".awk": "awk",
    # data, config, markup
    ".json": "json", ".jsonl": "json", ".json5": "json5", ".yaml": "yaml", ".yml": "yaml",
    ".toml": "toml", ".ini": "ini", ".cfg": "ini", ".xml": "xml", ".xsd": "xml", ".xsl": "xslt",
    ".csv": "csv", ".tsv": "tsv", ".sql": "sql", ".html": "html", ".htm": "html",
    ".css": "css", ".scss": "scss", ".sass": "sass", ".less": "less",
    ".md": "markdown", ".markdown": "markdown", ".mdx": "mdx", ".rst": "restructuredtext",
    ".adoc": "asciidoc", ".tex": "tex", ".bib": "bibtex", ".org": "org", ".txt": "text",
    ".diff": "diff", ".patch": "diff", ".dockerfile": "dockerfile",
}

FILENAMES: dict[str, str] = {
    "makefile": "makefile", "gnumakefile": "makefile", "dockerfile": "dockerfile",
    "containerfile": "dockerfile", "cmakelists.txt": "cmake", "rakefile": "ruby", "gemfile": "ruby",
    "vagrantfile": "ruby", "jenkinsfile": "groovy", "build.bazel": "starlark", "workspace.bazel": "starlark",
    ".bashrc": "shell", ".bash_profile": "shell", ".zshrc": "shell",
    ".profile": "shell", "pipfile": "toml", "cargo.lock": "toml", "license": "text",
    "copying": "text", "readme": "text",
}

INTERPRETERS: dict[str, str] = {
    "python": "python", "pypy": "python", "bash": "shell", "sh": "shell", "zsh": "shell",
    "ksh": "shell", "dash": "shell", "fish": "fish", "node": "javascript", "nodejs": "javascript",
    "deno": "typescript", "ts-node": "typescript", "ruby": "ruby", "perl": "perl", "php": "php",
    "lua": "lua", "rscript": "r", "julia": "julia", "awk": "awk", "gawk": "awk", "tclsh": "tcl",
    "pwsh": "powershell", "groovy": "groovy", "scala": "scala", "elixir": "elixir",
    "escript": "erlang", "runhaskell": "haskell", "make": "makefile",
}

# "python3.11" -> "python", "pypy3" -> "python", "perl5" -> "perl": strip a trailing version.
# With str.rstrip, not re.sub(r"[\d.]+$"): the regex rescans the digit run from every start
# position, so a file starting "#!" and 40,000 digits took 15 s (quadratic; a 10 MB one, hours).
_VERSION_CHARS = "0123456789."


def detect_language(path: str, text: str, census: Callable[[], SourceCensus] | None = None) -> str:
    """Language of ``path`` by file name, then extension (``.h`` by its content and ``census()``, the
    repository's C and C++ sources, asked only for a ``.h``), then the shebang; "" when unknown."""
    name = posixpath.basename(path.replace("\\", "/")).lower()
    if name in FILENAMES:
        return FILENAMES[name]
    extension = posixpath.splitext(name)[1]
    if extension == ".h":
        return header_language(text, census() if census is not None else SourceCensus())
    if extension in EXTENSIONS:
        return EXTENSIONS[extension]
    if name.startswith("dockerfile."):
        return "dockerfile"
    if _NOTICE_FILE.fullmatch(name):
        return "text"
    return shebang_language(text)


# LICENSE-MIT, LICENSE.APACHE, UNLICENSE, COPYING.LESSER, NOTICE: prose, like LICENSE itself.
_NOTICE_FILE = re.compile(r"(?:licen[cs]e|unlicense|copying|copyright|notice|readme)(?:[-._][a-z0-9.+-]*)?")

# What a ``.h`` file's repository is written in: its C sources against its C++ sources (.hpp and the
# other C++-only header suffixes count, since they are C++ whatever they hold).
C_SOURCE_EXTENSIONS = frozenset({".c"})
CPP_SOURCE_EXTENSIONS = frozenset({".cc", ".cpp", ".cxx", ".c++", ".hh", ".hpp", ".hxx", ".h++", ".ipp"})


@dataclass(slots=True, frozen=True)
class SourceCensus:
    """How many of one repository's files are C sources and how many C++ ones."""

    c: int = 0
    cpp: int = 0

    @classmethod
    def of(cls, paths: Iterable[str]) -> SourceCensus:
        c = cpp = 0
        for path in paths:
            extension = posixpath.splitext(path.lower())[1]
            c += extension in C_SOURCE_EXTENSIONS
            cpp += extension in CPP_SOURCE_EXTENSIONS
        return cls(c=c, cpp=cpp)


# GitHub linguist's heuristics for ``.h`` (lib/linguist/heuristics.yml, named patterns ``objectivec``
# and ``cpp``, at b45dbe9b2825a43285bcd035861be91cc0a7299e; MIT): Objective-C, else C++, else C. Ruby's
# ``^`` matches at every line start, hence MULTILINE.
_OBJECTIVE_C = re.compile(
    r"^\s*(@(interface|class|protocol|property|end|synchronised|selector|implementation)\b|#import\s+.+\.h[\">])",
    re.MULTILINE)
_CPP_PATTERNS = (
    (r"^\s*#\s*include <(cstdint|string|vector|map|list|array|bitset|queue|stack|forward_list|unordered_map"
     r"|unordered_set|(i|o|io)stream)>"),
    r"^\s*template\s*<", r"^[ \t]*(try|constexpr)", r"^[ \t]*catch\s*\(",
    r"^[ \t]*(class|(using[ \t]+)?namespace)\s+\w+", r"^[ \t]*(private|public|protected):$",
    r"__has_cpp_attribute|__cplusplus >", r"std::\w+",
)
_CPP = re.compile("|".join(_CPP_PATTERNS), re.MULTILINE)
HEADER_SNIFF_CHARS = 100_000  # bounds the regex work on a huge generated header
# Strings first, so a "//" or "/*" inside one is not taken for a comment; an unclosed /* runs to the end.
_COMMENT_OR_STRING = re.compile(r'"(?:\\.|[^"\\\n])*"|//[^\n]*|/\*.*?(?:\*/|\Z)', re.DOTALL)
_CONDITIONAL = re.compile(r"^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|else|endif)\b(.*)$")
_C_LINKAGE = re.compile(r'extern\s+"C"')


def header_language(text: str, census: SourceCensus = SourceCensus()) -> str:
    """``objective-c``, ``cpp`` or ``c`` for a ``.h`` file of a repository with ``census``'s sources.

    Objective-C by linguist's cues; then the repository, when its sources are all C or all C++; in a
    mixed repository (or one without sources) linguist's C++ cues in the header's own code (comments
    and ``#ifdef __cplusplus`` branches left out: those are for either language); then a header with
    ``extern "C"`` linkage is C; else whichever of C and C++ the repository has more of (C on a tie).
    """
    head = text[:HEADER_SNIFF_CHARS]
    if _OBJECTIVE_C.search(head):
        return "objective-c"
    if bool(census.c) != bool(census.cpp):
        return "cpp" if census.cpp else "c"
    if _CPP.search(header_code(head)):
        return "cpp"
    if _C_LINKAGE.search(head):
        return "c"
    return "cpp" if census.cpp > census.c else "c"


def header_code(text: str) -> str:
    """``text`` without comments and without the lines of conditional groups that test ``__cplusplus``
    (a C header's C++ compatibility code, or a C++ header's guard against C)."""
    text = _COMMENT_OR_STRING.sub(lambda m: m[0] if m[0].startswith('"') else "\n" * m[0].count("\n"), text)
    kept: list[str] = []
    open_groups: list[bool] = []  # per open #if: whether one of its conditions names __cplusplus
    for line in text.split("\n"):
        directive = _CONDITIONAL.match(line)
        if directive is None:
            if not any(open_groups):
                kept.append(line)
        elif directive[1] in ("if", "ifdef", "ifndef"):
            open_groups.append("__cplusplus" in directive[2])
        elif directive[1] == "elif" and open_groups:
            open_groups[-1] = open_groups[-1] or "__cplusplus" in directive[2]
        elif directive[1] == "endif" and open_groups:
            open_groups.pop()
    return "\n".join(kept)


def shebang_language(text: str) -> str:
    """Language named by a ``#!`` first line: ``/usr/bin/env python3``, ``/bin/bash -e``, ...

    ``env`` and its options (``env -S node --flag``) are skipped to reach the interpreter.
    """
    if not text.startswith("#!"):
        return ""
    words = text[2:].split("\n", 1)[0].split()
    if words and posixpath.basename(words[0]) == "env":
        words = [word for word in words[1:] if not word.startswith("-") and "=" not in word]
    if not words:
        return ""
    interpreter = posixpath.basename(words[0]).lower().rstrip(_VERSION_CHARS)
    return INTERPRETERS.get(interpreter, "")
