"""A run's request kept in a task record beside it (mixtures/transcript_formats/siblings.py, read by
pipelines/readers/transcripts.py ``sibling_request``).

Fixtures (tests/fixtures/transcript_inputs/README.md): Automaker's feature folder
``automaker/feature-1768159523106-mxbgsu25y/`` (yinkev/praDeep, AGPL-3.0: ``agent-output.md`` holds the model's
turns only, ``feature.json`` the request) and LangSmith's JS ``package.json`` (a versioned manifest, MIT)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from codemix.mixtures.transcript_formats.siblings import stated_request
from codemix.pipelines.readers.transcripts import folder_records, sibling_request

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcript_inputs"
FEATURE = FIXTURES / "automaker" / "feature-1768159523106-mxbgsu25y"
MANIFEST = FIXTURES / "not-langsmith-js.package.json"


def test_a_feature_record_named_for_its_folder_states_the_request_of_the_run_beside_it():
    record = json.loads((FEATURE / "feature.json").read_text())
    assert record["id"] == FEATURE.name and "description" in record and "task" not in record  # the layout under test
    request = stated_request(record, FEATURE.name)
    assert request.startswith("Debounce WebSocket Log Message Rendering with Batch Updates\n\nBuffer incoming")
    found = sibling_request(str(FEATURE / "agent-output.md"))
    assert found == (request, str(FEATURE / "feature.json"))


def test_a_description_in_a_record_that_is_not_about_its_folder_is_no_request():
    record = json.loads((FEATURE / "feature.json").read_text())
    untitled = {key: value for key, value in record.items() if key != "title"}
    assert stated_request(untitled, "another-folder") == ""
    assert stated_request(untitled, FEATURE.name)  # its id names the folder


def test_a_package_manifest_beside_a_run_states_no_request(tmp_path):
    manifest = json.loads(MANIFEST.read_text())
    assert manifest["description"] and manifest["version"]  # a description that is no request
    folder = tmp_path / manifest["name"]
    folder.mkdir()
    shutil.copy(MANIFEST, folder / "package.json")
    shutil.copy(FEATURE / "agent-output.md", folder / "agent-output.md")
    assert stated_request(manifest, manifest["name"]) == ""
    assert sibling_request(str(folder / "agent-output.md")) is None


def test_two_task_records_or_a_sibling_run_state_no_single_request(tmp_path):
    folder = tmp_path / FEATURE.name
    shutil.copytree(FEATURE, folder)
    shutil.copy(FEATURE / "feature.json", folder / "feature-copy.json")
    assert sibling_request(str(folder / "agent-output.md")) is None  # which of the two? neither
    (folder / "feature-copy.json").unlink()
    folder_records.cache_clear()  # changed within the clock's tick, the folder's mtime may not move
    run = {"task": "Fix the flaky test in the parser", "messages": [
        {"role": "user", "content": "Fix the flaky test in the parser"}, {"role": "assistant", "content": "Done."}]}
    (folder / "other-run.json").write_text(json.dumps(run))
    assert sibling_request(str(folder / "agent-output.md"))[1].endswith("feature.json")  # a run is no task record


def test_automakers_output_reads_with_the_request_of_its_feature_record():
    from codemix.document import Document
    from codemix.pipelines.readers import read_location
    from codemix.sources import SourceConfig

    run = FEATURE / "agent-output.md"
    source = SourceConfig(name="runs", type="transcripts", paths=[str(run)])
    (doc,) = [o for o in read_location(source, str(run)) if isinstance(o, Document)]
    first, *rest = doc.metadata["messages"]
    assert (first["role"], first["observation"]) == ("user", False)
    assert first["content"] == stated_request(json.loads((FEATURE / "feature.json").read_text()), FEATURE.name)
    assert doc.metadata["transcript"]["task_from"] == "sibling"
    assert doc.metadata["transcript"]["task_file"].endswith("feature.json")
    assert rest and all(m["role"] in ("assistant", "tool") for m in rest)  # the file's own turns follow


def test_a_folder_of_many_task_less_runs_is_listed_once(tmp_path, monkeypatch):
    """Each run in a folder asks for its request; the folder is listed (and its records parsed) once per
    worker, not once per run: listing it per run made a folder of n runs cost n^2."""
    import os

    from codemix.document import Document
    from codemix.pipelines.readers import read_location
    from codemix.sources import SourceConfig

    folder = tmp_path / FEATURE.name
    folder.mkdir()
    shutil.copy(FEATURE / "feature.json", folder / "feature.json")
    runs = [folder / f"agent-output-{index}.md" for index in range(12)]
    for run in runs:
        shutil.copy(FEATURE / "agent-output.md", run)
    listings = []
    for name in ("scandir", "listdir"):  # Path.iterdir lists through os.listdir or os.scandir
        real = getattr(os, name)

        def counted(path=".", real=real):
            if Path(path) == folder:
                listings.append(path)
            return real(path)

        monkeypatch.setattr(os, name, counted)
    source = SourceConfig(name="runs", type="transcripts", paths=[str(folder)])
    docs = [o for run in runs for o in read_location(source, str(run)) if isinstance(o, Document)]
    assert len(docs) == len(runs)
    assert all(doc.metadata["transcript"]["task_from"] == "sibling" for doc in docs)  # every run found it
    assert len(listings) == 1
