"""Redaction on a slice of real clean code (the standard library's top-level modules, plus the test
modules full of test keys, passwords and hex/base64 vectors): placeholders stay rare, no redaction cuts
into an identifier, and every redacted module tokenizes (standard ``tokenize``) to the same tokens
outside strings and comments. bench/redaction.py measures the same over ~10M lines."""

from __future__ import annotations

import sysconfig
from pathlib import Path

from bench.redaction import measure, python_tokens

STDLIB = Path(sysconfig.get_path("stdlib"))
TRICKY = ["test/test_ssl.py", "test/test_zipfile.py", "test/test_hmac.py", "test/test_hashlib.py",
          "test/test_base64.py", "test/test_urllib2_localnet.py", "test/test_nntplib.py", "test/test_smtplib.py",
          "test/test_codecs.py", "test/test_strtod.py", "test/test_urllib2.py", "test/test_netrc.py"]


def slice_files() -> list[tuple[Path, str]]:
    paths = sorted(STDLIB.glob("*.py"))[::2] + [STDLIB / name for name in TRICKY]
    return [(path, path.read_text(encoding="utf-8")) for path in paths]


def test_clean_code_slice_keeps_its_code():
    files = slice_files()
    report = measure(files)
    assert report["lines"] >= 80_000, "guard: a real slice of the standard library"
    assert report["tokenize"]["redacted_python_files"] >= 3, "guard: some files were redacted at all"
    assert all(python_tokens(text) is not None for _, text in files)
    assert report["in_identifier"] == []
    assert report["tokenize"]["changed"] == []
    assert report["secret_placeholders_per_10k_lines"] <= 0.3, report["samples"]
