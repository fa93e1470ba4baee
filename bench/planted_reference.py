"""The planted corpora scanned by codemix's redaction and by detect-secrets, shape by shape.

    python -m bench.planted_reference [--seed-a N] [--seed-b N] [--out report.json]

Each corpus (``tests/filters/planted_corpus``: A, ``planted_corpus_b``: B) is written to a temporary
repository, its agent transcript as the JSONL file it is. codemix: every file redacted as the crawl
does (``RedactWith``), the transcript read by the transcript reader first. detect-secrets (the
installed version, every plugin of its default settings, its default filters, no verification: no
socket may even be opened) scans every file with ``SecretsCollection.scan_file``. A planted value
counts as found by detect-secrets when a reported secret overlaps it by 8+ characters (a private
key: when the file has a PrivateKeyDetector finding). Reported: found / planted per tool and per
shape, and the shapes each tool misses.
"""

from __future__ import annotations

import argparse
import json
import socket
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

from detect_secrets import SecretsCollection
from detect_secrets.settings import default_settings

from codemix.document import Document
from codemix.filters.secrets import RedactionConfig
from codemix.pipelines.crawl import RedactWith
from codemix.pipelines.readers import read_location
from codemix.pipelines.readers.language import detect_language
from codemix.sources import SourceConfig
from tests.filters.planted_corpus import Corpus, Planted, build_corpus, leaked
from tests.filters.planted_corpus_b import build_corpus_b


def write(corpus: Corpus, root: Path) -> None:
    for path, text in corpus.texts().items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)


def codemix_missed(corpus: Corpus, root: Path) -> list[Planted]:
    redact, views = RedactWith(RedactionConfig()), {}
    for path, text in corpus.files.items():
        *_, doc = redact(Document(id=path, text=text, source="repo", kind="file", path=path,
                                  language=detect_language(path, text)))
        views[path] = doc.text
    source = SourceConfig(name="runs", type="transcripts", paths=["runs.jsonl"])
    [trace] = [d for d in read_location(source, str(root / "runs.jsonl")) if isinstance(d, Document)]
    *_, doc = redact(trace)
    views["runs.jsonl"] = doc.text + json.dumps(doc.metadata, ensure_ascii=False)
    return [p for p in corpus.planted if leaked([p], views[p.path])]


def overlaps(value: str, found: str) -> bool:
    shorter, longer = sorted((value, found), key=len)
    return len(shorter) >= 8 and (shorter in longer or any(value[i:i + 8] in found for i in range(len(value) - 7)))


def detect_secrets_missed(corpus: Corpus, root: Path) -> list[Planted]:
    findings: dict[str, list[tuple[str, str]]] = defaultdict(list)
    with default_settings():
        for path in corpus.texts():
            collection = SecretsCollection()
            collection.scan_file(str(root / path))
            for _, secret in collection:
                findings[path].append((secret.type, secret.secret_value or ""))
    missed = []
    for planted in corpus.planted:
        found = findings[planted.path]
        if "private" in planted.shape or "key_file" == planted.context and "key" in planted.shape:
            hit = any(kind == "Private Key" for kind, _ in found)
        else:
            hit = all(any(overlaps(fragment, value) for _, value in found) for fragment in planted.fragments)
        if not hit:
            missed.append(planted)
    return missed


def summary(corpus: Corpus, missed: list[Planted]) -> dict:
    shapes = Counter(p.shape for p in corpus.planted)
    missed_shapes = Counter(p.shape for p in missed)
    return {"found": len(corpus.planted) - len(missed), "planted": len(corpus.planted),
            "shapes_missed_entirely": sorted(s for s in missed_shapes if missed_shapes[s] == shapes[s]),
            "shapes_missed_in_part": {s: f"{shapes[s] - n}/{shapes[s]}" for s, n in sorted(missed_shapes.items())
                                      if n < shapes[s]}}


def no_network(*args, **kwargs):
    raise RuntimeError("a scanner tried to use the network")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed-a", type=int, default=14)
    parser.add_argument("--seed-b", type=int, default=2511)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    socket.socket.connect = no_network  # verification off, and proven off
    report = {}
    for name, corpus in (("A", build_corpus(args.seed_a)), ("B", build_corpus_b(args.seed_b))):
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            write(corpus, root)
            report[name] = {"shapes": len({p.shape for p in corpus.planted}),
                            "contexts": len({p.context for p in corpus.planted}),
                            "codemix": summary(corpus, codemix_missed(corpus, root)),
                            "detect_secrets": summary(corpus, detect_secrets_missed(corpus, root))}
    print(json.dumps(report, indent=2))
    if args.out:
        args.out.write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
