"""Does the build hold the mixture the spec asked for? Failures that stop it, and the health summary.

Design notes: docs/design/pipelines.md, "pipelines/health.py".
"""

from __future__ import annotations

import collections
import re
from collections.abc import Iterable
from dataclasses import dataclass

from codemix.config import ConfigError
from codemix.mixtures.spec import MixtureSpec
from codemix.mixtures.stages import stage_kind
from codemix.pipelines import ledger
from codemix.pipelines.manifest import BuildLayout, quarantine_counts, read_counts, unaccounted_records
from codemix.pipelines.tally import by_first
from codemix.tables import format_table, percent

# Drops the spec asked for are not the heuristics' doing: its include/exclude globs, and which records
# of a history or an export it reads at all (merges and bots' commits, events of no issue thread: about
# half of a real history, docs/commits.md), so a commits source is not warned for dropping them.
CHOSEN_DROPS = frozenset({"path_not_included", "merge_commit", "bot_author", "bot_message", "not_an_issue_record"})
# Errors about what a reader found in a location it did read (a file in no transcript layout, an empty
# file, bad JSON or UTF-8): that file is quarantined and counts toward its source's quarantine rate,
# which fails the build only when most of the source is unreadable. Any other error at a configured
# location means the location itself could not be read, and stops the build.
CONTENT_ERRORS = ("TranscriptShapeError:", "JSONDecodeError:", "UnicodeDecodeError:", "LineTooLong:", "RecursionError:")
_PART_SUFFIX = re.compile(r"#part=\d+/\d+$")


@dataclass(frozen=True, slots=True)
class Problem:
    """One reason the build cannot go on: where, what went wrong and what to do about it."""

    source: str
    where: str  # the configured location, or the spec field
    error: str
    fix: str

    def __str__(self) -> str:
        return f"source {self.source!r}, {self.where}: {self.error}\n    fix: {self.fix}"


@dataclass(frozen=True, slots=True)
class EmptyStage:
    """A stage that weights sources none of whose documents is left: which sources, what removed
    their records (the top causes, with counts) and what to change, in one line."""

    stage: str
    causes: str
    fix: str

    def __str__(self) -> str:
        return f"stage {self.stage} has no documents: {self.causes}; fix: {self.fix}"


class BuildFailure(RuntimeError):
    """The build stopped on purpose; the message lists every problem with its fix."""

    def __init__(self, headline: str, problems: list[Problem | EmptyStage]):
        self.problems = problems
        super().__init__(headline + "\n" + "\n".join(f"  - {p}" for p in problems))


def allowed_missing(spec: MixtureSpec, cli_sources: list[str]) -> set[str]:
    """``--allow-missing`` names and the spec's ``allow_missing``; an unknown name is a config error."""
    names = {s.name for s in spec.sources}
    for name in cli_sources:
        if name not in names:
            raise ConfigError("--allow-missing", f"no source named {name!r}", f"sources are: {', '.join(sorted(names))}")
    return set(cli_sources) | set(spec.allow_missing)


def allow_hint(source: str) -> str:
    return f"or build without it on purpose: --allow-missing {source} (or allow_missing: [{source}] in the spec)"


def location_fix(source_type: str, error: str) -> str:
    """What to do about a location that could not be read, from its error."""
    if error.startswith("GitError") and "ref " in error:
        return "set the source's ref to an existing branch, tag or commit"
    if "No such file" in error or "no such" in error or "NotADirectory" in error or "not a directory" in error:
        return "check the path (relative paths are relative to the directory you run mix in)"
    if "://" in error or "Connection" in error or "HTTP" in error or "URLError" in error or "resolve" in error:
        return "check the URL and that this machine can reach it"
    if source_type == "git":
        return "check that the location is a git repository or a clone URL"
    return "check that the location exists and is readable"


def configured_location(spec: MixtureSpec, source: str, location: str) -> tuple[int, int] | None:
    """(source index, path index) when ``location`` (a quarantine record's) is a configured path."""
    location = _PART_SUFFIX.sub("", location)
    for i, config in enumerate(spec.sources):
        if config.name == source and location in config.paths:
            return i, config.paths.index(location)
    return None


def location_problems(spec: MixtureSpec, quarantined: Iterable[dict]) -> list[Problem]:
    """Configured locations that could not be read (their quarantine record names the location itself,
    with an error other than one about its content: ``CONTENT_ERRORS``)."""
    problems, seen = [], set()
    for row in quarantined:
        index = configured_location(spec, row["source"], row["location"])
        if index is None or index in seen or row["error"].startswith(CONTENT_ERRORS):
            continue
        seen.add(index)
        i, j = index
        source = spec.sources[i]
        problems.append(Problem(source.name, f"sources[{i}].paths[{j}] = {source.paths[j]}", row["error"],
                                f"{location_fix(source.type, row['error'])}; {allow_hint(source.name)}"))
    return problems


def rate_problems(spec: MixtureSpec, read: collections.Counter, quarantined: collections.Counter) -> list[Problem]:
    """Sources that read nothing, or whose records were mostly quarantined."""
    problems = []
    for i, source in enumerate(spec.sources):
        n, bad = read.get(source.name, 0), quarantined.get(source.name, 0)
        if n == 0:
            problems.append(Problem(source.name, f"sources[{i}].paths", "read no records",
                                    f"check the paths and include/exclude globs; {allow_hint(source.name)}"))
        elif bad / n > spec.health.fail_quarantine_rate:
            problems.append(Problem(
                source.name, f"sources[{i}].type = {source.type}",
                f"{bad:,} of {n:,} records quarantined ({percent(bad, n)}, over health.fail_quarantine_rate "
                f"{spec.health.fail_quarantine_rate:.0%}); see {{out}}/quarantine/ for the errors",
                f"check that the source's type matches its files; {allow_hint(source.name)}"))
    return problems


def check_crawl(spec: MixtureSpec, layout: BuildLayout, allowed: set[str]) -> dict[str, list[str]]:
    """After the crawl: raise ``BuildFailure`` on unaccounted records (a reader bug, never allowed) or
    on unreadable sources that are not allowed; return what was allowed, per source."""
    unaccounted = unaccounted_records(layout)
    if unaccounted:
        raise BuildFailure("the crawl lost records: readers counted records that no ledger accounts for", [
            Problem(source, "crawl", f"readers counted {counted:,} records, the ledgers hold {held:,} outcomes",
                    "this is a codemix bug: report it with the source's type and input")
            for source, (counted, held) in unaccounted.items()])
    unreadable = location_problems(spec, ledger.iter_jsonl(f"{layout.quarantine}/*.jsonl"))
    named = {p.source for p in unreadable}  # their rate says nothing more than the failed location
    rates = [p for p in rate_problems(spec, read_counts(layout), quarantine_counts(layout)) if p.source not in named]
    return _raise_unless_allowed("a source could not be read", unreadable + rates, allowed, layout)


def check_kept(spec: MixtureSpec, layout: BuildLayout, allowed: set[str], *, repository_level: bool) -> dict:
    """After dedup, before shards: every stage must have documents, and every source it weights too."""
    check_stages_filled(spec, layout, "dedup", repository_level=repository_level)
    kept = {output: by_first(layout.tally(output)["docs"])
            for output in {stage_kind(stage).dedup_output(repository_level) for stage in spec.stages}}
    problems = []
    for stage, config in spec.stages.items():
        for source in config.weights:
            if kept[stage_kind(stage).dedup_output(repository_level)].get(source, 0) == 0:
                problems.append(Problem(source, f"stages.{stage}.weights.{source}",
                                        "no document of this source survived filtering and dedup, so the stage's "
                                        "blend would leave it out and renormalise the other weights",
                                        f"see `mix stats {layout.out}` for its drops; {allow_hint(source)}"))
    return _raise_unless_allowed("a stage would be built without a source it weights", problems, allowed, layout)


def _raise_unless_allowed(headline: str, problems: list[Problem], allowed: set[str],
                          layout: BuildLayout) -> dict[str, list[str]]:
    blocking = [p for p in problems if p.source not in allowed]
    if blocking:
        raise BuildFailure(f"build stopped before writing shards: {headline}",
                           [Problem(p.source, p.where, p.error.replace("{out}", layout.out), p.fix) for p in blocking])
    recorded: dict[str, list[str]] = collections.defaultdict(list)
    for p in problems:
        recorded[p.source].append(f"{p.where}: {p.error.replace('{out}', layout.out)}")
    return dict(recorded)


# --- stages left with no documents ------------------------------------------------------------------
# Whatever emptied it (filters, quarantine, dedup, a source allowed to be missing, the SFT outcome
# policy), a stage with weights and no document is a failure: the build stops at the first step
# that knows it, before anything of the stage is committed, --allow-missing and --strict or not.

def losses_by_source(spec: MixtureSpec, layout: BuildLayout) -> dict[str, collections.Counter]:
    """source -> {(cause, reason): records}: configured locations that could not be read and records
    the crawl quarantined (by error type), and what the crawl and the filter dropped (by reason)."""
    losses: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for row in ledger.iter_jsonl(f"{layout.quarantine}/*.jsonl"):
        unread = (configured_location(spec, row["source"], row["location"]) is not None
                  and not row["error"].startswith(CONTENT_ERRORS))
        losses[row["source"]]["unreadable location" if unread else "quarantined", row["error"].split(":", 1)[0]] += 1
    for (source, reason), n in (layout.tally("crawl")["dropped"] + layout.tally("filter")["dropped"]).items():
        losses[source]["dropped", reason] += n
    return losses


def stage_losses(spec: MixtureSpec, losses: dict[str, collections.Counter], *, duplicates: dict | None = None,
                 shaping: list[dict] = ()) -> dict[str, collections.Counter]:
    """stage -> {(cause, reason): records} over the sources it weights: ``losses``, then each stage's
    ``duplicates`` ({stage: Counter((source,) -> n)}) and what its shaping left out."""
    per_stage = {}
    for stage, config in spec.stages.items():
        counts = sum((losses.get(source, collections.Counter()) for source in config.weights), collections.Counter())
        for (source, *_), n in (duplicates or {}).get(stage, collections.Counter()).items():
            counts["duplicates", ""] += n if source in config.weights else 0
        for row in shaping:
            if row["stage"] == stage and row["source"] in config.weights and "reason" in row:
                counts["left out by shaping", row["reason"]] += row.get("count", 1)
        per_stage[stage] = +counts
    return per_stage


EMPTY_STAGE_FIXES = {
    "read": "check the sources' paths and include/exclude globs",
    "unreadable location": "check the sources' paths, URLs and refs",
    "quarantined": "check that each source's type matches its files (see {out}/quarantine/)",
    "dropped": "see `mix stats {out}` for the drops and loosen the filter that made them",
    "duplicates": "its documents duplicate those of sources it does not weight: weight those instead",
    "left out by shaping": "loosen the shaping that left them out",
    "outcome": "widen stages.{stage}.sft.outcome_policy (any keeps every run)",
    "sequence_length": "raise stages.{stage}.sequence_length",
}


def empty_stage_fix(stage: str, lost: collections.Counter, out: str) -> str:
    """What to change, from the cause that removed most of the stage's records."""
    by_cause: collections.Counter = collections.Counter()
    for (cause, reason), n in lost.items():
        shaped = "outcome" if reason.startswith("outcome_") else "sequence_length" if "sequence_length" in reason else ""
        by_cause[shaped if cause == "left out by shaping" and shaped else cause] += n
    main = by_cause.most_common(1)[0][0] if by_cause else "read"
    return EMPTY_STAGE_FIXES[main].replace("{out}", out).replace("{stage}", stage)


def empty_stages(spec: MixtureSpec, documents: dict[str, collections.Counter], read: collections.Counter,
                 losses: dict[str, collections.Counter], out: str) -> list[EmptyStage]:
    """Stages none of whose weighted sources has a document in ``documents[stage]`` (per source)."""
    found = []
    for stage, config in spec.stages.items():
        sources = sorted(config.weights)
        if any(documents[stage].get(source, 0) for source in sources):
            continue
        lost = losses.get(stage, collections.Counter())
        records = sum(read.get(source, 0) for source in sources)
        top = [f"{n:,} {cause}" + (f" ({reason})" if reason else "") for (cause, reason), n in lost.most_common(3)]
        causes = (f"its source{'s' if len(sources) > 1 else ''} {', '.join(sources)} read {records:,} record(s)"
                  + (": " + ", ".join(top) if top else ""))
        found.append(EmptyStage(stage, causes, empty_stage_fix(stage, lost if records else collections.Counter(), out)
                                + f", weight a source that has documents, or remove stages.{stage} from the spec"))
    return found


def check_stages_filled(spec: MixtureSpec, layout: BuildLayout, after: str, *, repository_level: bool = False,
                        shard_stats: list[dict] | None = None, shaping: list[dict] = ()) -> None:
    """Raise ``BuildFailure``, one ``EmptyStage`` line each, when a stage has no document ``after``
    the filter, after dedup, or (given its ``shard_stats`` and ``shaping``) after its shards."""
    losses, duplicates = losses_by_source(spec, layout), None
    if after == "filter":
        filtered = by_first(layout.tally("filter")["docs"])
        documents = {stage: filtered for stage in spec.stages}
    else:
        kept = {stage: stage_kind(stage).dedup_output(repository_level) for stage in spec.stages}
        duplicates = {stage: layout.tally(step)["duplicates"] for stage, step in kept.items()}
        documents = {stage: by_first(layout.tally(step)["docs"]) for stage, step in kept.items()}
    if shard_stats is not None:
        documents = {stage: collections.Counter() for stage in spec.stages}
        for shard in shard_stats:
            documents[shard["stage"]][shard["source"]] += shard["documents"]
    found = empty_stages(spec, documents, read_counts(layout),
                         stage_losses(spec, losses, duplicates=duplicates, shaping=shaping), layout.out)
    if found:
        raise BuildFailure(f"build stopped after {after}: {len(found)} stage(s) would have no documents "
                           "(the build is left unfinished: no manifest)", found)


# --- the health summary ----------------------------------------------------------------------------

def stage_health(spec: MixtureSpec, stage: str, info: dict, allowed: set[str]) -> tuple[dict, list[str], list[str]]:
    """One stage's summary, warnings and notes."""
    h, config = spec.health, spec.stages[stage]
    warnings, notes = [], []
    filled = info["tokens"] / info["token_budget"]
    if filled < h.min_budget_filled:
        warnings.append(f"stage {stage}: shards hold {info['tokens']:,} tokens, {filled:.0%} of its token budget "
                        f"{info['token_budget']:,} (below health.min_budget_filled {h.min_budget_filled:.0%})")
    sources = {}
    for source, epochs in info["epochs_per_source"].items():
        sources[source] = {"weight": info["weights"][source], "tokens": info["tokens_per_source"][source],
                           "epochs": epochs, "warn": epochs is not None and epochs > h.max_epochs}
        if sources[source]["warn"]:
            warnings.append(f"stage {stage}: source {source} repeats {epochs:,.1f} times to fill its share of the "
                            f"budget (above health.max_epochs {h.max_epochs:g})")
    for source in info["missing_sources"]:
        (notes if source in allowed else warnings).append(
            f"stage {stage}: source {source} has no tokens and is left out of the blend"
            + (" (allowed: --allow-missing)" if source in allowed else ""))
    for source, formats in info.get("left_out_by_source", {}).items():
        line, rate = shaping_line(stage, source, formats)
        if rate > h.warn_drop_rate:
            warnings.append(f"{line} (above health.warn_drop_rate {h.warn_drop_rate:.0%})")
        elif line:
            notes.append(line)
    total = sum(config.weights.values())
    if abs(total - 1) > 1e-9:
        notes.append(f"stage {stage}: weights sum to {total:g}; renormalised to "
                     + ", ".join(f"{s}={w:.3f}" for s, w in info["weights"].items()))
    summary = {"tokens": info["tokens"], "token_budget": info["token_budget"], "budget_filled": round(filled, 4),
               "weights_sum": total, "weights_renormalised": abs(total - 1) > 1e-9 or bool(info["missing_sources"]),
               "missing_sources": info["missing_sources"], "sources": sources}
    return summary, warnings, notes


def shaping_line(stage: str, source: str, formats: dict[str, dict]) -> tuple[str, float]:
    """What shaping left out of one source, per format with its reasons, and the share of its transcripts
    that gave no sample (an outcome policy that leaves out most of a source is worth a warning); the
    line is "" when shaping left nothing out."""
    read = sum(f["transcripts"] for f in formats.values())
    without = sum(f["without_samples"] for f in formats.values())
    parts = [f"{fmt} {f['without_samples']:,} of {f['transcripts']:,}"
             + (" (" + ", ".join(f"{r}: {n:,}" for r, n in sorted(f["reasons"].items())) + ")" if f["reasons"] else "")
             for fmt, f in formats.items() if f["without_samples"] or f["reasons"]]
    line = (f"stage {stage}: source {source}: {without:,} of {read:,} transcripts gave no sample; "
            f"left out per format: {'; '.join(parts)}") if parts else ""
    return line, (without / read if read else 0.0)


def source_health(spec: MixtureSpec, name: str, funnel: dict) -> tuple[dict, list[str]]:
    """A source's outcomes as the manifest counts them (``read = kept + dropped + duplicates +
    quarantined``; ``dropped`` is every drop, those the spec chose included), and its quarantine and
    filter drop rates: the drop rate leaves out what the spec chose not to read (``CHOSEN_DROPS``)."""
    h = spec.health
    read, dropped = funnel.get("read", 0), funnel.get("dropped", 0)
    chosen = sum(n for r, n in funnel.get("dropped_by_reason", {}).items() if r in CHOSEN_DROPS)
    summary = {"read": read, "kept": funnel.get("kept", 0), "dropped": dropped, "chosen_drops": chosen,
               "duplicates": funnel.get("duplicates", 0), "quarantined": funnel.get("quarantined", 0),
               "quarantine_rate": round(funnel.get("quarantined", 0) / read, 4) if read else None,
               "drop_rate": round((dropped - chosen) / (read - chosen), 4) if read - chosen > 0 else None}
    warnings = []
    if summary["quarantine_rate"] is not None and summary["quarantine_rate"] > h.warn_quarantine_rate:
        warnings.append(f"source {name}: {percent(summary['quarantined'], read)} of its records quarantined "
                        f"(above health.warn_quarantine_rate {h.warn_quarantine_rate:.0%})")
    if summary["drop_rate"] is not None and summary["drop_rate"] > h.warn_drop_rate:
        warnings.append(f"source {name}: {percent(dropped - chosen, read - chosen)} of the records it chose to read "
                        f"dropped by filters (above health.warn_drop_rate {h.warn_drop_rate:.0%})")
    return summary, warnings


def build_health(spec: MixtureSpec, manifest: dict, allowed: dict[str, list[str]]) -> dict:
    """``manifest.json``'s ``health``: per stage and source, with every warning and note in words."""
    warnings, notes, stages, sources = [], [], {}, {}
    for stage, info in manifest["stages"].items():
        stages[stage], stage_warnings, stage_notes = stage_health(spec, stage, info, set(allowed))
        warnings += stage_warnings
        notes += stage_notes
    for name, funnel in manifest["sources"].items():
        sources[name], source_warnings = source_health(spec, name, funnel)
        warnings += source_warnings
    hits = collections.Counter(row["benchmark"] for row in manifest.get("contamination", []))
    if hits:
        notes.append("contamination: " + ", ".join(f"{n:,} documents overlapped {b}" for b, n in sorted(hits.items()))
                     + " (dropped)")
    for source, reasons in sorted(allowed.items()):
        notes += [f"source {source} allowed to be missing: {reason}" for reason in reasons]
    return {"ok": not warnings, "warnings": warnings, "notes": notes, "stages": stages, "sources": sources,
            "contamination_hits": dict(sorted(hits.items())), "allowed_missing": allowed,
            "thresholds": {"max_epochs": spec.health.max_epochs, "min_budget_filled": spec.health.min_budget_filled,
                           "warn_quarantine_rate": spec.health.warn_quarantine_rate,
                           "fail_quarantine_rate": spec.health.fail_quarantine_rate,
                           "warn_drop_rate": spec.health.warn_drop_rate}}


def format_health(health: dict) -> str:
    """The summary printed at the end of a build: per stage and source, then warnings and notes."""
    blocks = []
    for stage, info in health["stages"].items():
        rows = [[s, f"{v['weight']:.3f}", v["tokens"], "-" if v["epochs"] is None else f"{v['epochs']:,.2f}x",
                 "WARN" if v["warn"] else ""] for s, v in info["sources"].items()]
        blocks.append(f"stage {stage}: {info['tokens']:,} of {info['token_budget']:,} budget tokens "
                      f"({percent(info['tokens'], info['token_budget'])} filled)\n"
                      + format_table(["source", "weight", "tokens", "epochs", ""], rows, indent="  "))
    blocks.append(sources_table(health["sources"]))
    blocks += [f"note: {note}" for note in health["notes"]]
    blocks += [f"WARNING: {warning}" for warning in health["warnings"]]
    blocks.append("health: ok" if health["ok"] else f"health: {len(health['warnings'])} warning(s)")
    return "\n".join(blocks)


def sources_table(sources: dict) -> str:
    """Per source and in total: read = kept + dropped + duplicates + quarantined (the manifest's counts,
    those of the build's summary line and of ``mix stats``), then the filter drop and quarantine rates."""
    columns = ("read", "kept", "dropped", "duplicates", "quarantined", "chosen_drops")
    rows = [[s, *(v.get(c, 0) for c in columns)] for s, v in sources.items()]
    totals = ["total", *(sum(row[i] for row in rows) for i in range(1, len(columns) + 1))]

    def with_rates(row: list) -> list:
        _, read, _, dropped, _, quarantined, chosen = row
        return [*row[:6], percent(dropped - chosen, read - chosen), percent(quarantined, read)]

    table = format_table(["source", "read", "kept", "dropped", "dup.", "quarantined", "filter drop %", "quar. %"],
                         [with_rates(row) for row in rows], indent="  ", total=with_rates(totals))
    note = (f"\n  dropped includes {totals[6]:,} the spec chose not to read (globs, merges, bots);"
            "\n  filter drop % leaves them out" if totals[6] else "")
    return "sources\n" + table + note
