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
from codemix.pipelines.readers.transcripts import sibling_request

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
    import os

    before = os.stat(folder).st_mtime_ns
    (folder / "feature-copy.json").unlink()
    run = {"task": "Fix the flaky test in the parser", "messages": [
        {"role": "user", "content": "Fix the flaky test in the parser"}, {"role": "assistant", "content": "Done."}]}
    (folder / "other-run.json").write_text(json.dumps(run))
    os.utime(folder, ns=(before, before))  # changed within the clock's tick: the folder's time as it was
    assert sibling_request(str(folder / "agent-output.md"))[1].endswith("feature.json")  # a run is no task record
    shutil.copy(FEATURE / "feature.json", folder / "feature-again.json")  # a second task record, in the same tick
    os.utime(folder, ns=(before, before))
    assert sibling_request(str(folder / "agent-output.md")) is None  # seen, though the folder's time did not move


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
    settle(folder)
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


def settle(folder: Path, seconds: float = 60.0) -> None:
    """Date a folder and its files back, as files at rest are (what changed within the clock's last tick is read
    again, never cached)."""
    import os
    import time

    for path in [*folder.iterdir(), folder]:
        os.utime(path, (time.time() - seconds, time.time() - seconds))


def test_a_record_rewritten_in_place_is_read_again_though_its_folder_did_not_change(tmp_path):
    """The folder's listing is cached by the folder's modification time, which a file rewritten in place does not
    move: each record is keyed by its own size and time, so the new request is read, never the cached one."""
    import os

    folder = tmp_path / FEATURE.name
    shutil.copytree(FEATURE, folder)
    settle(folder)
    first = sibling_request(str(folder / "agent-output.md"))
    feature = json.loads((folder / "feature.json").read_text())
    rewritten = {**feature, "description": "Add a dark mode toggle to the settings page"}
    folder_time = os.stat(folder).st_mtime_ns
    (folder / "feature.json").write_text(json.dumps(rewritten))
    settle(folder, seconds=30.0)  # the file at rest again (cached by its key), dated apart from before
    os.utime(folder, ns=(folder_time, folder_time))  # the folder as it was: only the file changed
    second = sibling_request(str(folder / "agent-output.md"))
    assert first[0] == stated_request(feature, FEATURE.name) != second[0]
    assert second[0] == stated_request(rewritten, FEATURE.name)
