"""What changed between two builds, from their manifests: `mix diff OLD NEW` prints it as text and
`mix dash OLD NEW` draws it (``dashboards.compare``), both from the tables here.

Per source: the funnel (read, dropped, duplicates, quarantined, kept) and its dedup rate; drops per
reason, and per source and reason; per stage and source: documents, tokens and weight; and what
changed in the spec's inputs.
"""

from __future__ import annotations

from typing import NamedTuple

from codemix.tables import format_table, percent

FUNNEL = ("read", "dropped", "duplicates", "quarantined", "kept")


class Table(NamedTuple):
    """A comparison as columns and rows, for a terminal (``text``) or a page."""

    headers: list[str]
    rows: list[list]

    def text(self) -> str:
        return format_table(self.headers, self.rows)


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
    """Lines naming the spec's changes that the manifests record: its hash, its inputs, and every
    block of the spec itself (``spec_block_changes``)."""
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
    lines += [] if old["spec_hash"] == new["spec_hash"] else spec_block_changes(old.get("spec"), new.get("spec"))
    return lines or ["spec and inputs unchanged"]


SHOWN_CHANGES = 6  # per spec block; the rest are counted


def flatten(value, path: str = "") -> dict[str, object]:
    """A spec block's leaves by dotted path (``quality.min_alpha``, ``weights.tree``, ``paths[0]``)."""
    if isinstance(value, dict):
        items = [(f"{path}.{key}" if path else str(key), item) for key, item in value.items()]
    elif isinstance(value, list) and value and any(isinstance(item, (dict, list)) for item in value):
        items = [(f"{path}[{i}]", item) for i, item in enumerate(value)]
    else:
        return {path: value}
    return {leaf: v for key, item in items for leaf, v in flatten(item, key).items()} if items else {path: value}


def _shown(value) -> str:
    text = "(absent)" if value is _ABSENT else repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


_ABSENT = object()


def spec_block_changes(old: dict | None, new: dict | None) -> list[str]:
    """One line per block of the spec (``sources``, ``stages``, ``filters``, ``dedup``, ``tokenizer``,
    ...) that differs between two builds' recorded specs, naming each changed field."""
    if old is None or new is None:
        missing = "the old build's" if old is None else "the new build's"
        return [f"spec blocks: {missing} manifest does not record its spec (built before codemix recorded it)"]
    lines = []
    for block in sorted(set(old) | set(new)):
        before, after = flatten(old.get(block, _ABSENT)), flatten(new.get(block, _ABSENT))
        changed = [f"{leaf or block} {_shown(before.get(leaf, _ABSENT))} -> {_shown(after.get(leaf, _ABSENT))}"
                   for leaf in sorted(set(before) | set(after)) if before.get(leaf, _ABSENT) != after.get(leaf, _ABSENT)]
        if changed:
            more = f"; and {len(changed) - SHOWN_CHANGES} more" if len(changed) > SHOWN_CHANGES else ""
            lines.append(f"{block}: {'; '.join(changed[:SHOWN_CHANGES])}{more}")
    return lines


def funnel_table(old: dict, new: dict) -> Table:
    rows = []
    for source in sorted(set(old["sources"]) | set(new["sources"])):
        before, after = old["sources"].get(source, {}), new["sources"].get(source, {})
        for measure in FUNNEL:
            a, b = before.get(measure), after.get(measure)
            rows.append([source, measure, a, b, delta(a, b)])
        rows.append([source, "dedup rate", dedup_rate(before), dedup_rate(after), ""])
    return Table(["source", "measure", "old", "new", "change"], rows)


def drops_table(old: dict, new: dict) -> Table:
    reasons = sorted(set(old["counts"]["dropped"]) | set(new["counts"]["dropped"]))
    rows = [[reason, old["counts"]["dropped"].get(reason, 0), new["counts"]["dropped"].get(reason, 0),
             delta(old["counts"]["dropped"].get(reason, 0), new["counts"]["dropped"].get(reason, 0))]
            for reason in reasons]
    return Table(["drop reason", "old", "new", "change"], rows)


def source_drops_table(old: dict, new: dict) -> Table:
    """Drops per source and reason (the manifest's ``sources.<s>.dropped_by_reason``)."""
    rows = []
    for source in sorted(set(old["sources"]) | set(new["sources"])):
        before = old["sources"].get(source, {}).get("dropped_by_reason", {})
        after = new["sources"].get(source, {}).get("dropped_by_reason", {})
        rows += [[source, reason, before.get(reason, 0), after.get(reason, 0),
                  delta(before.get(reason, 0), after.get(reason, 0))] for reason in sorted(set(before) | set(after))]
    return Table(["source", "drop reason", "old", "new", "change"], rows)


def stages_table(old: dict, new: dict, documents: tuple[dict, dict] | None = None) -> Table:
    """Per stage and source: tokens and weights, and documents when ``documents`` gives them for both
    builds (``{stage: {source: n}}``, e.g. from the shard stats); a stage's total documents otherwise."""
    rows = []
    for stage in sorted(set(old["stages"]) | set(new["stages"])):
        before, after = old["stages"].get(stage, {}), new["stages"].get(stage, {})
        a, b = before.get("documents"), after.get("documents")
        rows.append([stage, "(all)", a, b, delta(a, b), _tokens(before), _tokens(after),
                     delta(_tokens(before), _tokens(after)), "", ""])
        tokens_old, tokens_new = before.get("tokens_per_source", {}), after.get("tokens_per_source", {})
        weights_old, weights_new = before.get("weights", {}), after.get("weights", {})
        for source in sorted(set(tokens_old) | set(tokens_new)):
            docs_old, docs_new = ((documents[0].get(stage, {}).get(source, 0), documents[1].get(stage, {}).get(source, 0))
                                  if documents else (None, None))
            a, b = tokens_old.get(source), tokens_new.get(source)
            rows.append([stage, source, docs_old, docs_new, delta(docs_old, docs_new) if documents else "", a, b,
                         delta(a or 0, b or 0), _weight(weights_old.get(source)), _weight(weights_new.get(source))])
    return Table(["stage", "source", "old documents", "new documents", "change", "old tokens", "new tokens", "change",
                  "old weight", "new weight"], rows)


def _tokens(info: dict) -> int | None:
    return info.get("tokens")


def _weight(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def diff_builds(old: dict, new: dict, old_name: str, new_name: str, documents: tuple[dict, dict] | None = None) -> str:
    """The text ``mix diff`` prints for two build manifests."""
    drops = drops_table(old, new)
    parts = [f"old: {old_name}\nnew: {new_name}", "\n".join(spec_changes(old, new)), funnel_table(old, new).text()]
    parts += [drops.text(), source_drops_table(old, new).text()] if drops.rows else ["no drops in either build"]
    return "\n\n".join([*parts, stages_table(old, new, documents).text()])
