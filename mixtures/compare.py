"""`mix diff OLD NEW`: what changed between two builds, from their manifests, as text for a terminal.

Per source: the funnel (read, dropped, duplicates, quarantined, kept) and its dedup rate; drops per
reason; per stage and source: documents, tokens and weight; and what changed in the spec's inputs.
"""

from __future__ import annotations

from codemix.tables import format_table, percent

FUNNEL = ("read", "dropped", "duplicates", "quarantined", "kept")


def delta(old: float | None, new: float | None) -> str:
    """``new - old`` with a sign, '-' when equal or either side is missing."""
    if old is None or new is None or old == new:
        return "-"
    change = new - old
    return f"{change:+,}" if isinstance(change, int) else f"{change:+.3f}"


def dedup_rate(row: dict) -> str:
    """Share of the documents reaching dedup that were duplicates."""
    return percent(row.get("duplicates", 0), row.get("duplicates", 0) + row.get("kept", 0))


def spec_changes(old: dict, new: dict) -> list[str]:
    """Lines naming the spec's changes that the manifests record: its hash, sources and their inputs."""
    lines = [] if old["spec_hash"] == new["spec_hash"] else [
        f"spec {old['spec_name']} {old['spec_hash'][:12]} -> {new['spec_name']} {new['spec_hash'][:12]}"]
    inputs_old = {entry["source"]: entry for entry in old.get("inputs", [])}
    inputs_new = {entry["source"]: entry for entry in new.get("inputs", [])}
    for source in sorted(set(inputs_old) | set(inputs_new)):
        before, after = inputs_old.get(source), inputs_new.get(source)
        if before is None or after is None:
            lines.append(f"source {source} {'added' if before is None else 'removed'}")
        elif before != after:
            changed = [key for key in sorted(set(before) | set(after)) if before.get(key) != after.get(key)]
            lines.append(f"source {source}: {', '.join(changed)} changed")
    return lines or ["spec and inputs unchanged"]


def funnel_table(old: dict, new: dict) -> str:
    rows = []
    for source in sorted(set(old["sources"]) | set(new["sources"])):
        before, after = old["sources"].get(source, {}), new["sources"].get(source, {})
        for measure in FUNNEL:
            a, b = before.get(measure), after.get(measure)
            rows.append([source, measure, a, b, delta(a, b)])
        rows.append([source, "dedup rate", dedup_rate(before), dedup_rate(after), ""])
    return format_table(["source", "measure", "old", "new", "change"], rows)


def drops_table(old: dict, new: dict) -> str:
    reasons = sorted(set(old["counts"]["dropped"]) | set(new["counts"]["dropped"]))
    rows = [[reason, old["counts"]["dropped"].get(reason, 0), new["counts"]["dropped"].get(reason, 0),
             delta(old["counts"]["dropped"].get(reason, 0), new["counts"]["dropped"].get(reason, 0))]
            for reason in reasons]
    return format_table(["drop reason", "old", "new", "change"], rows) if rows else "no drops in either build"


def stages_table(old: dict, new: dict) -> str:
    rows = []
    for stage in sorted(set(old["stages"]) | set(new["stages"])):
        before, after = old["stages"].get(stage, {}), new["stages"].get(stage, {})
        a, b = before.get("documents"), after.get("documents")
        rows.append([stage, "(documents)", a, b, delta(a, b), "", ""])
        tokens_old, tokens_new = before.get("tokens_per_source", {}), after.get("tokens_per_source", {})
        weights_old, weights_new = before.get("weights", {}), after.get("weights", {})
        for source in sorted(set(tokens_old) | set(tokens_new)):
            a, b = tokens_old.get(source), tokens_new.get(source)
            rows.append([stage, source, a, b, delta(a or 0, b or 0), _weight(weights_old.get(source)),
                         _weight(weights_new.get(source))])
    return format_table(["stage", "source", "old tokens", "new tokens", "change", "old weight", "new weight"], rows)


def _weight(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def diff_builds(old: dict, new: dict, old_name: str, new_name: str) -> str:
    """The text ``mix diff`` prints for two build manifests."""
    return "\n\n".join([f"old: {old_name}\nnew: {new_name}", "\n".join(spec_changes(old, new)),
                        funnel_table(old, new), drops_table(old, new), stages_table(old, new)])
