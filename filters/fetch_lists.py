"""Copies a repository's own scripts and data files say they fetch into its tree from another repository.

A plugin list in an updater script (amix/vimrc's ``update_plugins.py``: "ale https://github.com/dense-analysis/ale",
one line per plugin copied into ``sources_non_forked/``), a data file keyed by paths of the tree with the repository
each comes from (ohmyzsh's ``.github/dependencies.yml``: ``plugins/gitfast: {repo: felipec/git-completion}``), a
``git clone URL DEST`` or ``git subtree add --prefix DIR URL`` in a script. Each answer is ``(target, owner/name,
detail)``: ``target`` a path of the tree (it holds a ``/``) or a bare name, for ``filters.vendored.fetched_trees`` to
match against the folders the tree holds (docs/repositories.md, "Copies a script or data file fetches").
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Iterator

import yaml

_MAX_CHARS = 200_000
_SCRIPT_EXTENSIONS = (".py", ".sh", ".bash", ".zsh", ".fish", ".rb", ".pl", ".js", ".mjs", ".cjs", ".ts", ".lua", ".vim",
                      ".ps1", ".cmake", ".mk", ".txt", ".cfg", ".ini", ".conf")
_DATA_EXTENSIONS = (".yml", ".yaml", ".json", ".toml")
_SCRIPT_NAMES = ("Makefile", "GNUmakefile", "makefile", "Rakefile", "justfile")

# a hosting site's address of a repository, or a bare ``owner/name`` under a key that names a repository
HOSTS = ("github.com", "gitlab.com", "bitbucket.org", "codeberg.org")
_HOSTED = rf"(?:https?://|git@|git://|ssh://git@)(?:www\.)?(?:{'|'.join(map(re.escape, HOSTS))})[/:]" \
          r"([\w.-]+)/([\w.-]+?)(?:\.git)?/?"
_END = r"(?=$|[\s\"',;)\]])"
_HOSTED_URL = re.compile(_HOSTED + _END)
_SHORTHAND = re.compile(r"([\w.-]+)/([\w.-]+?)(?:\.git)?")
_REPO_KEYS = frozenset(["repo", "repository", "url", "git", "source", "src", "upstream", "remote", "origin", "github",
                        "gitlab", "from"])
_TARGET_KEYS = ("path", "dir", "directory", "dest", "destination", "folder", "target", "local", "into", "name")

_NAME = r"[\w.@+-]+(?:/[\w.@+-]+)*"
_REF = r"(?:[ \t]+[\w./@+-]+)?"  # a branch, tag or commit after the entry ("lazy.nvim stable")
# a list entry that is a name and an address (and perhaps a ref) and nothing else: "ale
# https://github.com/dense-analysis/ale", "'gitfast': 'https://...'", "https://github.com/folke/lazy.nvim lazy.nvim
# stable", or an address alone, named as its repository ("https://github.com/tpope/vim-surround.git"); never prose
_LIST_LINE = re.compile(rf"^[ \t]*(?:[-*][ \t]+)?[\"']?(?P<name>{_NAME})[\"']?[ \t]*[:=,]?[ \t]*[\"']?(?P<url>{_HOSTED}){_END}"
                        rf"[\"']?,?{_REF}[ \t]*$"
                        rf"|^[ \t]*(?:[-*][ \t]+)?[\"']?(?P<url2>{_HOSTED}){_END}[\"']?(?:[ \t]*[:=,]?[ \t]*[\"']?"
                        rf"(?P<name2>{_NAME})[\"']?,?{_REF})?[ \t]*$", re.MULTILINE)
_CLONE = re.compile(rf"\bgit\s+clone\b(?:\s+--?[\w-]+(?:[= ](?!-|https?:|git@)\S+)?)*\s+[\"']?(?P<url>{_HOSTED}){_END}[\"']?"
                    rf"[ \t]+[\"']?(?P<dest>[\w./@+-]+)[\"']?")  # the folder on the clone's own line
# A clone, its folder named or the repository's own name, then a copy out of it into the tree: abapGit's
# ``.github/workflows/ajson_mirror.yaml``, "git clone https://github.com/abapGit/ajson_mirror.git" and
# "cp ajson_mirror/src/z* src/json/". The copy's direction is plain (into this tree), whoever owns the source.
_CLONE_ANY = re.compile(rf"\bgit[ \t]+clone\b(?:[ \t]+--?[\w-]+(?:[= ](?!-|https?:|git@)\S+)?)*[ \t]+[\"']?(?P<url>{_HOSTED})"
                        rf"{_END}[\"']?(?:[ \t]+[\"']?(?P<dest>[\w./@+-]+)[\"']?)?")
_COPY_OUT = r"^[ \t]*(?:-[ \t]+)?(?:cp|rsync|mv)\b(?:[ \t]+-[\w-]+)*[ \t]+[\"']?(?:\./)?{clone}/(?P<source>\S*?)[\"']?[ \t]+" \
            r"[\"']?(?P<target>[\w./@+-]+)[\"']?[ \t]*$"
# A download from a hosting site (a release archive) and its unpacking into a folder of the tree: vscode-pdf's
# ``tools/download_pdfjs.sh``, "curl -L -o pdfjs.zip https://github.com/mozilla/pdf.js/releases/download/..." then
# "unzip pdfjs.zip -d assets/pdf.js"; "curl -L URL | tar -xz -C DIR" in one line.
_DOWNLOAD = re.compile(rf"\b(?:curl|wget)\b[^\n]*?(?P<url>https?://(?:www\.)?(?:{'|'.join(map(re.escape, HOSTS))})/"
                       r"(?P<owner>[\w.-]+)/(?P<name>[\w.-]+)/[^\s\"'|;]*)[^\n]*")
_OUTPUT = re.compile(r"(?:^|\s)(?:-o|-O|--output|--output-document)(?:[ \t]+|=)[\"']?(?P<file>[\w./@+$-]+)[\"']?")
_PIPED_TAR = re.compile(r"\|[ \t]*(?:sudo[ \t]+)?(?:bsd)?tar\b[^\n|]*?[ \t]-C[ \t]*[\"']?(?P<target>[\w./@+-]+)")
_UNPACK = (r"^[^\n]*\bunzip\b[^\n]*?[ \t][\"']?{file}[\"']?[^\n]*?[ \t]-d[ \t]*[\"']?(?P<target>[\w./@+-]+)"
           r"|^[^\n]*\b(?:bsd)?tar\b(?=[^\n]*[ \t][\"']?{file}\b)[^\n]*?[ \t]-C[ \t]*[\"']?(?P<target2>[\w./@+-]+)")
INSTALLED_FROM = "installed from"  # a record's words for what a tool installed into the tree
COPIES_INTO = "and copies"  # the detail's words for a copy out of a clone: an inbound copy, whoever owns the source


def copies_into(detail: str) -> bool:
    """Whether a fetch's detail says it brings a copy into this tree (a clone copied out, an archive unpacked, a record
    of what a tool installed), whoever owns the source."""
    return f" {COPIES_INTO} " in detail or f" {INSTALLED_FROM} " in detail


# ``git subtree add|pull`` with its prefix and the repository (an address, or a remote ``git remote add`` names), in
# either order: "git subtree add --prefix=vendor/siphash siphash master --squash"
_SUBTREE = re.compile(r"\bgit\s+subtree\s+(?:add|pull)\b([^\n]*)")
_PREFIX = re.compile(r"(?:--prefix[= ]|-P[ \t]+)[\"']?(?P<dest>[\w./@+-]+)[\"']?")
_REMOTE = re.compile(rf"\bgit\s+remote\s+add\s+(?:-f\s+)?(?P<name>[\w.-]+)\s+[\"']?(?P<url>{_HOSTED}){_END}")
# a script that publishes folders of this repository to others (a subtree split, a push) names them as destinations
_PUBLISHES = re.compile(r"\bgit\s+(?:push|subtree\s+(?:split|push))\b|\bsplitsh\b")
# Prose (a vendoring page) is read for its subtree commands only.
_PROSE_EXTENSIONS = (".md", ".markdown", ".rst", ".adoc", ".txt")


def may_list_copies(path: str) -> bool:
    """Whether the file at ``path`` can be a script or data file naming copies (a cheap test on its name)."""
    name = path.rsplit("/", 1)[-1]
    return name.endswith(_SCRIPT_EXTENSIONS + _DATA_EXTENSIONS + _PROSE_EXTENSIONS) or name in _SCRIPT_NAMES \
        or name == SUBREPO_RECORD


def may_fetch(path: str, text: str) -> bool:
    """Whether the file at ``path`` can name a copy it fetches: a data file (its mapping may name a bare
    ``owner/name``), or a text naming a host, as every list line, clone, remote and subtree address does
    (``_HOSTED``, case as written). Most scripts (every .py, .js, .ts file is one) name none: not scanned (issue 49)."""
    return path.endswith(_DATA_EXTENSIONS) or any(host in text for host in HOSTS)


def fetched_copies(path: str, text: str) -> Iterator[tuple[str, str, str]]:
    """``(target, owner/name, detail)`` for each path or name the file at ``path`` fetches from another repository."""
    if path.rsplit("/", 1)[-1] == SUBREPO_RECORD:
        yield from _subrepo(path, text)
    elif len(text) <= _MAX_CHARS and may_fetch(path, text):
        yield from _scan(path, text)


# git-subrepo's record of a folder cloned from another repository, kept in the folder: ``[subrepo]`` with the
# ``remote`` and the ``commit`` it was pulled at (git-subrepo's own ``ext/bashplus/.gitrepo``). Any remote counts, a
# hosting site's or not: the record says the folder came in.
SUBREPO_RECORD = ".gitrepo"
_SUBREPO_REMOTE = re.compile(r"^[ \t]*remote[ \t]*=[ \t]*(\S+)", re.MULTILINE)


def _subrepo(path: str, text: str) -> Iterator[tuple[str, str, str]]:
    remote = _SUBREPO_REMOTE.search(text) if "[subrepo]" in text else None
    folder = path.rsplit("/", 1)[0] if "/" in path else ""  # a record at the root: the whole tree is the clone
    if remote is not None and folder:
        url = _owner_name(remote.group(1)) or remote.group(1).lower()
        yield folder, url, f"{path} records {folder!r} {INSTALLED_FROM} {url}"


def _scan(path: str, text: str) -> Iterator[tuple[str, str, str]]:
    # a list or a mapping says nothing of the direction: in a file that publishes, its entries are destinations
    listed = () if _PUBLISHES.search(text) or path.endswith(_PROSE_EXTENSIONS[:-1]) else \
        (*_structured(path, text), *_lines(text))
    seen = set()
    for target, url, how in (*listed, *_commands(text, clones=not path.endswith(_PROSE_EXTENSIONS[:-1]))):
        target = _clean(target)
        if target and (target, url) not in seen:
            seen.add((target, url))
            yield target, url, f"{path} {how.format(target=repr(target), url=url)}"


def _clean(target: str) -> str:
    target = target.strip().strip("/")
    while target.startswith("./"):
        target = target[2:]
    return "" if target in (".", "..") or target.startswith(("../", "$", "~")) or "{" in target else target


def _lines(text: str) -> Iterator[tuple[str, str, str]]:
    for found in _LIST_LINE.finditer(text):
        url = found.group("url") or found.group("url2")
        if (owner_name := _owner_name(url)) is not None:
            name = found.group("name") or found.group("name2") or owner_name.split("/", 1)[1]
            yield name, owner_name, "lists {target} from {url}"


def _commands(text: str, clones: bool) -> Iterator[tuple[str, str, str]]:
    if clones:
        for found in _CLONE.finditer(text):
            if (owner_name := _owner_name(found.group("url"))) is not None:
                yield found.group("dest"), owner_name, "clones {url} into {target}"
        for found in _CLONE_ANY.finditer(text):
            if (owner_name := _owner_name(found.group("url"))) is None:
                continue
            clone = _clean(found.group("dest") or owner_name.split("/", 1)[1])
            if not clone:
                continue
            copy = re.compile(_COPY_OUT.format(clone=re.escape(clone)), re.MULTILINE)
            for copied in copy.finditer(text, found.end()):
                target = copied.group("target")
                if target.strip("./") == clone:
                    continue
                # files named by a glob land in the target folder under their own names ("src/z*" -> src/json/z*)
                last = copied.group("source").rstrip("/").rsplit("/", 1)[-1]
                if any(mark in last for mark in "*?[") and not last.startswith("*"):
                    target = f"{target.rstrip('/')}/{last}"
                how = f"clones {{url}} {COPIES_INTO} {clone}/{copied.group('source')} into {{target}}"
                yield target, owner_name, how
        yield from _unpacked(text)
    remotes = {found.group("name"): _owner_name(found.group("url")) for found in _REMOTE.finditer(text)}
    for found in _SUBTREE.finditer(text):
        line, prefix = found.group(1), _PREFIX.search(found.group(1))
        if prefix is None:
            continue
        url = _HOSTED_URL.search(line)
        rest = (_PREFIX.sub(" ", line)).split()
        owner_name = _owner_name(url.group(0)) if url else \
            next((remotes[word] for word in rest if not word.startswith("-") and word in remotes), None)
        if owner_name is not None:
            yield prefix.group("dest"), owner_name, "adds {url} as the subtree {target}"


def _unpacked(text: str) -> Iterator[tuple[str, str, str]]:
    """Each folder a downloaded archive from a hosting site is unpacked into (``_DOWNLOAD``, ``_UNPACK``)."""
    for found in _DOWNLOAD.finditer(text):
        owner_name = f"{found.group('owner')}/{found.group('name')}".lower()
        how = f"downloads {{url}} {COPIES_INTO} the archive into {{target}}"
        line = found.group(0)
        if (piped := _PIPED_TAR.search(line)) is not None:
            yield piped.group("target"), owner_name, how
            continue
        output = _OUTPUT.search(line[:found.start("url") - found.start()] + " " + line[found.end("url") - found.start():])
        file = output.group("file") if output else found.group("url").rstrip("/").rsplit("/", 1)[-1]
        if not file or "$" in file and output is None:
            continue
        unpack = re.compile(_UNPACK.format(file=re.escape(file)), re.MULTILINE)
        for unpacked in unpack.finditer(text, found.end()):
            yield unpacked.group("target") or unpacked.group("target2"), owner_name, how


def _owner_name(url: str) -> str | None:
    found = _HOSTED_URL.fullmatch(url.strip())
    return f"{found.group(1)}/{found.group(2)}".lower() if found else None


# A package manifest names its own home (``"repository": "https://..."``): ``filters.vendored`` reads it as one.
_MANIFESTS = ("package.json", "composer.json", "Cargo.toml", "pyproject.toml", "bower.json", "elm.json", "dub.json",
              "vcpkg.json", "haxelib.json", "gleam.toml", "Project.toml", "pubspec.yaml", "shard.yml", "deno.json",
              "jsr.json", "manifest.json", "tsconfig.json")


def _structured(path: str, text: str) -> Iterator[tuple[str, str, str]]:
    if path.rsplit("/", 1)[-1] in _MANIFESTS:
        return
    data = _parse(path, text)
    if data is not None:
        yield from _walk(data, "")
    elif path.endswith(".toml"):  # (yazi writes "deps = []" above its "[[plugin.deps]]": not TOML to a strict parser)
        for entry in _PINNED_LINES.finditer(text):
            if found := _PINNED.fullmatch(entry.group(1)):
                yield found.group(3) or found.group(2), f"{found.group(1)}/{found.group(2)}".lower(), "pins {url} for {target}"


def _parse(path: str, text: str):
    try:
        if path.endswith((".yml", ".yaml")):
            return yaml.safe_load(text)
        if path.endswith(".json"):
            return json.loads(text)
        if path.endswith(".toml"):
            return tomllib.loads(text)
    except (yaml.YAMLError, json.JSONDecodeError, tomllib.TOMLDecodeError, RecursionError, ValueError):
        return None
    return None


# A record keyed by a repository's address whose entries, each with the commit it was installed at, are paths of the
# tree: nf-core's ``modules.json``, "https://github.com/nf-core/modules.git" -> "modules" -> "nf-core" ->
# "sratools/fasterqdump" -> {"git_sha": ...}: the folder ``modules/nf-core/sratools/fasterqdump`` is that repository's.
_COMMIT_KEYS = frozenset(["git_sha", "sha", "commit", "rev", "revision"])


def _installed(node, path: str, url: str, depth: int = 0) -> Iterator[tuple[str, str, str]]:
    if depth > 6 or not isinstance(node, dict):
        return
    if path and "/" in path and _COMMIT_KEYS & {k.lower() for k in node if isinstance(k, str)}:
        yield path, url, f"records {{target}} {INSTALLED_FROM} {{url}}"
        return
    for sub, value in node.items():
        if isinstance(sub, str) and sub and not sub.startswith((".", "/")):
            yield from _installed(value, f"{path}/{sub}" if path else sub, url, depth + 1)


def _walk(node, key: str, depth: int = 0) -> Iterator[tuple[str, str, str]]:
    if depth > 12:
        return
    if isinstance(node, dict):
        for sub_key, value in node.items():
            if isinstance(sub_key, str) and (url := _owner_name(sub_key)) is not None:
                yield from _installed(value, "", url)
        if (pinned := _pinned(node)) is not None:
            yield pinned[1], pinned[0], "pins {url} for {target}"
        elif (url := _repository(node)) is not None:
            targets = [node[k] for k in _TARGET_KEYS if isinstance(node.get(k), str)] or [key]
            for target in targets:
                if target:
                    yield target, url, "names {url} for {target}"
        for sub_key, value in node.items():
            if isinstance(sub_key, str):
                yield from _walk(value, sub_key, depth + 1)
    elif isinstance(node, list):
        for item in node:
            yield from _walk(item, key, depth + 1)


# A package manager's lock entry naming what it installed by ``owner/name`` (and the part of it, after a colon) at a
# pinned revision: yazi's ``package.toml``, ``[[plugin.deps]] use = "yazi-rs/plugins:full-border"`` with ``rev =
# "7c174cc"`` (fishconfig's ``yazi/plugins/full-border.yazi/``), ``use = "Sonico98/exifaudio"``.
_PINNED = re.compile(r"([\w.-]+)/([\w.-]+?)(?:\.git)?(?::([\w.-]+))?")


_PINNED_LINES = re.compile(r'^[ \t]*use[ \t]*=[ \t]*"([^"\n]+)"[ \t]*\r?\n[ \t]*(?:rev|commit)[ \t]*=[ \t]*"[0-9a-f]{7,40}"',
                           re.MULTILINE)


def _pinned(node: dict) -> tuple[str, str] | None:
    """``(owner/name, installed name)`` of a lock entry's ``use`` with a revision beside it, else None."""
    use = node.get("use")
    if not isinstance(use, str) or not _COMMIT_KEYS & {k.lower() for k in node if isinstance(k, str)}:
        return None
    found = _PINNED.fullmatch(use.strip())
    return (f"{found.group(1)}/{found.group(2)}".lower(), found.group(3) or found.group(2)) if found else None


def _repository(node: dict) -> str | None:
    """``owner/name`` of the repository a mapping says it comes from (an address, or ``repo: owner/name``)."""
    for key, value in node.items():
        if not (isinstance(key, str) and key.lower() in _REPO_KEYS and isinstance(value, str)):
            continue
        if (url := _owner_name(value)) is not None:
            return url
        if key.lower() in ("repo", "repository", "github") and (short := _SHORTHAND.fullmatch(value.strip())):
            return f"{short.group(1)}/{short.group(2)}".lower()
    return None
