"""Text in legacy encodings (real CPython files, tests/fixtures/encodings/README.md): a declared or
confidently detected encoding is transcoded to UTF-8 and kept, with the original encoding in the
document's metadata; what no encoding explains is dropped as ``not_utf8``, never quarantined.

The expected text comes from references we did not write: CPython's ``tokenize.detect_encoding`` for
coding cookies, ElementTree for the XML declaration, CPython's own UTF-8 twins of its CJK test
texts, and the words of the files themselves."""

from __future__ import annotations

import io
import shutil
import tokenize
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from codemix.document import Document, Dropped, Quarantined
from codemix.pipelines.readers import read_location
from codemix.pipelines.readers.encodings import decode_legacy, editorconfig_charset
from codemix.sources import SourceConfig

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "encodings"
LEGACY = ["module_iso_8859_1.py", "module_koi8_r.py", "shift_jis.txt", "big5.txt", "euc_kr.txt", "test.xml",
          "sgml_input.html", "idlelib-NEWS.txt", "msg_15.txt", "badsyntax_pep3120.py"]


def outcomes(tmp_path: Path, names: list[str], editorconfig: str | None = None) -> dict[str, object]:
    """Each named fixture read by the directory reader, by file name."""
    tree = tmp_path / "tree"
    tree.mkdir()
    for name in names:
        shutil.copy(FIXTURES / name, tree / name)
    if editorconfig is not None:
        (tree / ".editorconfig").write_text(editorconfig)
    source = SourceConfig(name="legacy", type="directory", paths=[str(tree)], exclude=[".editorconfig"])
    found = {(o.path if isinstance(o, Document) else o.location.rsplit("/", 1)[-1]): o
             for o in read_location(source, str(tree))}
    found.pop(".editorconfig", None)
    return found


def encoding_of(doc: Document) -> dict[str, str]:
    return {k: v for k, v in doc.metadata.items() if k in ("original_encoding", "encoding_evidence")}


def test_the_fixtures_are_not_utf8():
    """guard: every legacy fixture really fails strict UTF-8"""
    for name in LEGACY:
        with pytest.raises(UnicodeDecodeError):
            (FIXTURES / name).read_bytes().decode("utf-8")


@pytest.mark.parametrize("name", ["module_iso_8859_1.py", "module_koi8_r.py"])
def test_a_coding_cookie_is_honoured_as_python_reads_it(tmp_path, name):
    data = (FIXTURES / name).read_bytes()
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    doc = outcomes(tmp_path, [name])[name]
    assert isinstance(doc, Document)
    assert doc.text == data.decode(encoding)
    assert doc.metadata["encoding_evidence"] == "coding cookie"
    assert doc.metadata["original_encoding"].replace("_", "-") in {encoding, "iso8859-1"}


@pytest.mark.parametrize("name", ["shift_jis.txt", "big5.txt", "euc_kr.txt"])
def test_undeclared_cjk_text_is_detected_and_equals_cpythons_utf8_twin(tmp_path, name):
    doc = outcomes(tmp_path, [name])[name]
    assert isinstance(doc, Document)
    assert doc.text == (FIXTURES / name.replace(".txt", "-utf8.txt")).read_text(encoding="utf-8")
    assert doc.metadata["encoding_evidence"].startswith("detected by charset-normalizer ")


def test_an_xml_declaration_is_honoured_as_elementtree_reads_it(tmp_path):
    data = (FIXTURES / "test.xml").read_bytes()
    doc = outcomes(tmp_path, ["test.xml"])["test.xml"]
    assert encoding_of(doc) == {"original_encoding": "iso8859-1", "encoding_evidence": "xml declaration"}
    # the non-ASCII text as the XML parser decodes it (the ASCII rest may be spelled with entities)
    pieces = [t.strip() for t in ET.fromstring(data).itertext() if not t.isascii()]
    assert pieces, "guard: the XML has non-ASCII text"
    assert all(piece in doc.text for piece in pieces)


def test_an_html_meta_charset_is_honoured_with_whatwgs_labels(tmp_path):
    doc = outcomes(tmp_path, ["sgml_input.html"])["sgml_input.html"]
    assert encoding_of(doc) == {"original_encoding": "cp1252", "encoding_evidence": "html meta"}
    for word in ("Energía", "Misión", "Nave pequeña de carga", "máx"):
        assert word in doc.text


def test_a_mostly_ascii_western_file_is_read_as_windows_1252(tmp_path):
    doc = outcomes(tmp_path, ["idlelib-NEWS.txt"])["idlelib-NEWS.txt"]
    assert doc.metadata["original_encoding"] == "cp1252"
    assert "Guilherme Simões" in doc.text and "conversion of ' to ’ RIGHT SINGLE" in doc.text


def test_too_little_text_to_detect_is_dropped_as_not_utf8_not_quarantined(tmp_path):
    found = outcomes(tmp_path, ["badsyntax_pep3120.py", "msg_15.txt"])
    assert isinstance(found["badsyntax_pep3120.py"], Dropped)
    assert found["badsyntax_pep3120.py"].reason == "not_utf8"
    assert isinstance(found["msg_15.txt"], Document)  # 1.4 KB of Latin-1 mail: enough to detect
    assert not any(isinstance(o, Quarantined) for o in found.values())


def test_an_editorconfig_charset_decides_what_detection_cannot(tmp_path):
    config = "root = true\n\n[*]\nindent_style = space\n\n[*.{py,pyi}]\ncharset = latin1\n"
    doc = outcomes(tmp_path, ["badsyntax_pep3120.py"], editorconfig=config)["badsyntax_pep3120.py"]
    assert isinstance(doc, Document) and doc.text.startswith('print("böse")')
    assert encoding_of(doc) == {"original_encoding": "iso8859-1", "encoding_evidence": ".editorconfig"}


def test_editorconfig_sections_nest_and_a_root_file_stops_the_search(tmp_path):
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / ".editorconfig").write_text("[*.txt]\ncharset = latin1\n[lib/**.c]\ncharset = utf-16le\n")
    (tmp_path / "a" / ".editorconfig").write_text("[b/*.txt]\ncharset = utf-8\n")
    assert editorconfig_charset(str(tmp_path), "x.txt") == "latin1"
    assert editorconfig_charset(str(tmp_path), "a/b/x.txt") == "utf-8"  # the closer file wins
    assert editorconfig_charset(str(tmp_path), "a/x.txt") == "latin1"
    assert editorconfig_charset(str(tmp_path), "lib/x/y.c") == "utf-16le" and \
        editorconfig_charset(str(tmp_path), "src/lib/y.c") is None
    (tmp_path / "a" / "b" / ".editorconfig").write_text("root = true\n[*.md]\ncharset = latin1\n")
    assert editorconfig_charset(str(tmp_path), "a/b/x.txt") is None


def test_a_wrong_declaration_falls_back_to_detection():
    data = b"# -*- coding: ascii -*-\n" + (FIXTURES / "shift_jis.txt").read_bytes()
    decoded = decode_legacy(data)
    assert decoded is not None and decoded.evidence.startswith("detected by")


def legacy_tree(root: Path) -> Path:
    """CPython's badsyntax_pep3120.py (Latin-1, too short to detect) under two folders, configured by
    an .editorconfig at the top and, for one folder, overridden by a closer one."""
    for folder in ("pkg", "vendored"):
        (root / folder).mkdir(parents=True)
        shutil.copy(FIXTURES / "badsyntax_pep3120.py", root / folder / "bad.py")
    (root / ".editorconfig").write_text("root = true\n\n[*.py]\ncharset = latin1\n")
    (root / "vendored" / ".editorconfig").write_text("[*.py]\ncharset = utf-8\n")
    return root


def as_git(tree: Path) -> str:
    import subprocess

    for args in (["init", "-q"], ["add", "-A"], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one"]):
        subprocess.run(["git", "-C", str(tree), *args], check=True)
    return str(tree)


def as_archive(tree: Path, suffix: str) -> str:
    """The tree packed as an sdist is (one top folder), the .editorconfig files last in the archive,
    after the files they configure (a tar stream cannot look ahead)."""
    import tarfile
    import zipfile

    files = sorted((p for p in tree.rglob("*") if p.is_file()), key=lambda p: p.name == ".editorconfig")
    archive = tree.parent / f"proj-1.0{suffix}"
    if suffix == ".zip":
        with zipfile.ZipFile(archive, "w") as packed:
            for path in files:
                packed.write(path, f"proj-1.0/{path.relative_to(tree)}")
    else:
        with tarfile.open(archive, "w:gz") as packed:
            for path in files:
                packed.add(path, f"proj-1.0/{path.relative_to(tree)}")
    return str(archive)


@pytest.mark.parametrize("kind", ["git", "tar.gz", "zip"])
def test_an_editorconfig_inside_a_repository_or_archive_is_honoured(tmp_path, kind):
    tree = legacy_tree(tmp_path / "proj")
    location = as_git(tree) if kind == "git" else as_archive(tree, f".{kind}")
    source = SourceConfig(name="legacy", type="git" if kind == "git" else "archive", paths=[location],
                          exclude=[".editorconfig", "**/.editorconfig"])
    found = {o.path: o for o in read_location(source, location) if isinstance(o, Document)}
    drops = [o for o in read_location(source, location) if isinstance(o, Dropped)]
    latin1 = (FIXTURES / "badsyntax_pep3120.py").read_bytes().decode("latin-1")
    assert found["pkg/bad.py"].text == latin1 and found["pkg/bad.py"].text.startswith('print("böse")')
    assert encoding_of(found["pkg/bad.py"]) == {"original_encoding": "iso8859-1", "encoding_evidence": ".editorconfig"}
    # the closer .editorconfig says UTF-8, which the bytes are not: nothing explains them
    assert "vendored/bad.py" not in found
    assert sorted(d.reason for d in drops if "bad.py" in d.location) == ["not_utf8"]


def test_an_editorconfig_in_a_directory_on_an_object_store_is_honoured(tmp_path):
    """The same tree uploaded under an S3 prefix (moto's server on 127.0.0.1), read through Beam's S3 filesystem."""
    import boto3
    from apache_beam.io.filesystems import FileSystems
    from apache_beam.options.pipeline_options import PipelineOptions
    from moto.server import ThreadedMotoServer

    from tests.pipelines.portable_services import S3_KEY_ID, S3_REGION, S3_SECRET, free_port

    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port)
    server.start()
    try:
        endpoint = f"http://127.0.0.1:{port}"
        client = boto3.client("s3", endpoint_url=endpoint, aws_access_key_id=S3_KEY_ID,
                              aws_secret_access_key=S3_SECRET, region_name=S3_REGION)
        client.create_bucket(Bucket="trees")
        tree = legacy_tree(tmp_path / "proj")
        for path in (p for p in tree.rglob("*") if p.is_file()):
            client.put_object(Bucket="trees", Key=f"proj/{path.relative_to(tree)}", Body=path.read_bytes())
        FileSystems.set_options(PipelineOptions([f"--s3_endpoint_url={endpoint}", f"--s3_access_key_id={S3_KEY_ID}",
                                                 f"--s3_secret_access_key={S3_SECRET}", f"--s3_region_name={S3_REGION}"]))
        source = SourceConfig(name="legacy", type="directory", paths=["s3://trees/proj"], exclude=["**/.editorconfig"])
        outcomes = list(read_location(source, "s3://trees/proj"))
    finally:
        FileSystems.set_options(PipelineOptions([]))
        server.stop()
    found = {o.path: o for o in outcomes if isinstance(o, Document)}
    assert encoding_of(found["pkg/bad.py"]) == {"original_encoding": "iso8859-1", "encoding_evidence": ".editorconfig"}
    assert [o.reason for o in outcomes if isinstance(o, Dropped) and "bad.py" in o.location] == ["not_utf8"]
