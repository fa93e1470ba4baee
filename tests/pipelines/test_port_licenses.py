"""A port made in a repository, quoting its origin's license, is under that license and the repository's
(``pipelines.filter.document_license``): Crystal's Ryu printf port (crystal-lang/crystal at the commit
``tests/filters/data/notices/README.md`` names)."""

from __future__ import annotations

import json
from pathlib import Path

from codemix.document import Document
from codemix.filters.reuse import license_evidence_of, resolve_licenses
from codemix.pipelines.filter import document_license, repository_key

NOTICES = Path(__file__).parents[1] / "filters" / "data" / "notices"


def test_a_port_quoting_its_origins_license_is_under_both() -> None:
    """``src/float/printer/ryu_printf.cr``: "Source port of Ryu Printf's reference implementation in C. The following is
    their license: ... Apache License, Version 2.0 ... Alternatively ... the Boost Software License", in a repository
    whose REUSE.toml puts every path under Apache-2.0 WITH Swift-exception (``closest``: a file's own notice would
    answer alone)."""
    files = json.loads((NOTICES / "crystal.json").read_text(encoding="utf-8"))
    path = "src/float/printer/ryu_printf.cr"
    assert "Source port of" in files[path] and "their license" in files[path]
    doc = Document(id=path, text=files[path], source="crystal", kind="file", repo="crystal-lang/crystal", path=path)
    licenses = {repository_key(doc): resolve_licenses([license_evidence_of("REUSE.toml", files["REUSE.toml"])])}
    assert document_license(doc, licenses) == "(Apache-2.0 OR BSL-1.0) AND Apache-2.0 WITH Swift-exception"
    plain = Document(id="a.cr", text="puts 1\n", source="crystal", kind="file", repo="crystal-lang/crystal", path="a.cr")
    assert document_license(plain, licenses) == "Apache-2.0 WITH Swift-exception"


def test_a_port_quoting_the_boost_text_whole() -> None:
    """``spec/std/float_printer/shortest_spec.cr``: "The example numbers in these specs are ported from Microsoft's C++
    STL. The following is their license:", then the Boost Software License's text (its grant, "Permission is hereby
    granted, free of charge, to any person or organization obtaining a copy of the software ...")."""
    files = json.loads((NOTICES / "crystal.json").read_text(encoding="utf-8"))
    path = "spec/std/float_printer/shortest_spec.cr"
    doc = Document(id=path, text=files[path], source="crystal", kind="file", repo="crystal-lang/crystal", path=path)
    licenses = {repository_key(doc): resolve_licenses([license_evidence_of("REUSE.toml", files["REUSE.toml"])])}
    assert document_license(doc, licenses) == "Apache-2.0 WITH Swift-exception AND BSL-1.0"
