"""`mix stats DIR`: a build's funnel per source, and what it dropped, redacted (with up to three sample
contexts per type, the secret itself shown only as its placeholder), which benchmark items the
removed documents matched, and the recorded outcomes of the agent transcripts it read, per source and
format.

Everything is recounted from the files the stages wrote, so the numbers can be trusted even for a
build whose manifest was lost, that was rerun from a later stage, or that has not finished yet; only
the CPU per stage and language (``stage_costs``) comes from a finished build's manifest.
Tables are aligned, with a totals row and each count as a share of what its source read;
``--sample N --seed S`` adds N dropped and quarantined records per source and reason, drawn with
``random.Random(S)`` (the same seed shows the same records).
"""

from __future__ import annotations

import collections
import json
import os
import random
import re

import pyarrow.parquet as pq
from apache_beam.io.filesystems import FileSystems

from codemix.kinds import FILE, document_kind
from codemix.mixtures.inspect import NotABuild
from codemix.pipelines import ledger
from codemix.pipelines.costs import STAGE_ORDER
from codemix.pipelines.git_copies import repository_drops, repository_outcomes
from codemix.pipelines.manifest import BuildLayout, quarantine_counts, read_counts
from codemix.pipelines.quality_report import quality_block, quality_summary
from codemix.tables import format_table, percent


def pair_counts(pattern: str, first: str, second: str, weight: str | None = None) -> collections.Counter:
    """Rows (or the sum of ``weight``) per (first, second) value pair across Parquet files."""
    counts: collections.Counter = collections.Counter()
    for path in ledger.matched_files(pattern):
        with FileSystems.open(path) as handle:
            table = pq.read_table(handle, columns=[first, second] + ([weight] if weight else []))
        weights = table.column(weight).to_pylist() if weight else [1] * table.num_rows
        for a, b, n in zip(table.column(first).to_pylist(), table.column(second).to_pylist(), weights):
            counts[(a, b)] += n
    return counts


OUTCOME_FACTS = ("submitted", "tests_passed", "resolved")


def transcript_outcomes(pattern: str) -> dict[str, dict[str, dict]]:
    """``{source: {format: {"transcripts": n, "exit_status": {value: n}, fact: {"true"|"false"|"unknown": n}}}}``
    for every transcript the crawl kept, one row group at a time (a transcript's metadata holds its messages)."""
    outcomes: dict[str, dict[str, dict]] = {}
    for path in ledger.matched_files(pattern):
        with FileSystems.open(path) as handle:
            for batch in pq.ParquetFile(handle).iter_batches(batch_size=64, columns=["source", "kind", "metadata"]):
                for source, kind, metadata in zip(*(batch.column(i).to_pylist() for i in range(3))):
                    if "outcome" in document_kind(kind).provenance:
                        count_outcome(outcomes.setdefault(source, {}), json.loads(metadata or "{}"))
    return outcomes


def count_outcome(per_format: dict[str, dict], metadata: dict) -> None:
    entry = per_format.setdefault(metadata.get("format") or "unknown", {
        "transcripts": 0, "exit_status": collections.Counter(), **{f: collections.Counter() for f in OUTCOME_FACTS}})
    entry["transcripts"] += 1
    entry["exit_status"][metadata.get("exit_status") or "unknown"] += 1
    for fact in OUTCOME_FACTS:
        value = metadata.get(fact)
        entry[fact]["unknown" if value is None else str(bool(value)).lower()] += 1


def require_build(layout: BuildLayout) -> None:
    """``NotABuild`` unless ``layout.out`` holds a build's work (finished or not)."""
    exists = os.path.isdir(layout.out) if "://" not in layout.out else bool(ledger.list_tree(layout.out))
    if not exists:  # an object store has no folders: a build there is objects under a prefix
        raise NotABuild(f"{layout.out} does not exist; give a mix build --out directory")
    if not FileSystems.exists(layout.manifest) and not ledger.list_tree(f"{layout.work}/crawl"):
        raise NotABuild(f"{layout.out} is not a mix build output directory (no manifest.json and no work/crawl/); "
                        "give the directory a mix build --out wrote")


def build_stats(out_dir: str) -> dict:
    """Per source: records read, kept, duplicates and quarantined; drops per reason, redactions per
    type and benchmark hits per benchmark."""
    layout = BuildLayout(out_dir.rstrip("/"))
    require_build(layout)
    dropped = pair_counts(layout.dropped("crawl"), "source", "reason") + pair_counts(
        layout.dropped("filter"), "source", "reason")
    redactions = pair_counts(f"{layout.stage_dir('crawl')}/redactions*.parquet", "source", "type", "count")
    contamination = pair_counts(f"{layout.stage_dir('filter')}/contamination*.parquet", "source", "benchmark")
    policies = benchmark_policies(f"{layout.stage_dir('filter')}/contamination*.parquet")
    quarantined = quarantine_counts(layout)
    duplicates = ledger.count_values(f"{layout.stage_dir('dedup')}/duplicates*.parquet", "source")
    kept = ledger.count_values(layout.docs("dedup"), "source")
    kinds = pair_counts(layout.docs("dedup"), "source", "kind")
    read = read_counts(layout)
    samples = redaction_samples(layout)
    hits = ledger.read_rows(f"{layout.stage_dir('filter')}/contamination*.parquet")
    outcomes = transcript_outcomes(layout.docs("crawl"))
    quality = quality_summary(f"{layout.stage_dir('filter')}/quality*.parquet")
    repositories = repository_outcomes(repository_drops(layout.dropped("crawl")))
    prose = prose_check_counts(layout.dropped("filter"))
    shaping = sft_left_out(layout.out)
    sources = sorted({s for s, _ in dropped} | {s for s, _ in redactions} | set(quarantined) | set(kept)
                     | set(duplicates) | set(read) | set(outcomes))
    return {source: {
        "read": read.get(source, 0),
        "kept": kept.get(source, 0),
        "duplicates": duplicates.get(source, 0),
        "kept_by_kind": {k: n for (s, k), n in sorted(kinds.items()) if s == source},
        "quarantined": quarantined.get(source, 0),
        "dropped": {r: n for (s, r), n in sorted(dropped.items()) if s == source},
        "redactions": {t: n for (s, t), n in sorted(redactions.items()) if s == source},
        "contamination_hits": {b: n for (s, b), n in sorted(contamination.items()) if s == source},
        "benchmark_policies": {k: n for (s, k), n in sorted(policies.items()) if s == source},
        "redaction_samples": samples.get(source, {}),
        "contaminated_documents": sorted(
            ({"location": row["location"], "benchmark": row["benchmark"], "item_id": row["item_id"],
              "overlap": round(row["overlap"], 3),
              "matched_tokens": row.get("matched_tokens", 0), "lines": [row.get("start_line", 0), row.get("end_line", 0)],
              "policy": row.get("policy") or "ngram_overlap", "evidence": row.get("evidence") or ""}
             for row in hits if row["source"] == source),
            key=lambda row: (row["location"], row["benchmark"], row["item_id"])),
        **({"transcript_outcomes": {fmt: {k: (dict(sorted(v.items())) if isinstance(v, collections.Counter) else v)
                                          for k, v in entry.items()}
                                    for fmt, entry in sorted(outcomes[source].items())}}
           if source in outcomes else {}),
        **({"quality": quality[source]} if source in quality else {}),
        **({"repositories": dict(sorted(repositories[source].items()))} if source in repositories else {}),
        **({"prose_checks": dict(sorted(prose[source].items()))} if source in prose else {}),
        **({"sft_left_out": shaping[source]} if source in shaping else {}),
    } for source in sources}


def stage_costs(out_dir: str) -> dict:
    """Per stage this build ran: its CPU seconds (the manifest's ``local_cpu_seconds``), the bytes it took
    in and its documents' own CPU by language (``pipelines.costs``), and ``unattributed``: the stage's CPU
    that no document's work accounts for (Beam, pickling, shuffles, writes, start-up), so that the
    languages and the rest add up to the stage. Empty without a manifest (an unfinished build)."""
    layout = BuildLayout(out_dir.rstrip("/"))
    if not FileSystems.exists(layout.manifest):
        return {}
    with FileSystems.open(layout.manifest) as handle:
        manifest = json.loads(handle.read())
    measured = manifest.get("stage_costs", {})
    costs = {}
    ran = manifest.get("local_cpu_seconds", {})
    for stage in sorted(ran, key=lambda name: (costs_order(name), name)):
        cpu = ran[stage]
        languages = {language: {**entry, "cpu_seconds_per_mb": per_mb(entry["cpu_seconds"], entry["bytes"])}
                     for language, entry in measured.get(stage, {}).items()}
        total_bytes = sum(entry["bytes"] for entry in languages.values())
        costs[stage] = {"cpu_seconds": cpu, "bytes": total_bytes, "cpu_seconds_per_mb": per_mb(cpu, total_bytes),
                        "languages": languages,
                        "unattributed_cpu_seconds": round(cpu - sum(e["cpu_seconds"] for e in languages.values()), 3)}
    return costs


def costs_order(stage: str) -> int:
    return STAGE_ORDER.index(stage) if stage in STAGE_ORDER else len(STAGE_ORDER)


def per_mb(cpu_seconds: float, text_bytes: int) -> float | None:
    return round(cpu_seconds / (text_bytes / 1e6), 3) if text_bytes else None


def costs_table(costs: dict) -> str:
    """Stage x language: MB taken in, CPU s, CPU s per MB; each stage's unattributed rest and its total."""
    rows = []
    for stage, info in costs.items():
        rows += [[stage, language or "(none)", entry["bytes"] / 1e6, entry["cpu_seconds"], entry["cpu_seconds_per_mb"]]
                 for language, entry in info["languages"].items()]
        if info["languages"]:
            rows.append([stage, "(unattributed)", None, info["unattributed_cpu_seconds"], None])
        rows.append([stage, "stage total", info["bytes"] / 1e6 if info["bytes"] else None, info["cpu_seconds"],
                     info["cpu_seconds_per_mb"]])
    if not rows:
        return ""
    return ("CPU per stage and language (each document's own work, thread CPU; unattributed: the rest of the "
            "stage's CPU: Beam, pickling, shuffles, writes, start-up)\n"
            + format_table(["stage", "language", "MB in", "CPU s", "CPU s / MB"], rows,
                           total=["build", "", None, round(sum(i["cpu_seconds"] for i in costs.values()), 3), None]))


def prose_check_counts(pattern: str) -> dict[str, collections.Counter]:
    """source -> every prose check its prose drops failed (a drop counts once per check; the ``dropped``
    table counts it once, by its first). Builds written before the ``reasons`` column have none."""
    counts: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for path in ledger.matched_files(pattern):
        with FileSystems.open(path) as handle:
            parquet = pq.ParquetFile(handle)
            if "reasons" not in parquet.schema_arrow.names:
                continue
            rows = parquet.read(columns=["source", "reasons"]).to_pylist()
        for row in rows:
            counts[row["source"]].update(row["reasons"] or [])
    return counts


def sft_left_out(out_dir: str) -> dict[str, dict[str, dict]]:
    """source -> stage -> format -> transcripts read, those without a sample and the reasons, as the
    manifest recorded SFT shaping (``stages.<stage>.left_out_by_source``)."""
    path = f"{out_dir}/manifest.json"
    if not FileSystems.exists(path):
        return {}
    with FileSystems.open(path) as handle:
        stages = json.load(handle).get("stages", {})
    table: dict[str, dict[str, dict]] = collections.defaultdict(dict)
    for stage, info in sorted(stages.items()):
        for source, formats in info.get("left_out_by_source", {}).items():
            table[source][stage] = formats
    return dict(table)


SAMPLES_PER_TYPE = 3
CONTEXT_CHARS = 60


def redaction_samples(layout: BuildLayout) -> dict[str, dict[str, list[str]]]:
    """source -> placeholder type -> up to three contexts, read from the redacted crawl documents of
    the documents the redaction records name. The crawl wrote them after redaction, so a context shows
    the placeholder where the secret was, never the secret. Only the ``id`` column of the crawl's
    documents is scanned; text is read from the row groups that hold a chosen document, and the scan
    stops once every chosen document was seen (at most three per source and type)."""
    wanted = sample_documents(ledger.read_rows(f"{layout.stage_dir('crawl')}/redactions*.parquet"))
    samples: dict[str, dict[str, list[str]]] = collections.defaultdict(lambda: collections.defaultdict(list))
    for row in documents_by_id(layout.docs("crawl"), set(wanted)):
        for kind in wanted[row["id"]]:
            found = samples[row["source"]][kind]
            if len(found) < SAMPLES_PER_TYPE:
                found += _contexts(row["text"], kind, SAMPLES_PER_TYPE - len(found))
    return {source: dict(kinds) for source, kinds in samples.items()}


def sample_documents(redactions) -> dict[str, set[str]]:
    """doc id -> types to sample from it: the first ``SAMPLES_PER_TYPE`` documents of each (source, type)."""
    chosen: collections.Counter = collections.Counter()
    wanted: dict[str, set[str]] = collections.defaultdict(set)
    for row in redactions:
        if chosen[row["source"], row["type"]] < SAMPLES_PER_TYPE and row["type"] not in wanted[row["doc_id"]]:
            chosen[row["source"], row["type"]] += 1
            wanted[row["doc_id"]].add(row["type"])
    return dict(wanted)


def documents_by_id(pattern: str, ids: set[str]):
    """The (id, source, text) rows of ``ids`` in the matching Parquet files: the id column of each row
    group, then the text of the rows wanted there only; stops when every id was found."""
    pending = set(ids)
    for path in ledger.matched_files(pattern) if pending else []:
        with FileSystems.open(path) as handle:
            parquet = pq.ParquetFile(handle)
            for group in range(parquet.num_row_groups):
                found = [i for i, doc_id in enumerate(parquet.read_row_group(group, columns=["id"]).column(0).to_pylist())
                         if doc_id in pending]
                if found:
                    rows = parquet.read_row_group(group, columns=["id", "source", "text"]).take(found).to_pylist()
                    pending -= {row["id"] for row in rows}
                    yield from rows
                if not pending:
                    return


def _contexts(text: str, kind: str, limit: int) -> list[str]:
    """Up to ``limit`` one-line contexts around ``<kind>`` in ``text``."""
    contexts = []
    for match in re.finditer(re.escape(f"<{kind}>"), text):
        start = max(text.rfind("\n", 0, match.start()) + 1, match.start() - CONTEXT_CHARS)
        end = text.find("\n", match.end())
        end = min(len(text) if end < 0 else end, match.end() + CONTEXT_CHARS)
        contexts.append(text[start:end].strip())
        if len(contexts) == limit:
            break
    return contexts


def sample_records(out_dir: str, n: int, seed: int) -> dict:
    """Up to ``n`` dropped records per (source, reason) and quarantined records per source, drawn with ``seed``."""
    layout = BuildLayout(out_dir.rstrip("/"))
    require_build(layout)
    dropped: dict[str, list[dict]] = collections.defaultdict(list)
    for stage in ("crawl", "filter"):
        for path in ledger.matched_files(layout.dropped(stage)):
            with FileSystems.open(path) as handle:
                rows = pq.read_table(handle, columns=["source", "reason", "location"]).to_pylist()
            for row in rows:
                dropped[f"{row['source']} {row['reason']}"].append({"stage": stage, "location": row["location"]})
    quarantined: dict[str, list[dict]] = collections.defaultdict(list)
    for row in ledger.read_jsonl(f"{layout.quarantine}/*.jsonl"):
        quarantined[row["source"]].append({"location": row["location"], "error": row["error"]})
    rng = random.Random(seed)

    def draw(groups: dict[str, list[dict]]) -> dict[str, list[dict]]:
        return {key: rng.sample(sorted(rows, key=json.dumps), min(n, len(rows))) for key, rows in sorted(groups.items())}

    return {"dropped": draw(dropped), "quarantined": draw(quarantined), "seed": seed}


def benchmark_policies(pattern: str) -> collections.Counter:
    """(source, ``benchmark / policy``) -> hits: what each benchmark's hits were found by
    (``ngram_overlap`` for HumanEval-style items, an instance policy of ``filters.benchmarks``)."""
    counts: collections.Counter = collections.Counter()
    for row in ledger.read_rows(pattern):
        counts[row["source"], f"{row['benchmark']} / {row.get('policy') or 'ngram_overlap'}"] += 1
    return counts


def format_stats(stats: dict, samples: dict | None = None, costs: dict | None = None) -> str:
    """Aligned tables: the funnel per source, drops per reason, redactions and benchmark hits; with
    ``costs`` (``stage_costs``), CPU per stage and language."""
    if not stats:
        return "no records found in this build's ledgers"
    blocks = [funnel_table(stats), *([kinds_table(stats)] if kinds_table(stats) else [])]
    for title, key, column in (("dropped", "dropped", "reason"), ("redacted", "redactions", "type"),
                               ("benchmark hits", "contamination_hits", "benchmark"),
                               ("benchmark hits by policy", "benchmark_policies", "benchmark / policy")):
        rows = [[source, name, n, percent(n, info["read"])] for source, info in stats.items()
                for name, n in info.get(key, {}).items()]
        if rows:
            blocks.append(f"{title}\n" + format_table(
                ["source", column, "records", "% of read"], rows,
                total=["total", "", sum(r[2] for r in rows), percent(sum(r[2] for r in rows), total_read(stats))]))
    blocks += [block for block in (prose_checks_table(stats), shaping_table(stats), redaction_contexts(stats),
                                   contaminated_documents(stats), outcomes_table(stats), repositories_table(stats),
                                   quality_block(stats)) if block]
    if costs and costs_table(costs):
        blocks.append(costs_table(costs))
    if samples:
        blocks.append(format_samples(samples))
    return "\n\n".join(blocks)


def prose_checks_table(stats: dict) -> str:
    """Every check the prose drops failed, not only the first that the dropped table counts them by."""
    rows = [[source, check, n] for source, info in stats.items() for check, n in info.get("prose_checks", {}).items()]
    return "prose checks failed (every check of each prose drop)\n" + format_table(
        ["source", "check", "records"], rows) if rows else ""


def shaping_table(stats: dict) -> str:
    """SFT shaping per source, stage and format: transcripts, those that gave no sample, and why."""
    rows = [[source, stage, fmt, f["transcripts"], f["without_samples"], percent(f["without_samples"], f["transcripts"]),
             ", ".join(f"{r}: {n:,}" for r, n in sorted(f["reasons"].items())) or "-"]
            for source, info in stats.items() for stage, formats in info.get("sft_left_out", {}).items()
            for fmt, f in formats.items()]
    return "SFT shaping: transcripts that gave no sample, and what was left out\n" + format_table(
        ["source", "stage", "format", "transcripts", "no sample", "%", "left out (reason: n)"], rows) if rows else ""


def redaction_contexts(stats: dict) -> str:
    """A few contexts of each redaction type, with the placeholder where the secret was."""
    lines = [f"  {source} {kind}: e.g. {context}" for source, info in stats.items()
             for kind, contexts in info["redaction_samples"].items() for context in contexts]
    return "redaction contexts\n" + "\n".join(lines) if lines else ""


def outcomes_table(stats: dict) -> str:
    """Transcripts per source and format, with their recorded exit status and outcome facts."""
    rows = [[source, fmt, entry["transcripts"],
             *(" ".join(f"{value}:{n}" for value, n in entry[fact].items()) for fact in ("exit_status", *OUTCOME_FACTS))]
            for source, info in stats.items() for fmt, entry in info.get("transcript_outcomes", {}).items()]
    if not rows:
        return ""
    return "transcript outcomes\n" + format_table(["source", "format", "transcripts", "exit_status", *OUTCOME_FACTS],
                                                   rows, total=["total", "", sum(r[2] for r in rows), "", "", "", ""])


def repositories_table(stats: dict) -> str:
    """Per git repository: blobs its copy lacked, LFS pointers and submodules (``repository_outcomes``)."""
    rows = [[source, repository, entry["blob_missing"], entry["lfs_pointer"], len(entry["submodules"]),
             " ".join(entry["submodules"])]
            for source, info in stats.items() for repository, entry in info.get("repositories", {}).items()]
    if not rows:
        return ""
    return "git repositories\n" + format_table(
        ["source", "repository", "blob_missing", "lfs_pointer", "submodules", "submodule paths"], rows,
        total=["total", "", sum(r[2] for r in rows), sum(r[3] for r in rows), sum(r[4] for r in rows), ""])


def contaminated_documents(stats: dict) -> str:
    lines = [f"  {source} {hit['location']}: {hit['benchmark']} {hit['item_id']} (overlap {hit['overlap']:.2f}, "
             + (f"{hit['matched_tokens']} tokens at lines {hit['lines'][0]}-{hit['lines'][1]})"
                if hit.get("policy", "ngram_overlap") == "ngram_overlap" else f"{hit['policy']} by {hit['evidence']})")
             for source, info in stats.items() for hit in info["contaminated_documents"]]
    return "contaminated documents\n" + "\n".join(lines) if lines else ""


def total_read(stats: dict) -> int:
    return sum(info["read"] for info in stats.values())


def kinds_table(stats: dict) -> str:
    """Kept documents per source and kind (file, commit, notebook, issue, transcript), when a build
    kept any kind but files."""
    rows = [[source, kind, n] for source, info in stats.items() for kind, n in info.get("kept_by_kind", {}).items()]
    if all(kind == FILE.name for _, kind, _ in rows):
        return ""
    return "kept by kind\n" + format_table(["source", "kind", "documents"], rows,
                                            total=["total", "", sum(row[2] for row in rows)])


def funnel_table(stats: dict) -> str:
    """Per source: read, dropped, quarantined, duplicates and kept, each also as a share of read."""
    rows = []
    for source, info in stats.items():
        dropped, read = sum(info["dropped"].values()), info["read"]
        rows.append([source, read, dropped, percent(dropped, read), info["quarantined"],
                     percent(info["quarantined"], read), info["duplicates"], info["kept"], percent(info["kept"], read)])
    sums = [sum(row[i] for row in rows) for i in (1, 2, 4, 6, 7)]
    return "funnel per source\n" + format_table(
        ["source", "read", "dropped", "%", "quarantined", "%", "duplicates", "kept", "%"], rows,
        total=["total", sums[0], sums[1], percent(sums[1], sums[0]), sums[2], percent(sums[2], sums[0]), sums[3],
               sums[4], percent(sums[4], sums[0])])


def format_samples(samples: dict) -> str:
    lines = [f"samples (seed {samples['seed']})"]
    for key, rows in samples["dropped"].items():
        lines += [f"  dropped {key}: {row['location']}" for row in rows]
    for source, rows in samples["quarantined"].items():
        lines += [f"  quarantined {source}: {row['location']}  {row['error']}" for row in rows]
    return "\n".join(lines)


def stats_json(stats: dict, samples: dict | None = None, costs: dict | None = None) -> str:
    return json.dumps({**stats, **({"_samples": samples} if samples else {}),
                       **({"_stage_costs": costs} if costs else {})}, indent=2, sort_keys=True)
