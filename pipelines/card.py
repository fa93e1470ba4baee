"""``OUT/README.md``: the build's dataset card, in the Hugging Face dataset-card layout.

Generated at the end of every build from the spec, the manifest and the shards' provenance
sidecars, never written by hand: what was read (sources, licenses, languages), what was removed and
why (drops by reason, dedup, decontamination, redaction), tokens per stage and source, the mixture
and its health, and the limitations a consumer should know about.
"""

from __future__ import annotations

from collections import Counter

from apache_beam.io.filesystems import FileSystems

from codemix.mixtures.provenance import read_provenance, sidecar_path
from codemix.mixtures.spec import MixtureSpec
from codemix.mixtures.stages import stage_kind
from codemix.pipelines.resume import write_atomically
from codemix.tables import percent

# Hugging Face's license ids for the SPDX ids a code corpus usually carries (lower-cased SPDX).
HF_LICENSES = frozenset({"mit", "apache-2.0", "bsd-2-clause", "bsd-3-clause", "isc", "mpl-2.0", "unlicense",
                         "cc0-1.0", "cc-by-4.0", "bsl-1.0", "zlib", "gpl-2.0", "gpl-3.0", "lgpl-3.0", "agpl-3.0"})
SIZES = ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M"),
         (10_000_000, "1M<n<10M"), (100_000_000, "10M<n<100M"), (1_000_000_000, "100M<n<1B"))


def stage_provenance(manifest: dict) -> dict[str, dict[str, Counter]]:
    """Per stage: documents and tokens by license and by language, from the provenance sidecars."""
    counts = {}
    for stage, info in manifest["stages"].items():
        tally = {"license_documents": Counter(), "license_tokens": Counter(), "language_documents": Counter()}
        for prefix in info["shards"]:
            if not FileSystems.exists(sidecar_path(prefix)):
                continue
            rows = read_provenance(prefix).select(["license", "language", "token_count"]).to_pydict()
            for license_id, language, tokens in zip(rows["license"], rows["language"], rows["token_count"]):
                tally["license_documents"][license_id or "unknown"] += 1
                tally["license_tokens"][license_id or "unknown"] += tokens
                for name in (language or "unknown").split(","):
                    tally["language_documents"][name] += 1
        counts[stage] = tally
    return counts


def table(headers: list[str], rows: list[list]) -> str:
    """A Markdown table; numbers with thousands separators."""
    cells = [[f"{v:,}" if isinstance(v, int) else str(v) for v in row] for row in rows]
    return "\n".join(["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
                     + ["| " + " | ".join(row) + " |" for row in cells])


def front_matter(spec: MixtureSpec, manifest: dict, provenance: dict) -> str:
    licenses = sorted({name.lower() for stage in provenance.values() for name in stage["license_documents"]})
    hf = licenses if licenses and all(name in HF_LICENSES for name in licenses) else ["other"]
    documents = sum(info["documents"] for info in manifest["stages"].values())
    size = next((label for bound, label in SIZES if documents < bound), "n>1B")
    lines = ["---", f"pretty_name: {spec.name}", "license:", *(f"  - {name}" for name in hf),
             "language:", "  - code", "  - en", "task_categories:", "  - text-generation",
             "tags:", "  - code", "  - codemix", "  - megatron", "size_categories:", f"  - {size}", "---"]
    return "\n".join(lines)


def sources_section(spec: MixtureSpec, manifest: dict) -> str:
    rows = []
    for source in spec.sources:
        funnel = manifest["sources"].get(source.name, {})
        where = ", ".join(f"`{path}`" for path in source.paths[:3]) + (" ..." if len(source.paths) > 3 else "")
        rows.append([source.name, source.type, where, source.license or "detected", funnel.get("read", 0),
                     funnel.get("kept", 0)])
    return "## Source data\n\n" + table(["source", "type", "locations", "license", "read", "kept"], rows)


def licenses_section(provenance: dict) -> str:
    parts = [("## Licenses and languages\n\nPer stage, from the shards' provenance sidecars "
             "(`STAGE/*.provenance.parquet`, one row per document).")]
    for stage, tally in sorted(provenance.items()):
        documents, tokens = tally["license_documents"], tally["license_tokens"]
        parts.append(f"### {stage}\n\n" + table(["license", "documents", "tokens"],
                                                 [[name, documents[name], tokens[name]] for name in sorted(documents)]))
        languages = tally["language_documents"]
        parts.append(table(["language", "documents"], [[name, n] for name, n in languages.most_common()]))
    return "\n\n".join(parts)


def instances_section(spec: MixtureSpec, manifest: dict) -> str:
    """Which SWE-bench-style instance sets the build kept out, by which policies (filters/benchmarks.py)."""
    config = spec.filters.benchmark_instances
    if not config.enabled:
        return "No benchmark instance set was given."
    hits = Counter((row["benchmark"], row.get("policy", "")) for row in manifest.get("contamination", [])
                   if str(row.get("policy", "")).startswith("benchmark_"))
    snapshots = [s.name for s in spec.sources if s.snapshot == "before_benchmark"]
    return (f"Instances of {', '.join(f'`{b}`' for b in config.instances)}: traces of their tasks (by id, repository and "
            f"number, or problem statement), commits whose diff is a gold or test patch (`git patch-id --stable`, or "
            f"{config.ngram}-gram overlap >= {config.min_overlap} of the fix), their issue threads"
            + (", every later commit of their repositories" if config.later_commits else "")
            + f"; repository files holding a fix were {'dropped' if config.files == 'drop' else 'kept and marked'}"
            + (f"; sources read before the benchmark: {', '.join(snapshots)}" if snapshots else "") + ". Hits: "
            + (", ".join(f"{b} {p} {n:,}" for (b, p), n in sorted(hits.items())) or "none") + ".")


def removed_section(spec: MixtureSpec, manifest: dict) -> str:
    counts = manifest["counts"]
    dropped = counts["dropped"]
    drops = table(["reason", "records"], [[reason, n] for reason, n in sorted(dropped.items())]) if dropped else \
        "No record was dropped."
    decontamination = spec.filters.decontamination
    benchmarks = (["humaneval"] if decontamination.humaneval else []) + [f"`{b}`" for b in decontamination.benchmarks]
    hits = Counter(row["benchmark"] for row in manifest.get("contamination", []))
    redactions = counts.get("redactions", {})
    dedup = spec.dedup
    lines = [
        "## What was removed and why",
        (f"Read {counts['read']:,} records: kept {counts['kept']:,}, dropped {sum(dropped.values()):,}, "
        f"duplicates {counts['duplicates']:,}, quarantined {counts['quarantined']:,} "
        "(read = kept + dropped + duplicates + quarantined)."),
        "### Filters\n\n" + drops,
        "### Deduplication\n\n"
        f"Exact (sha256) and near duplicates (MinHash LSH, {dedup.num_perm} permutations, {dedup.bands} bands x "
        f"{dedup.rows} rows, shingles of {dedup.shingle_size} tokens, verified at Jaccard >= "
        f"{dedup.jaccard_threshold}): {counts['duplicates']:,} documents removed."
        + (f" The long stage deduplicates whole repositories: {manifest['repositories']['duplicates']:,} removed."
           if manifest.get("repositories") else ""),
        "### Decontamination\n\n"
        + (f"Benchmarks: {', '.join(benchmarks)} ({decontamination.ngram}-gram overlap >= "
           f"{decontamination.min_overlap}). Documents dropped per benchmark: "
           + (", ".join(f"{name} {n:,}" for name, n in sorted(hits.items())) or "none") + "."
           if decontamination.enabled else "Disabled for this build."),
        "### Benchmark instances\n\n" + instances_section(spec, manifest),
        "### Redaction\n\n" + (table(["type", "values replaced"], [[t, n] for t, n in sorted(redactions.items())])
                               if redactions else "No secret or personal data was found to redact."),
    ]
    return "\n\n".join(lines)


def stages_section(manifest: dict) -> str:
    parts = ["## Tokens per stage and source"]
    for stage, info in sorted(manifest["stages"].items()):
        tokens = info["tokens_per_source"]
        rows = [[source, n, percent(n, info["tokens"]), f"{info['weights'].get(source, 0):.3f}",
                 info["epochs_per_source"].get(source)] for source, n in sorted(tokens.items())]
        parts.append(f"### {stage}\n\n{info['documents']:,} documents, {info['tokens']:,} tokens, sequence length "
                     f"{info['sequence_length']:,}, token budget {info['token_budget']:,}.\n\n"
                     + table(["source", "tokens", "share", "weight", "epochs at budget"], rows))
    return "\n\n".join(parts)


def health_section(manifest: dict) -> str:
    health = manifest.get("health", {})
    warnings = health.get("warnings", [])
    lines = ["## Mixture health", "No warnings." if not warnings else "\n".join(f"- {w}" for w in warnings)]
    if health.get("notes"):
        lines.append("Notes:\n\n" + "\n".join(f"- {note}" for note in health["notes"]))
    return "\n\n".join(lines)


def limitations_section(spec: MixtureSpec, manifest: dict) -> str:
    items = []
    for stage in (name for name in sorted(manifest["stages"]) if stage_kind(name).loss_masked):
        items.append(f"The `{stage}` blend's loss mask is a parallel dataset (`SOURCE-...-loss_mask.bin/.idx`) that only "
                     "codemix's reader applies: stock Megatron-LM over that blend trains on every token, "
                     "system prompts, user turns and tool output included. For other trainers the stage is "
                     f"exported with its mask: `{stage}/chat/` (OpenAI-style messages, JSONL and Parquet, with the "
                     "tokenizer and chat template that render them to the shards' ids: TRL, verl) and "
                     f"`{stage}/packed/` (Megatron-Bridge/NeMo packed sequences).")
    items.append("Licenses are what each source declares, or what a repository's LICENSE/COPYING files and package "
                 f"metadata say; documents of unknown license were {'kept' if spec.filters.licenses.allow_unknown else 'dropped'}.")
    items.append("Languages are detected from file names and content, not compiled or parsed.")
    items.append("Decontamination only covers the benchmarks named above.")
    if manifest["counts"]["quarantined"]:
        items.append(f"{manifest['counts']['quarantined']:,} records could not be read; they are listed in "
                     "`quarantine/*.jsonl` and are not in the data.")
    for stage, info in sorted(manifest["stages"].items()):
        if info.get("missing_sources"):
            items.append(f"Stage {stage} has no documents from {', '.join(info['missing_sources'])}.")
    return "## Known limitations\n\n" + "\n".join(f"- {item}" for item in items)


def dataset_card(spec: MixtureSpec, manifest: dict, provenance: dict) -> str:
    """The card's Markdown, front matter first."""
    summary = (f"# {spec.name}\n\nA code pretraining mixture built by codemix {manifest['codemix_version']} "
               f"(spec hash `{manifest['spec_hash'][:16]}`, runner {manifest['runner']}) into Megatron indexed "
               f"datasets, one folder per stage ({', '.join(sorted(manifest['stages']))}); each stage's "
               "`--data-path` blend is in `manifest.json`. Tokenizer: `tokenizer.json`, "
               f"{manifest['tokenizer']['vocab_size']:,} ids ({manifest['tokenizer']['origin']}).")
    sections = [front_matter(spec, manifest, provenance), summary, sources_section(spec, manifest),
                licenses_section(provenance), removed_section(spec, manifest), stages_section(manifest),
                health_section(manifest), limitations_section(spec, manifest),
                "This card was generated by `mix build` from `manifest.json` and the provenance sidecars."]
    return "\n\n".join(sections) + "\n"


def write_card(out_dir: str, spec: MixtureSpec, manifest: dict) -> str:
    """Write ``OUT/README.md``; returns its path."""
    path = f"{out_dir}/README.md"
    write_atomically(path, dataset_card(spec, manifest, stage_provenance(manifest)).encode())
    return path
