"""Package manifests of Elm, D's dub and V read from real files (tests/filters/data/manifests/README.md names each
repository and commit): the license a manifest declares answers for its folder, and a folder holding one beside
another holder's license text is a package of its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from codemix.filters.licenses import manifest_license
from codemix.filters.reuse import license_evidence_of, resolve_licenses
from codemix.filters.vendored import may_say_vendored, vendored_tree, vendored_trees, vendoring_facts

DATA = Path(__file__).parent / "data" / "manifests"
MIT = "Copyright (c) 2019 Someone Else\n\nPermission is hereby granted, free of charge, to any person obtaining a copy"

CASES = [("elm-core/elm.json", "BSD-3-Clause"), ("d-scanner/dub.json", "BSL-1.0"), ("vsl/v.mod", "MIT")]


@pytest.mark.parametrize(("fixture", "expected"), CASES)
def test_a_manifests_license_field(fixture, expected):
    text = (DATA / fixture).read_text(encoding="utf-8")
    name = fixture.rsplit("/", 1)[-1]
    assert manifest_license(name, text) == expected
    # at the root it is the repository's license, for every path below
    licenses = resolve_licenses([license_evidence_of(name, text)])
    assert licenses.for_path("src/module.ext", None) == expected


@pytest.mark.parametrize(("fixture", "expected"), CASES)
def test_a_manifest_beside_another_holders_license_is_a_package_of_its_own(fixture, expected):
    """The manifest in ``deps/lib/`` beside an MIT text naming another holder than the root's: that folder is another
    project's package (the same reading as a ``package.json`` or ``Cargo.toml`` there)."""
    name = fixture.rsplit("/", 1)[-1]
    files = {"LICENSE": "Copyright (c) 2020 The Project Authors\n\nPermission is hereby granted",
             f"deps/lib/{name}": (DATA / fixture).read_text(encoding="utf-8"), "deps/lib/LICENSE": MIT}
    facts = [fact for path, text in files.items() if may_say_vendored(path)
             for fact in vendoring_facts(path, text, license_file=path.endswith("LICENSE"),
                                         detected="MIT" if path.endswith("LICENSE") else None)]
    assert any(fact.kind == "manifest" and fact.folder == "deps/lib" for fact in facts), name
    tree = vendored_tree("deps/lib/src/x", vendored_trees(facts, "owner/project"))
    assert tree is not None and name in tree.evidence


def test_a_gradle_builds_maven_publication_license():
    """zipline's ``build.gradle.kts`` (round 19): ``licenses { license { name.set("The Apache Software License, Version
    2.0") } }``, beside a ``developers { developer { name.set("Cash App") } }`` block whose name is no license's."""
    text = (DATA / "zipline/build.gradle.kts").read_text(encoding="utf-8")
    name, expected = "build.gradle.kts", "Apache-2.0"
    assert 'name.set("Cash App")' in text
    assert manifest_license(name, text) == expected
    licenses = resolve_licenses([license_evidence_of(name, text)])
    assert licenses.for_path("src/module.ext", None) == expected


def test_a_conan_recipe_building_its_folder_and_one_fetching_another_project():
    """qflags' ``conanfile.py`` packages its own ``include/`` (``exports_sources``): its ``license = "MIT"`` is its
    folder's. conan-center-index's cJSON recipe fetches cJSON's sources (``get(self, **self.conan_data[...])``): its
    ``license = "MIT"`` is cJSON's, not the recipe folder's (a packaging recipe, as an RPM spec is)."""
    own = (DATA / "qflags/conanfile.py.txt").read_text(encoding="utf-8")
    recipe = (DATA / "cjson-recipe/conanfile.py.txt").read_text(encoding="utf-8")
    assert 'license = "MIT"' in own and 'license = "MIT"' in recipe and "conan_data[" in recipe
    assert manifest_license("conanfile.py", own) == "MIT"
    assert resolve_licenses([license_evidence_of("conanfile.py", own)]).for_path("include/x.h", None) == "MIT"
    assert manifest_license("recipes/cjson/all/conanfile.py", recipe) is None
