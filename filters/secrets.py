"""Secrets and PII redacted in place: each secret *value* becomes a typed placeholder, nothing is dropped.

Design notes: docs/design/filters.md, "filters/secrets.py".
"""

from __future__ import annotations

import base64
import bisect
import dataclasses
import functools
import ipaddress
import itertools
import json
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from detect_secrets.filters import heuristic
from detect_secrets.plugins.artifactory import ArtifactoryDetector
from detect_secrets.plugins.aws import AWSKeyDetector
from detect_secrets.plugins.azure_storage_key import AzureStorageKeyDetector
from detect_secrets.plugins.base import RegexBasedDetector
from detect_secrets.plugins.basic_auth import BasicAuthDetector
from detect_secrets.plugins.cloudant import CloudantDetector
from detect_secrets.plugins.discord import DiscordBotTokenDetector
from detect_secrets.plugins.github_token import GitHubTokenDetector
from detect_secrets.plugins.gitlab_token import GitLabTokenDetector
from detect_secrets.plugins.high_entropy_strings import (
    Base64HighEntropyString,
    HexHighEntropyString,
    HighEntropyStringsPlugin,
)
from detect_secrets.plugins.ibm_cloud_iam import IbmCloudIamDetector
from detect_secrets.plugins.ibm_cos_hmac import IbmCosHmacDetector
from detect_secrets.plugins.jwt import JwtTokenDetector
from detect_secrets.plugins.keyword import DENYLIST, KeywordDetector
from detect_secrets.plugins.mailchimp import MailchimpDetector
from detect_secrets.plugins.npm import NpmDetector
from detect_secrets.plugins.openai import OpenAIDetector
from detect_secrets.plugins.pypi_token import PypiTokenDetector
from detect_secrets.plugins.sendgrid import SendGridDetector
from detect_secrets.plugins.slack import SlackDetector
from detect_secrets.plugins.softlayer import SoftlayerDetector
from detect_secrets.plugins.square_oauth import SquareOAuthDetector
from detect_secrets.plugins.stripe import StripeDetector
from detect_secrets.plugins.telegram_token import TelegramBotTokenDetector
from detect_secrets.plugins.twilio import TwilioKeyDetector

from codemix.config import join, require
from codemix.document import Document
from codemix.filters import gitleaks, notebooks
from codemix.filters.lowered import Gates, Lowered, lines_with
from codemix.filters.notebook_json import Cell, is_notebook, notebook_cells
from codemix.filters.patches import hunk_sides, parse_patch
from codemix.filters.regex_screen import Possible, RegexScreen
from codemix.filters.transcript_parts import PROSE, LanguageOf, Part, TraceState, is_observation, split_decoded
from codemix.kinds import CELLS, DIFF, MESSAGES, SOURCE, document_kind

# Values shorter than this are not redacted by the keyword/assignment/URL rules, nor propagated:
# shorter "passwords" in code are placeholders ("pw", "test", "1234"), and propagating them would
# hit ordinary words. Vendor tokens are all far longer.
MIN_VALUE_LENGTH = 6

# Addresses that name no person: RFC 2606/6761 reserved domains, no-reply senders, OpenSSH's algorithm
# names (``sk-ssh-ed25519@openssh.com``: RFC 4251 sec. 6 extension names, not mailboxes), and ``git@``
# (the SSH user of ``git@github.com:org/repo.git``). ``@domain`` matches the domain and its
# subdomains, ``local@`` any address with that local part, anything else one exact address.
DEFAULT_EMAIL_ALLOWLIST = (
    "@example.com", "@example.org", "@example.net", "@example", "@test", "@invalid", "@localhost",
    "@users.noreply.github.com", "@openssh.com", "noreply@", "no-reply@", "donotreply@", "do-not-reply@", "git@",
)
# Well-known public resolvers, and 1.2.3.4 (code's stock dummy address): public, but they identify no
# person. Private, loopback, link-local, documentation (192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24,
# 2001:db8::/32), multicast and other non-global ranges are never redacted, whatever this list says.
DEFAULT_IP_ALLOWLIST = ("1.2.3.4", "8.8.8.8", "8.8.4.4", "1.1.1.1", "1.0.0.1", "9.9.9.9", "208.67.222.222",
                        "208.67.220.220", "2001:4860:4860::8888", "2001:4860:4860::8844")


@dataclass(slots=True, kw_only=True)
class RedactionConfig:
    """What ``redact_text`` replaces. Loaded from YAML with ``codemix.config.load_config``.

    ``email_allowlist``/``ip_allowlist`` replace the defaults when given, so copy the defaults you
    still want. IP entries may be addresses or CIDR networks.
    """

    enabled: bool = True
    # Every secret detector; false leaves personal data only (emails, IP addresses), what datatrove's
    # PIIFormatter redacts, for corpora whose secrets are handled elsewhere.
    secrets: bool = True
    detect_secrets: bool = True  # detect-secrets' plugins (service regexes, keywords, entropy); never verifies
    emails: bool = True
    ip_addresses: bool = True  # public (globally routable) addresses only
    base64_entropy_limit: float = 4.5  # detect-secrets' default for Base64HighEntropyString
    hex_entropy_limit: float = 3.0  # detect-secrets' default for HexHighEntropyString
    email_allowlist: list[str] = field(default_factory=lambda: list(DEFAULT_EMAIL_ALLOWLIST))
    ip_allowlist: list[str] = field(default_factory=lambda: list(DEFAULT_IP_ALLOWLIST))

    def validate(self, path: str) -> None:
        for name in ("base64_entropy_limit", "hex_entropy_limit"):
            require(0.0 <= getattr(self, name) <= 8.0, join(path, name), "must be between 0 and 8 bits")
        for i, entry in enumerate(self.email_allowlist):
            require("@" in entry, join(join(path, "email_allowlist"), i),
                    f"{entry!r} is not an address, 'local@' or '@domain'")
        for i, entry in enumerate(self.ip_allowlist):
            require(_parse_network(entry) is not None, join(join(path, "ip_allowlist"), i),
                    f"{entry!r} is not an IP address or CIDR network")


def redact_text(text: str, config: RedactionConfig, language: str = "") -> tuple[str, Counter[str]]:
    """``text`` with every secret value replaced by its placeholder, and the count per placeholder name.

    ``language`` is the document's (``pipelines.readers.language`` names): in programming languages
    an unquoted ``name = word`` assigns a variable, not a secret, so such values are left alone
    unless they look generated; in config files, shell and prose an unquoted value is a literal.
    """
    redacted, counts, _ = _redact(text, config, {}, language)
    return redacted, counts


def redaction_spans(text: str, config: RedactionConfig, language: str = "") -> list[tuple[int, int, str]]:
    """``(start, end, placeholder name)`` of every span ``redact_text`` replaces, in order; the later
    pieces of a private key split over several strings (replaced by nothing) carry the key's name too."""
    if not config.enabled or not text:
        return []
    return [(f.start, f.end, f.kind) for f in _with_repeats(text, _find(text, config, language), {})]


def redact_document(doc: Document, config: RedactionConfig, *, render: Callable[[list[Any]], str] | None = None,
                    language_of: LanguageOf | None = None) -> tuple[Document, Counter[str]]:
    """A copy of ``doc`` with secrets redacted, and the counts for the document.

    A transcript whose ``text`` is ``render(metadata["messages"])`` is redacted part by part
    (``redact_messages``: code as code, shell as shell, prose as prose) and its text rendered again
    from the redacted messages. Without ``render``/``language_of`` (or when the text is not that
    rendering), the text and the messages are redacted as language-less text, each view's values
    replaced in the other (``_redact_views``).
    """
    if not config.enabled:
        return doc, Counter()
    language = doc.language or _language_of_path(doc.path)
    view = document_kind(doc.kind).redaction
    messages = doc.metadata.get("messages") if view == MESSAGES else None
    if not isinstance(messages, list):
        cells = notebook_cells(doc.text) if view == SOURCE and is_notebook(doc.path, language) else None
        if cells is not None:
            text, counts = _redact_notebook(doc.text, cells, config, language_of or _no_language)
        elif view == CELLS and doc.text.startswith(notebooks.START):
            replaced, counts = _redact_plan([(0, doc.text, list(_cells_layout_parts(doc.text, language)))], config)
            text = replaced.get(0, doc.text)
        elif view == DIFF:
            text, counts = _redact_commit(doc, config)
        else:
            text, counts, _ = _redact(doc.text, config, {}, language)
        return dataclasses.replace(doc, text=text), counts
    if render is not None and language_of is not None and _renders_as(messages, render, doc.text):
        redacted, counts = redact_messages(messages, config, language_of)
        return dataclasses.replace(doc, text=render(redacted), metadata={**doc.metadata, "messages": redacted}), counts
    return _redact_views(doc, messages, config)


def _redact_commit(doc: Document, config: RedactionConfig) -> tuple[str, Counter[str]]:
    """A commit: its message and headers as text, and each changed file's old side (context and ``-``
    lines) and new side (context and ``+`` lines) read as that file in its language, so a key or a
    password in removed lines is found as surely as in added ones. A value spanning lines (a private key)
    is masked line by line: the first line's part becomes the placeholder, the later parts nothing, and
    every marker and newline of the diff stays."""
    text = doc.text
    if not config.enabled or not text:
        return text, Counter()
    languages = {f.get("path"): f.get("language", "") for f in doc.metadata.get("files") or []}
    sides = hunk_sides(text)
    in_hunks = sorted((offset - 1, offset + len(content)) for side in sides for lines in (side.old, side.new)
                      for offset, content in lines)
    starts = [start for start, _ in in_hunks]
    findings = [f for f in _find(text, config, "") if not _overlaps_any(f, in_hunks, starts)]
    for side in sides:
        language = languages.get(side.path) or _language_of_path(side.path)
        for lines in (side.old, side.new):
            view = "\n".join(content for _, content in lines)
            findings += [piece for f in _find(view, config, language) for piece in _on_lines(f, lines)]
    spans = _with_repeats(text, _resolve(findings), _commit_view_values(doc, config))
    return _substitute(text, spans), Counter(f.kind for f in spans if f.replacement is None)


def _overlaps_any(finding: Finding, ranges: list[tuple[int, int]], starts: list[int]) -> bool:
    """Does ``finding`` overlap one of the sorted, disjoint ``ranges``?"""
    i = bisect.bisect_right(starts, finding.end)
    return any(start < finding.end and finding.start < end for start, end in ranges[max(0, i - 2):i + 1])


def _on_lines(finding: Finding, lines: list[tuple[int, str]]) -> Iterator[Finding]:
    """A finding in a side's text (its lines joined by newlines) as pieces of the diff's lines."""
    position, first = 0, True
    for offset, content in lines:
        start, end = max(finding.start, position), min(finding.end, position + len(content))
        if start < end:
            piece = finding._replace(start=offset + start - position, end=offset + end - position,
                                     value=content[start - position:end - position])
            yield piece if first else piece._replace(replacement="")
            first = False
        position += len(content) + 1
        if position > finding.end:
            return


def _commit_view_values(doc: Document, config: RedactionConfig) -> dict[str, str]:
    """Values found in a commit's changed files read as what they are: each file's added lines in
    its language (a notebook's JSON source lines decoded first), replaced in the diff like a value
    another view of a transcript found (``_with_repeats``)."""
    languages = {f.get("path"): f.get("language", "") for f in doc.metadata.get("files") or []}
    values: dict[str, str] = {}
    for diff in parse_patch(doc.text):
        if not diff.added:
            continue
        notebook = diff.path.lower().endswith(".ipynb")
        view = "\n".join(_json_line(line) for line in diff.added) if notebook else "\n".join(diff.added)
        language = "python" if notebook else languages.get(diff.path) or _language_of_path(diff.path)
        values.update({f.value: f.kind for f in _find(view, config, language) if f.replacement is None})
    return values


def _json_line(line: str) -> str:
    """A notebook line as its cell holds it: ``"x = 1\\n",`` -> ``x = 1``; other lines as they are."""
    stripped = line.strip().removesuffix(",")
    if len(stripped) >= 2 and stripped[0] == stripped[-1] == '"':
        try:
            return str(json.loads(stripped)).rstrip("\n")
        except ValueError:
            return line
    return line


def _no_language(path: str) -> str:
    return ""


def _redact_notebook(raw: str, cells: list[Cell], config: RedactionConfig,
                     language_of: LanguageOf) -> tuple[str, Counter[str]]:
    """A notebook's cells redacted as what they are (code in the kernel's language, markdown and
    outputs as prose), and the JSON around them (metadata) as text; the file stays valid JSON."""
    parts: list[Part] = []
    for cell in cells:
        if cell.kind == "code":
            parts.append(Part(0, cell.text, cell.language, cell.offsets, cell.breaks))
        else:
            parts += split_decoded(cell.text, cell.offsets, language_of, cell.breaks)
    ranges = [(cell.offsets[0] - 1, cell.offsets[-1] + 1) for cell in cells if cell.text]
    outside = [f for f in _find(raw, config, "json") if not any(s < f.end and f.start < e for s, e in ranges)]
    replaced, counts = _redact_plan([("notebook", raw, parts)], config, {"notebook": outside})
    return replaced.get("notebook", raw), counts


CELL_MARKER = re.compile("|".join(re.escape(m) for m in (notebooks.START, notebooks.TEXT, notebooks.CODE,
                                                          notebooks.OUTPUT, notebooks.EMPTY)))


def _cells_layout_parts(text: str, language: str) -> Iterator[Part]:
    """A notebook document in StarCoder2's ``cells`` layout: code cells in the kernel's language,
    markdown and outputs as prose (markers themselves are never secrets and are left out)."""
    markers = list(CELL_MARKER.finditer(text))
    for marker, following in zip(markers, [*markers[1:], None]):
        start, end = marker.end(), following.start() if following else len(text)
        if end > start:
            yield Part(start, text[start:end], language if marker.group() == notebooks.CODE else PROSE)


def _renders_as(messages: list[Any], render: Callable[[list[Any]], str], text: str) -> bool:
    try:
        return render(messages) == text
    except (KeyError, TypeError, AttributeError):
        return False


def _redact_views(doc: Document, messages: list[Any], config: RedactionConfig) -> tuple[Document, Counter[str]]:
    """Text and messages redacted without languages: a value found in either view is replaced in the
    other where it stands as a whole string there (or anywhere, when it is secret-shaped)."""
    found = {s: _find(s, config, "") for s in set(_message_strings(messages))}
    message_values = {f.value: f.kind for findings in found.values() for f in findings if f.replacement is None}
    text, counts, text_values = _redact(doc.text, config, message_values, "")
    values = {**message_values, **text_values}  # the text's kind wins, so both views read the same
    redact = functools.partial(_apply_lookup, found=found, values=values)
    metadata = {**doc.metadata, "messages": [_map_message(m, redact) for m in messages]}
    return dataclasses.replace(doc, text=text, metadata=metadata), counts


def redact_messages(messages: list[Any], config: RedactionConfig,
                    language_of: LanguageOf) -> tuple[list[Any], Counter[str]]:
    """Canonical messages with every part (``transcript_parts``) redacted in its own language, and the
    counts. A value found in one part is also replaced where it recurs in another (``_with_repeats``)."""
    plan = list(_message_parts(messages, language_of))
    replaced, counts = _redact_plan(plan, config)
    return [_replaced_message(i, m, replaced) for i, m in enumerate(messages)], counts


def _redact_plan(plan: list[tuple[Any, str, list[Part]]], config: RedactionConfig,
                 raw_findings: dict[Any, list[Finding]] | None = None) -> tuple[dict[Any, str], Counter[str]]:
    """``{key: redacted raw string}`` (only those that changed) and the counts, for ``(key, raw, parts)``
    entries; ``raw_findings`` are spans found in a raw string itself, outside its parts."""
    seen: dict[tuple[str, str], list[Finding]] = {}
    found = [[_find_once(part.text, config, part.language, seen) for part in parts] for *_, parts in plan]
    values = {f.value: f.kind for per_part in found for findings in per_part for f in findings if f.replacement is None}
    counts: Counter[str] = Counter()
    replaced: dict[Any, str] = {}
    for (key, raw, parts), per_part in zip(plan, found):
        edits = list((raw_findings or {}).get(key, []))
        counts.update(f.kind for f in edits if f.replacement is None)
        for part, findings in zip(parts, per_part):
            spans = _with_repeats(part.text, findings, values)
            counts.update(f.kind for f in spans if f.replacement is None)
            edits += [piece for f in spans for piece in _in_raw(raw, part, f)]
        if edits:
            replaced[key] = _substitute(raw, sorted(edits))
    return replaced, counts


def _find_once(text: str, config: RedactionConfig, language: str, seen: dict[tuple[str, str], list[Finding]]) -> list[Finding]:
    """``_find``, once per distinct (text, language) of a plan: a trace shows the same file again and again."""
    key = (text, language)
    if key not in seen:
        seen[key] = _find(text, config, language)
    return seen[key]


def _message_parts(messages: list[Any], language_of: LanguageOf) -> Iterator[tuple[tuple[int, str, int], str, list[Part]]]:
    """``((message index, field, call index), raw string, parts)`` for every string a message renders."""
    state = TraceState(language_of)
    for i, message in enumerate(messages):
        if not isinstance(message, dict):
            continue
        for field_name in ("reasoning", "content"):
            raw = message.get(field_name)
            if isinstance(raw, str) and raw:
                observed = field_name == "content" and is_observation(message)
                yield (i, field_name, -1), raw, list(state.observation(message, raw) if observed else state.prose(raw))
        for j, call in enumerate(message.get("tool_calls") or []):
            if isinstance(call, dict) and isinstance(call.get("arguments"), str):
                yield (i, "arguments", j), call["arguments"], list(state.call_parts(call))


def _in_raw(raw: str, part: Part, finding: Finding) -> list[Finding]:
    """A finding in a part's (decoded) text, moved to its place in the raw string; cut where the part
    moves on to another JSON string (a notebook's source lines), the later pieces replaced by nothing."""
    if part.offsets is None:
        return [finding._replace(start=part.start + finding.start, end=part.start + finding.end)]
    bounds = [finding.start, *(b for b in part.breaks if finding.start < b < finding.end), finding.end]
    pieces = []
    for i, (start, end) in enumerate(itertools.pairwise(bounds)):
        raw_end = part.offsets[end] if end == finding.end and end not in part.breaks else _char_end(raw, part.offsets[end - 1])
        pieces.append(finding._replace(start=part.offsets[start], end=raw_end,
                                       replacement=finding.replacement if i == 0 else ""))
    return pieces


def _char_end(raw: str, at: int) -> int:
    """Where the JSON-encoded character at ``at`` ends (``\\n`` is two characters, ``\\u00e9`` six)."""
    if raw[at] != "\\":
        return at + 1
    return at + (6 if raw[at + 1] == "u" else 2)


def _replaced_message(i: int, message: Any, replaced: dict[tuple[int, str, int], str]) -> Any:
    if not isinstance(message, dict) or not any(key[0] == i for key in replaced):
        return message
    new = {**message}
    for field_name in ("reasoning", "content"):
        new[field_name] = replaced.get((i, field_name, -1), message.get(field_name))
    if isinstance(message.get("tool_calls"), list):
        new["tool_calls"] = [{**c, "arguments": replaced[(i, "arguments", j)]} if (i, "arguments", j) in replaced else c
                             for j, c in enumerate(message["tool_calls"])]
    return new


def _language_of_path(path: str) -> str:
    """``.env`` files have no language name but hold ``NAME=value`` literals."""
    name = path.rsplit("/", 1)[-1].lower()
    if name == ".env" or name.startswith(".env.") or name.endswith(".env"):
        return "dotenv"
    if name.endswith(".properties"):
        return "properties"
    return "ini" if name in (".npmrc", ".pypirc", ".my.cnf", "my.cnf", ".netrc", ".pgpass") or name.endswith((".conf", ".cfg", ".cnf")) else ""


# --- finding and applying spans ------------------------------------------------------------------


class Finding(NamedTuple):
    """One span to replace. Lower ``rank`` wins overlaps (see the module docstring's order)."""

    start: int
    end: int
    kind: str  # placeholder name without brackets, e.g. "SECRET_JWT"
    rank: int
    value: str
    # What the span becomes when not ``<kind>``: "" for the later pieces of a private key split over
    # several quoted strings (a notebook's lines), which go with its first piece's placeholder.
    replacement: str | None = None


def _redact(text: str, config: RedactionConfig, extra: dict[str, str],
            language: str) -> tuple[str, Counter[str], dict[str, str]]:
    """Redact ``text``; ``extra`` maps values found elsewhere (other views of a document) to kinds."""
    if not config.enabled or not text:
        return text, Counter(), {}
    findings = _find(text, config, language)
    spans = _with_repeats(text, findings, extra)
    counted = [f for f in spans if f.replacement is None]
    return _substitute(text, spans), Counter(f.kind for f in counted), {f.value: f.kind for f in counted}


def _find(text: str, config: RedactionConfig, language: str) -> list[Finding]:
    """Every detector's findings in ``text``, overlaps resolved, sorted by position."""
    if not config.enabled or not text:
        return []
    candidates = _secret_findings(text, config, language) if config.secrets else []
    if config.emails:
        candidates += _email_findings(text, _email_allowlist(tuple(config.email_allowlist)))
    if config.ip_addresses:
        candidates += _ip_findings(text, _ip_allowlist(tuple(config.ip_allowlist)))
    return _resolve([_without_escape(f) for f in candidates
                     if f.rank < KEYWORD_RANK or not (_is_attribute_argument(text, f.start) or _is_public_value(text, f.start))])


def _secret_findings(text: str, config: RedactionConfig, language: str) -> list[Finding]:
    """Every secret detector's candidates (not yet resolved against each other)."""
    lower = Lowered(text.lower())  # for the literal gates: one pass, then every gate is a vocabulary lookup
    # One Hyperscan pass: the regexes that may match; the others' scans are skipped (_can_match)
    possible = _screen(config.base64_entropy_limit, config.hex_entropy_limit).possible(text)
    if possible is not None:  # (a test's stand-in for the code before the screen returns None)
        lower.__dict__["_possible"] = possible
        lower.search_directly()  # the few gates left to ask are cheaper searched than the vocabulary built
    candidates: list[Finding] = [*_private_key_findings(text, lower), *_pattern_findings(text, lower),
                                 *_command_findings(text, lower, language not in CODE_LANGUAGES),
                                 *_shape_findings(text, lower),
                                 *_assignment_findings(text, lower, language), *_keyed_findings(text, lower, language),
                                 *_armoured_key_findings(text)]
    if language not in CODE_LANGUAGES:
        candidates += _prose_findings(text, lower)
    if config.detect_secrets:
        candidates += [*_plugin_findings(text, lower), *_gitleaks_findings(text, lower), *_keyword_findings(text, lower),
                       *_entropy_findings(text, config, lower)]
    return candidates


def _without_escape(finding: Finding) -> Finding:
    """A value never ends in the backslash of an escaped quote (``\"key\"`` in a notebook's JSON):
    that backslash belongs to the quote, and replacing it would unbalance the string."""
    trimmed = finding.value.rstrip("\\")
    if trimmed == finding.value or not trimmed:
        return finding
    return finding._replace(end=finding.start + len(trimmed), value=trimmed)


def _resolve(candidates: list[Finding]) -> list[Finding]:
    """Keep the best-ranked (then longest) of overlapping findings; the rest of the text is untouched."""
    starts: list[int] = []
    kept: list[Finding] = []
    for finding in sorted(candidates, key=lambda f: (f.rank, f.start - f.end, f.start)):
        i = bisect.bisect_right(starts, finding.start)
        overlaps_left = i > 0 and kept[i - 1].end > finding.start
        overlaps_right = i < len(kept) and kept[i].start < finding.end
        if not (overlaps_left or overlaps_right):
            starts.insert(i, finding.start)
            kept.insert(i, finding)
    return kept


def is_secret_shaped(value: str) -> bool:
    """Long and random enough that another occurrence can only be the same secret: at least 10
    characters, letters and 2+ digits, and >= 3 bits of entropy per character. ``bytes``, ``python``
    or ``private_key`` never are, so a weak password found once is replaced only where it was found."""
    return (len(value) >= 10 and sum(c.isdigit() for c in value) >= 2 and any(c.isalpha() for c in value)
            and _shannon(value) >= 3.0)


IDENTIFIER = re.compile(r"[A-Za-z_]\w*")


def _shannon(value: str) -> float:
    counts = Counter(value)
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())


def _with_repeats(text: str, findings: list[Finding], extra: dict[str, str]) -> list[Finding]:
    """``findings`` plus the other occurrences of found values that may be replaced too: anywhere
    (as a whole token) for a secret-shaped value; for a value another view of the document found
    (``extra``), also where it is a whole quoted string or the whole text (a tool call's argument)."""
    values = {f.value: f.kind for f in findings if f.replacement is None}
    canonical = [f._replace(kind=extra.get(f.value, f.kind)) if f.replacement is None else f for f in findings]
    # A secret-shaped value that could also be a name (``Qwen2_5OmniToken2Wav``) repeats only inside quotes:
    # a credential is never a class or a variable, and the code around it must not change.
    candidates = {v: k for v, k in {**values, **extra}.items() if is_secret_shaped(v)}
    shaped = {v: k for v, k in candidates.items() if not IDENTIFIER.fullmatch(v)}
    repeats = [Finding(m.start(), m.end(), shaped[m.group()], REPEAT_RANK, m.group())
               for m in _value_regex(tuple(sorted(shaped, key=len, reverse=True))).finditer(text)] if shaped else []
    for value, kind in {**extra, **{v: k for v, k in candidates.items() if v not in shaped}}.items():
        if value == text and value in extra:
            repeats.append(Finding(0, len(text), kind, REPEAT_RANK, value))
        elif value not in shaped and value in text:
            repeats += [Finding(m.start(1), m.end(1), kind, REPEAT_RANK, value)
                        for m in re.finditer(r"(?<=[\"'])(" + re.escape(value) + r")(?=\\?[\"'])", text)]
    repeats = [f for f in repeats if not _is_attribute_argument(text, f.start)]
    return _resolve(canonical + repeats) if repeats else canonical


@functools.lru_cache(maxsize=64)
def _value_regex(values: tuple[str, ...]) -> re.Pattern[str]:
    """Longest value first, as a whole token: never inside a longer run of word characters
    (so ``abc123`` never hits ``xabc123y`` nor ``abc123_total``)."""
    alternatives = "|".join(re.escape(v) for v in values)
    return re.compile(rf"(?<![A-Za-z0-9_])(?:{alternatives})(?![A-Za-z0-9_])")


def _substitute(text: str, spans: list[Finding]) -> str:
    parts, position = [], 0
    for span in spans:
        parts += [text[position:span.start], f"<{span.kind}>" if span.replacement is None else span.replacement]
        position = span.end
    parts.append(text[position:])
    return "".join(parts)


def _apply_lookup(s: str, found: dict[str, list[Finding]], values: dict[str, str]) -> str:
    """Redact one message string with its own findings plus the values the document's views found."""
    return _substitute(s, _with_repeats(s, found.get(s) or [], values))


# --- transcripts ---------------------------------------------------------------------------------


# The free-text fields of a canonical message (mixtures.transcripts); tool-call arguments are walked apart.
MESSAGE_TEXT_FIELDS = ("content", "reasoning")


def _message_strings(messages: list[Any]) -> Iterator[str]:
    """Every string a message carries that the rendered text shows: contents, reasoning (the thinking
    the SFT stage renders) and tool-call arguments."""
    for message in messages:
        if isinstance(message, dict):
            for field_name in MESSAGE_TEXT_FIELDS:
                if isinstance(message.get(field_name), str):
                    yield message[field_name]
            for call in message.get("tool_calls") or []:
                if isinstance(call, dict):
                    yield from _leaf_strings(call.get("arguments"))


def _leaf_strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _leaf_strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _leaf_strings(item)


def _map_message(message: Any, redact: Callable[[str], str]) -> Any:
    """A new message dict with ``redact`` applied to its content, reasoning and tool-call arguments."""
    if not isinstance(message, dict):
        return message
    new = dict(message)
    for field_name in MESSAGE_TEXT_FIELDS:
        if isinstance(message.get(field_name), str):
            new[field_name] = redact(message[field_name])
    if isinstance(message.get("tool_calls"), list):
        new["tool_calls"] = [{**c, "arguments": _map_leaves(c.get("arguments"), redact)} if isinstance(c, dict)
                             else c for c in message["tool_calls"]]
    return new


def _map_leaves(value: Any, redact: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {key: _map_leaves(item, redact) for key, item in value.items()}
    if isinstance(value, list):
        return [_map_leaves(item, redact) for item in value]
    return value


# --- fake values and line context ----------------------------------------------------------------

# Words that mark a value as a stand-in rather than a credential.
PLACEHOLDER_WORDS = re.compile(
    r"example|changeme|change_me|placeholder|dummy|redacted|your|xxxx|\*\*\*|fake|sample|secret|password|"
    r"passwd|token|apikey|api_key|todo|fixme|foobar|insert|replace|mask",
    re.IGNORECASE,
)
TEMPLATE = re.compile(r"^[$%@&]|[{}<>()\[\]]|^\W+$")
REPEATED_CHAR = re.compile(r"(.)\1{7,}")  # XXXXXXXX, 00000000: not in a random token, digits included (p < 1e-6)
# Segment breaks: newlines, and the ChatML markers transcripts are rendered with, so a value never
# swallows ``<|im_end|>``.
MARKER = re.compile(r"<\|im_(?:start|end)\|>|</?tool_call>")


def _is_fake_token(value: str) -> bool:
    """A vendor-shaped value that is a documented example or an obvious placeholder (``hf_...``: elided)."""
    return ("EXAMPLE" in value.upper() or bool(REPEATED_CHAR.search(value)) or heuristic.is_sequential_string(value)
            or _has_alphabet_run(value) or "..." in value or "\u2026" in value)


def _has_alphabet_run(value: str, run: int = 8) -> bool:
    """``ABCDEFGH``/``23456789``: alphabets and digit tables, which detect-secrets' sequence check misses
    when they are cut or reordered (base64's b32 alphabet ``A..Z2..7``)."""
    length = 1
    for previous, current in itertools.pairwise(value):
        length = length + 1 if ord(current) == ord(previous) + 1 else 1
        if length >= run:
            return True
    return False


def _is_fake_pem(body: str) -> bool:
    """A documentation stub (``MIIE...``, ``<your key>``). Not the token test: DER bodies legitimately
    hold long ``AAAAAA`` runs (OpenSSH keys are full of zero bytes)."""
    return "..." in body or "<" in body or "EXAMPLE" in body.upper() or "XXXXXX" in body.upper()


def _is_fake_password(value: str) -> bool:
    """A human-chosen value (password, assignment) that is a placeholder, a template or too weak to matter:
    one dictionary-style word with at most three digits after it (``python``, ``testPass``, ``test123``),
    the test passwords of every standard-library module that logs in to something."""
    return (len(value) < MIN_VALUE_LENGTH or any(c.isspace() for c in value) or _is_fake_token(value)
            or bool(TEMPLATE.search(value)) or _has_placeholder_word(value) or bool(WEAK_WORD.fullmatch(value))
            or _names_or_dates(value))


def _has_placeholder_word(value: str) -> bool:
    """``your_token_here``, ``changeme123``; not a generated password that happens to hold a word
    (``M6uXgTodo-*z2hCR``): what is left without the words is short or not random."""
    if not PLACEHOLDER_WORDS.search(value):
        return False
    rest = PLACEHOLDER_WORDS.sub("", value)
    return not (len(rest) >= 10 and _looks_random(rest) and _shannon(rest) >= 3.3)


# What a secret-named value often is instead: an environment variable's name (``AWS_ACCESS_KEY_ID``),
# a timestamp (``2024-03-15T10:22:31Z``, when a token expires) or a test's short id (``tok_t2``).
ENV_NAME = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?")
SHORT_ID = re.compile(r"[a-z]{1,5}(?:_[a-z0-9]{1,5}){1,3}")
# ``getattr(obj, "name")`` and its siblings: the string is an attribute's name, and replacing it changes behaviour.
# The call may span lines, deeply indented (google-cloud's generated ``getattr(\n<20 spaces>_Base...,\n<20 spaces>"_Base..."``).
ATTRIBUTE_CALL = re.compile(r"\b(?:get|set|has|del)attr\(\s*[^,()]{1,200},\s*[\"']$")


# A quoted generated key may hold brackets and sigils (Django's ``get_random_secret_key()`` draws from
# ``!@#$%^&*(-_=+)``), which alone would read as a template: random enough and no template syntax, it is a key.
TEMPLATE_SYNTAX = re.compile(r"\$\{|\{\{|\}\}|%\(|\$\(|<[\w .-]*>|\{[\w.]*\}|\s")


def _is_fake_quoted(value: str) -> bool:
    """``_is_fake_password`` for a quoted value, where brackets and sigils in a long random value are key characters."""
    if not _is_fake_password(value):
        return False
    return not (len(value) >= 20 and _shannon(value) >= 4.0 and not TEMPLATE_SYNTAX.search(value)
                and sum(bool(re.search(c, value)) for c in (r"[a-z]", r"[A-Z]", r"\d", r"[^\w]")) >= 3
                and not _is_fake_token(value) and not PLACEHOLDER_WORDS.search(value))


def _names_or_dates(value: str) -> bool:
    return any(r.fullmatch(value) for r in (ENV_NAME, TIMESTAMP, SHORT_ID))


# What a value named as a secret is when it is not one: template syntax (``${DB_PASSWORD}``, ``{{ pw }}``,
# ``%(pw)s``, ``<password>``), a special token (``<|endoftext|>``, ``[MASK]``), a regex or an escape
# (``[A-Za-z_]\w*``, ``\x00``). Each needs its syntax, not one bracket: a generated password holds any
# character, and 1 in 10 begins with a symbol (issue 47), so a bracket or a sigil alone proves nothing.
KEYED_TEMPLATE = re.compile(
    r"\$\{\{?[ \t]*[A-Za-z_][\w.:-]*[ \t]*\}|\$\(\$|\$\([a-z][\w-]*(?:[ )]|$)|\((?:\.[*+]\??|\\[dws][*+])\)|\{\{.*?\}\}|\{%.*?%\}|<%.*?%>|%\([\w.-]+\)[sdrif]"
    r"|^\$[A-Za-z_]\w*$|^%[A-Za-z_]\w*%$|^<\|?[\w .:/-]*\|?>$|^\[[\w .:/-]*\]$|^\{[\w .:/-]*\}$|^\([\w .:/-]*\)$"
    r"|#\{[A-Za-z_@$][\w.@$]*\}|\\[A-Za-z0-9]|\[\^?(?:a-z|A-Z|0-9|a-f|A-F|\\[wdsS])|\(\?(?:[:=!]|<[=!]|P<)[^)]*\)|^--?[a-z][a-z-]*$")
# Format fields (``{}``, ``{0}``, ``{user}``, ``%s``) make a template of a value whose other characters are
# plain (``Bearer {}``, ``{}:{}``); among a generated password's symbols they are chance (1 in 170 has "{}").
FORMAT_FIELD = re.compile(r"\{\d?\}|\{[a-z_][a-z0-9_.]*\}|%[-+ #0]?\d*(?:\.\d*)?[sdrifgx](?![A-Za-z])")
PLAIN_REST = re.compile(r"[\w\s:/.@=&?,;-]*")
# "#pass", "pa#ss", "p@ss!": a weak word with a symbol or two.
SYMBOLS_IN_WORD = re.compile(r"[A-Za-z][a-z]{2,11}(?:[A-Z][a-z]{1,10})?\d{0,3}")
# A word, a name or a constant: ``access_token``, ``ACCESS_TOKEN``, ``accessToken``, ``__start__`` (the name of a
# field, a special token), or a colour (pygments' ``Token: "#f8f8f2"``).
NAME_LIKE = re.compile(r"#[0-9a-fA-F]{3,8}|_*[a-z][a-z._-]*|[A-Z][A-Z0-9._-]*|[a-z]+(?:[A-Z][a-z]+)+|(?:[A-Z]{2,}|[A-Z][a-z]+)(?:[A-Z][a-z]+)+")
# Characters of code, never of an unquoted literal in code: calls, indexes, members, operators.
CODE_PUNCTUATION = re.compile(r"[\[\](){}<>$!&*;]|->|::")
PATH_LIKE = re.compile(r"(?:~|\.{1,2})?/[\w.@+-]*(?:/[\w.@*+-]*)*/?")
FILE_NAME = re.compile(r"[\w./-]+\.(?:pem|key|crt|cer|der|p12|pfx|pub|asc|gpg|jks|keystore|json|ya?ml|txt|env|ini|cfg|"
                       r"conf|toml|properties|xml|db|sqlite|log|sh|py)", re.IGNORECASE)


def _is_fake_keyed(value: str) -> bool:
    """A value that a secret's name (``DB_PASSWORD = "..."``, ``bindpw ...``) points at, yet is not a
    secret: too short, prose, a template, a regex, a name, a path or file name, a URL without
    credentials, a placeholder or a weak word (also once its symbols are dropped: ``#pass``). Any other
    value is redacted whatever its characters (``"#k3(...)"``, ``">q$hi..."``)."""
    stripped = re.sub(r"[\W_]", "", value)
    elided = bool(re.fullmatch(r"[\w.:/+=-]*?(?:\.\.\.|\u2026)[\w.:/+=-]*", value))  # "sk-abc...xyz", not "i...==&g;S}"
    return (len(value) < MIN_VALUE_LENGTH or any(c.isspace() for c in value) or elided
            or _is_fake_token(value.replace("...", "").replace("\u2026", ""))
            or bool(KEYED_TEMPLATE.search(value)) or not stripped or _has_placeholder_word(value)
            or bool(FORMAT_FIELD.search(value) and PLAIN_REST.fullmatch(rest := FORMAT_FIELD.sub("", value))
                    and len(re.findall(r"[^\w\s]", rest)) <= 2)
            or bool(WEAK_WORD.fullmatch(value)) or _names_or_dates(value)
            or (len(value) - len(stripped) <= 2 and bool(SYMBOLS_IN_WORD.fullmatch(stripped)))
            or bool(NAME_LIKE.fullmatch(value)) or bool(FILE_NAME.fullmatch(value)) or _is_path(value)
            or bool(PATH_LIKE.fullmatch(value)) or bool(re.match(r"[a-z][a-z0-9+.-]*://[^@\s]*$", value))
            or bool(re.fullmatch(r"\+\s*[A-Za-z_][\w.]*\s*\+", value)) or _encodes_words(value))


def _encodes_words(value: str) -> bool:
    """Base64 of words (``Ym9jYWxvY2FsLWtleS1mb3ItdGVzdGluZw==``: "bocalocal-key-for-testing"), a test
    vector; base64 of ``user:password`` (npm's ``_auth``, Basic auth) or of random bytes is not."""
    if len(value) < 12 or not re.fullmatch(r"[A-Za-z0-9+/]+={0,2}", value):
        return False
    try:
        decoded = base64.b64decode(value + "=" * (-len(value) % 4), validate=True).decode("ascii")
    except ValueError:
        return False
    return bool(re.fullmatch(r"[A-Za-z]+(?:[ _.-][A-Za-z]+)+", decoded))


# An unquoted value that is code: a call, an index, an attribute path (``os.getcwd()``, ``pw[:-1]``,
# ``Optional[Callable[...]]``); read where the language is unknown, a name's value may be either.
CODE_EXPRESSION = re.compile(r"(?=[\w.]*[a-z]{3})[A-Za-z_][\w.]{2,}[(\[]|[A-Za-z_]\w*\[[^\]]*\]$")


def _is_code_expression(value: str, language: str) -> bool:
    return language not in CONFIG_LANGUAGES and bool(CODE_EXPRESSION.match(value))


def _is_fake_vendor(value: str) -> bool:
    """A value a vendor's format matched, kept only when it is a documented example or an elision; the
    vendor's own fixed run (X bearer tokens and FCM keys begin with ``AAAA...``) is not a placeholder."""
    return _is_fake_token(value.lstrip(value[:1]) if len(value) > 1 and value[:4] == value[0] * 4 else value)


# Values named as what is sent in the clear, so a name's "token" or a line's "auth" does not make them
# credentials: pagination cursors (``continuation_token``, S3's ``NextContinuationToken``, ``page_token``),
# HTTP Digest nonces (``nonce="dcd98b..."``, RFC 2617's example) and Codecov's badge tokens, which are
# published in READMEs (``badge.svg?token=...``: they only read a repository's coverage graph).
PAGINATION = re.compile(r"(?:continuation|pagination|next_?page|page|next|cursor|resume|starting)[_-]?token", re.IGNORECASE)
PUBLIC_VALUE = re.compile(rf"(?:{PAGINATION.pattern}|\bc?nonce|/badge\.svg\?token)[\"']?\s*[:=]\s*\(?\s*[bru]{{0,2}}[\"']?$",
                          re.IGNORECASE)


def _is_public_value(text: str, start: int) -> bool:
    """Is the value at ``start`` named as a pagination cursor, a nonce or a badge token (``PUBLIC_VALUE``)?"""
    return bool(PUBLIC_VALUE.search(text, max(0, start - 200), start))


def _is_attribute_argument(text: str, start: int) -> bool:
    """Is the value at ``start`` the attribute-name argument of ``getattr``/``setattr``/``hasattr``/``delattr``?"""
    return start > 0 and text[start - 1] in "\"'" and bool(ATTRIBUTE_CALL.search(text, max(0, start - 240), start))


WEAK_WORD = re.compile(r"[A-Za-z][a-z]{2,11}(?:[A-Z][a-z]{1,10})?\d{0,3}"  # python, testPass, test123
                       r"|[A-Za-z][a-z]+(?:[-_]?[A-Z]?[a-z]+){2,}"  # PrivateKeySignatureFunction, names in words
                       r"|[\d.:_/-]+"  # versions, OIDs, dates, ports
                       r"|[\da-fA-F]{1,19}")  # short hex: a checksum or an id (hex keys are longer)


def _segment(text: str, position: int) -> tuple[int, int]:
    """The ``(start, end)`` of the line holding ``position``, cut at ChatML markers."""
    start = text.rfind("\n", 0, position) + 1
    end = text.find("\n", position)
    end = len(text) if end < 0 else end
    for marker in MARKER.finditer(text, start, end):
        if marker.end() <= position:
            start = marker.end()
        elif marker.start() >= position:
            return start, marker.start()
    return start, end


def _segments_hit(text: str, regex: re.Pattern[str]) -> Iterator[tuple[int, int]]:
    """Each segment (once) that ``regex`` matches somewhere in."""
    last_end = -1
    for match in regex.finditer(text):
        if match.start() >= last_end:
            start, last_end = _segment(text, match.start())
            yield start, last_end


def _may_hold_run(text: str, lower: str, length: int) -> bool:
    """False only where ``text`` provably has no word (``\\w+``) run of ``length``: an ASCII text, whose
    runs are those of its lowered vocabulary (``Lowered.longest_run``)."""
    return not length or not (isinstance(lower, Lowered) and text.isascii()) or lower.longest_run() >= length


@functools.lru_cache(maxsize=4)
def _screen(base64_limit: float, hex_limit: float) -> RegexScreen:
    """Every regex that secret detection runs over a whole text or a part of it, in one Hyperscan
    database (compiled once per process; ``regex_screen``): the typed patterns, gitleaks' rules,
    detect-secrets' plugin regexes, the module's scans and the entropy regexes of these limits. Not
    KEYED_QUOTED: it matches ~9 of 10 code files (any ``name = "..."``), so screening it would skip little,
    and it was a third of the scan's time (bench/RESULTS.md, issue 49, seventh session)."""
    scans = (PEM_BEGIN, COMMAND_PASSWORD, INLINE_NAME, XML_SECRET, DB_URL, GO_DSN, ENV_DEFAULT, SIGIL_ASSIGNMENT,
             HEX_ASSIGNMENT, PROSE_HEX, POSITIONAL_TOKEN, CONFIG_PASSWORD, DOCKER_AUTH, TELEGRAM, AZURE_SAS, GCP_KEY_ID,
             AWS_SECRET_BARE, AWS_SECRET_NEAR, CONCATENATED, SPLIT_GATE, URL_USERINFO_PASSWORD,
             CONNECTION_PASSWORD, INLINE_LITERAL, SPACED_PAIR, PROSE_SECRET, PROSE_ADJACENT,
             # the gates that run on the lowercase, in their any-case form (matched in an ASCII text itself)
             SECRET_NAME_ASSIGNED_ANY_CASE, HEX_RUN, SECRET_WORD_ANY_CASE, SIGIL_KEPT)
    return RegexScreen([*(pattern.regex for pattern in PATTERNS), *gitleaks.rule_regexes(),
                        *(regex for plugin, _, _ in _plugins() for regex in plugin.denylist), *scans,
                        *(regex for _, regex in _entropy_plugins(base64_limit, hex_limit))])


def _possible(lower: str) -> Possible | None:
    """What the screen reported for this text (None: not screened, every regex may match)."""
    return lower.__dict__.get("_possible") if isinstance(lower, Lowered) else None


def _can_match(lower: str, regex: re.Pattern[str]) -> bool:
    """False only where ``regex`` provably matches nowhere in the text ``lower`` was made from."""
    possible = _possible(lower)
    return possible is None or regex in possible


def _mentions(lower: str, literals: tuple[str, ...]) -> bool:
    """The literal gate in front of a regex: empty means always run."""
    if not literals:
        return True
    if isinstance(lower, Lowered) and _possible(lower) is None:
        gates = _gates()
        if gates.all.issuperset(literals):
            return not lower.mentioned(gates).isdisjoint(literals)
    return any(literal in lower for literal in literals)


# --- 1. typed regexes ----------------------------------------------------------------------------


class Pattern(NamedTuple):
    """A typed regex; its named group ``v``, if any, is the value (else the whole match)."""

    kind: str
    regex: re.Pattern[str]
    literals: tuple[str, ...]  # lowercase; the regex only runs on texts containing one (a 100x speedup)
    fake: Callable[[str], bool] = _is_fake_vendor  # values to keep although the regex matched
    run: int = 0  # every match holds a word (``\w+``) run this long: texts without one skip the regex
    screen: Callable[[str], bool] | None = None  # False only for texts the regex cannot match (cheaper than it)


AUTH_ASSIGNED = re.compile(r"auth\s*=\s*[\(\[]")  # the auth-pair pattern's first branch, less its \b


def _valid_jwt(token: str) -> bool:
    """The header part decodes to a JSON object, as every JWT's does (``{"alg": ...}``)."""
    header = token.split(".", 1)[0]
    try:
        return isinstance(json.loads(base64.urlsafe_b64decode(header + "=" * (-len(header) % 4))), dict)
    except ValueError:
        return False


# A newline: real, or escaped once (a string literal, JSON) or more (a printf inside a JSON tool call).
NL = r"(?:\\+r\\+n|\\+n|\r?\n)"
B64 = r"[A-Za-z0-9+/]"
PEM_LABEL = (r"-----BEGIN (?P<label>(?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?|OpenVPN Static key V\d)-----"
             r"|---- BEGIN (?P<ssh2>SSH2 (?:ENCRYPTED )?PRIVATE KEY) ----")
PASSWORDISH = re.compile(r"pass|pwd|contrase", re.IGNORECASE)
GITLAB_PREFIXES = ("glpat", "gldt", "glft", "glsoat", "glrt", "glptt", "glcbt", "glimt", "glagent", "gloas")

PATTERNS: tuple[Pattern, ...] = (
    Pattern("SECRET_AWS_ACCESS_KEY", re.compile(
        r"(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}(?![A-Za-z0-9])"),
            ("akia", "asia", "abia", "acca", "a3t")),
    Pattern("SECRET_AWS_SECRET_KEY", re.compile(
        r"(?i:aws[\w.-]{0,30}?(?:secret|key)[\w.-]{0,20}|secret_?access_?key)['\"]?\]?\s*(?:[:=]|=>|,)\s*[\"']?"
        r"(?P<v>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"), ("aws", "secret_access", "secretaccess")),
    Pattern("SECRET_GITHUB_TOKEN", re.compile(
        r"(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59})(?![A-Za-z0-9_])"),
            ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_")),
    Pattern("SECRET_GITLAB_TOKEN", re.compile(
        r"(?<![A-Za-z0-9_-])(?:" + "|".join(GITLAB_PREFIXES) + r")-[A-Za-z0-9_-]{20,1024}(?![A-Za-z0-9_-])"),
            tuple(p + "-" for p in GITLAB_PREFIXES)),
    Pattern("SECRET_SLACK_TOKEN", re.compile(
        r"(?<![A-Za-z0-9])(?:xox[abposr]|xapp)-\d+-[0-9A-Za-z-]{8,250}(?![A-Za-z0-9-])"), ("xox", "xapp-")),
    Pattern("SECRET_SLACK_TOKEN", re.compile(
        r"hooks\.slack\.com/(?:services|workflows)/(?P<v>T[A-Z0-9]{6,}/[AB][A-Z0-9]{6,}/[A-Za-z0-9]{16,})"),
            ("hooks.slack.com",)),
    Pattern("SECRET_STRIPE_KEY", re.compile(
        r"(?<![A-Za-z0-9_])(?:(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{24,247}|whsec_[A-Za-z0-9]{32,})(?![A-Za-z0-9_])"),
            ("k_live_", "k_test_", "whsec_")),
    Pattern("SECRET_ANTHROPIC_KEY", re.compile(
        r"(?<![A-Za-z0-9_-])sk-ant-(?:api|admin|oat|ort|sid)\d{2}-[A-Za-z0-9_-]{32,}(?![A-Za-z0-9_-])"), ("sk-ant-",)),
    Pattern("SECRET_OPENAI_KEY", re.compile(
        r"(?<![A-Za-z0-9_-])sk-(?:(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}|(?!ant-)[A-Za-z0-9_-]{0,64}?"
        r"[A-Za-z0-9]{10,}T3BlbkFJ[A-Za-z0-9_-]{10,})(?![A-Za-z0-9_-])"), ("sk-proj-", "sk-svcacct-", "sk-admin-",
                                                                       "t3blbkfj")),
    Pattern("SECRET_GOOGLE_API_KEY", re.compile(r"(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}(?![A-Za-z0-9_-])"),
            ("aiza",)),
    Pattern("SECRET_JWT", re.compile(
        r"(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}(?![A-Za-z0-9_-])"),
            ("eyj",), fake=lambda token: not _valid_jwt(token)),
    Pattern("SECRET_NPM_TOKEN", re.compile(r"(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9_])"), ("npm_",)),
    Pattern("SECRET_NPM_TOKEN", re.compile(r":_(?:authToken|auth|password)\s*=\s*[\"']?(?P<v>[^\s\"']+)"),
            (":_auth", ":_password"), fake=_is_fake_keyed),
    Pattern("SECRET_SENDGRID_KEY", re.compile(
        r"(?<![A-Za-z0-9_-])SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])"), ("sg.",)),
    # The lookbehind sits after the literal so ``re`` can still jump from one "AC"/"SK" to the next.
    Pattern("SECRET_TWILIO_KEY", re.compile(r"(?:AC|SK)(?<![A-Za-z0-9]..)[0-9a-f]{32}(?![A-Za-z0-9])"), (), run=34),
    Pattern("SECRET_TWILIO_KEY", re.compile(
        r"(?i:twilio\w*?_?(?:auth_?)?token)['\"]?\s*[:=]\s*[\"']?(?P<v>[0-9a-f]{32})(?![A-Za-z0-9])"), ("twilio",)),
    Pattern("SECRET_AZURE_STORAGE_KEY", re.compile(
        r"(?:AccountKey=|(?i:azure[\w.-]{0,30}?key)['\"]?\s*[:=]\s*[\"']?)(?P<v>" + B64 + r"{86}==)"),
            ("accountkey=", "azure")),
    Pattern("SECRET_AUTH_HEADER", re.compile(
        r"(?i:authorization[\"']?\s*(?:[:=]\s*)?[\"']?(?:bearer\s+|basic\s+|token\s+|key=)|x-api-key[\"']?\s*:\s*[\"']?)"
        r"(?P<v>[^\s'\"`]{12,}+)(?<![,;)])"), ("authorization", "x-api-key"),
            fake=lambda v: _is_fake_keyed(v) or bool(CODE_EXPRESSION.match(v))),  # ``key: os.environ.get(``
    Pattern("SECRET_HUGGINGFACE_TOKEN", re.compile(r"(?<![A-Za-z0-9_])hf_[A-Za-z0-9]{34,40}(?![A-Za-z0-9_])"),
            ("hf_",), fake=lambda v: _is_fake_token(v) or not _mixes_classes(v[3:])),
    Pattern("SECRET_DISCORD_WEBHOOK", re.compile(
        r"discord(?:app)?\.com/api/webhooks/(?P<v>\d{17,20}/[A-Za-z0-9_-]{60,80})(?![A-Za-z0-9_-])"),
            ("/api/webhooks/",), fake=lambda v: _is_fake_token(v.split("/")[-1])),
    # Microsoft Entra (Azure AD) client secrets: 3 characters, a digit, "Q~", then 31-34 more.
    Pattern("SECRET_AZURE_CLIENT_SECRET", re.compile(
        r"(?<![\w~.-])[A-Za-z0-9_~.-]{3}\dQ~[A-Za-z0-9_~.-]{31,34}(?![\w~.-])"), ("q~",)),
    Pattern("SECRET_GOOGLE_OAUTH", re.compile(
        r"(?<![A-Za-z0-9_-])(?:GOCSPX-[A-Za-z0-9_-]{28}|ya29\.[0-9A-Za-z_-]{30,})(?![A-Za-z0-9_-])"),
            ("gocspx-", "ya29.")),
    Pattern("SECRET_DIGITALOCEAN_TOKEN", re.compile(r"(?<![A-Za-z0-9_])do[pro]_v1_[a-f0-9]{64}(?![A-Za-z0-9_])"),
            ("_v1_",)),
    Pattern("SECRET_SHOPIFY_TOKEN", re.compile(r"(?<![A-Za-z0-9_])shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}(?![A-Za-z0-9_])"),
            ("shpat_", "shpss_", "shpca_", "shppa_")),
    Pattern("SECRET_GROQ_KEY", re.compile(r"(?<![A-Za-z0-9_])gsk_[A-Za-z0-9]{52}(?![A-Za-z0-9_])"), ("gsk_",)),
    Pattern("SECRET_REPLICATE_TOKEN", re.compile(r"(?<![A-Za-z0-9_])r8_[A-Za-z0-9]{37}(?![A-Za-z0-9_])"), ("r8_",)),
    Pattern("SECRET_DATABRICKS_TOKEN", re.compile(r"(?<![A-Za-z0-9_])dapi[a-f0-9]{32}(?:-\d)?(?![A-Za-z0-9_])"),
            ("dapi",)),
    # PyPI API tokens are macaroons: "pypi-" + base64 of a binary caveat whose location is pypi.org
    # (AgEIcHlwaS5vcmc) or test.pypi.org (AgENdGVzdC5weXBpLm9yZw); detect-secrets wants 70+ more characters.
    Pattern("SECRET_PYPI_TOKEN", re.compile(
        r"(?<![A-Za-z0-9_-])pypi-(?:AgEIcHlwaS5vcmc|AgENdGVzdC5weXBpLm9yZw)[A-Za-z0-9_-]{50,}(?![A-Za-z0-9_-])"),
            ("pypi-",)),
    # Vendor tokens whose prefix alone names them, as trufflehog's detectors describe them (gitleaks has no
    # rule for these, or one that needs the vendor's name nearby): OpenRouter, xAI, LangSmith, Buildkite,
    # Supabase, Figma, Pinecone, Docker Hub, SonarQube, New Relic, HubSpot, Yandex Cloud IAM, Mapbox
    # secret tokens, Dropbox short-lived tokens, Flutterwave, NuGet, Mailgun, Django's generated keys.
    Pattern("SECRET_VENDOR_TOKEN", re.compile(
        r"(?<![A-Za-z0-9_.-])(?:sk-or-v1-[0-9a-f]{64}|xai-[A-Za-z0-9]{80}|lsv2_(?:pt|sk)_[0-9a-f]{32}_[0-9a-f]{10}"
        r"|bkua_[0-9a-f]{40}|sbp_[0-9a-f]{40}|figd_[A-Za-z0-9_-]{40}|pcsk_[A-Za-z0-9]{4,6}_[A-Za-z0-9]{50,80}"
        r"|dckr_pat_[A-Za-z0-9_-]{27}|sq[pua]_[0-9a-f]{40}|NRAK-[A-Z0-9]{27}"
        r"|pat-(?:na|eu)1-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
        r"|t1\.[A-Za-z0-9_-]{40,}={0,2}\.[A-Za-z0-9_-]{80,}={0,2}|sk\.eyJ1Ijoi[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}"
        r"|sl\.[A-Za-z0-9_=-]{130,140}|FLWSECK(?:_TEST)?-[0-9a-f]{32}-X|oy2[a-z0-9]{43}|key-[0-9a-f]{32}"
        r"|django-insecure-[^\s'\"`]{40,60}|tfp_[A-Za-z0-9_-]{59}|tskey-(?:auth|api|client|scim|webhook)-[A-Za-z0-9]{10,}-[A-Za-z0-9]{20,}"
        r")(?![A-Za-z0-9_=-])"),
            ("sk-or-v1-", "xai-", "lsv2_", "bkua_", "sbp_", "figd_", "pcsk_", "dckr_pat_", "qp_", "qu_", "qa_", "nrak-",
             "pat-na1-", "pat-eu1-", "t1.", "sk.eyj1ijoi", "sl.", "flwseck", "oy2", "key-", "django-insecure-", "tfp_", "tskey-"),
            fake=lambda v: _is_fake_token(v) or (v.startswith("django-") and _shannon(v) < 4.0)),
    # More of trufflehog's prefixed detectors that neither gitleaks nor the rules above had (its regexes):
    # Bitbucket Data Center, CircleCI, Cloudflare, Contentful, Figma, Fleetbase, Langfuse secret keys,
    # Netlify, New Relic Insights query keys, NVIDIA, Pagar.me, PostHog, Ramp, Robinhood, Rootly, Salad,
    # SonarCloud, Sourcegraph Cody, Ubidots, AWS AppSync. (Public keys, such as Langfuse's pk-lf- and
    # New Relic's browser keys, are left out.)
    Pattern("SECRET_VENDOR_TOKEN", re.compile(
        r"(?<![A-Za-z0-9_.-])(?:BBDC-[A-Za-z0-9+/@_-]{40,50}|CCIPAT_[A-Za-z0-9]{22}_[A-Fa-f0-9]{40}"
        r"|cfk_[A-Za-z0-9]{40}[a-f0-9]{8}|CFPAT-[A-Za-z0-9_-]{43}|figp_[A-Za-z0-9_=-]{40,54}|flb_live_[A-Za-z0-9]{20}"
        r"|sk-lf-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|nfp_[A-Za-z0-9_]{36}|NRIQ-[A-Za-z0-9_-]{25}"
        r"|nvapi-[A-Za-z0-9_-]{64}|ak_live_[A-Za-z0-9]{30}|phx_[A-Za-z0-9_]{43,48}|ramp_sec_[A-Za-z0-9]{48}"
        r"|rh-api-[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|rootly_[a-f0-9]{64}"
        r"|salad_cloud_[A-Za-z0-9]{1,7}_[A-Za-z0-9]{7,235}|sqco_[A-Za-z0-9]{59}|slk_[a-f0-9]{64}|BBFF-[A-Za-z0-9]{30}"
        r"|da2-[a-z0-9]{26})(?![A-Za-z0-9_=+/@-])"),
            ("bbdc-", "ccipat_", "cfk_", "cfpat-", "figp_", "flb_live_", "sk-lf-", "nfp_", "nriq-", "nvapi-", "ak_live_",
             "phx_", "ramp_sec_", "rh-api-", "rootly_", "salad_cloud_", "sqco_", "slk_", "bbff-", "da2-"),
            fake=_is_fake_token),
    # The last of trufflehog's prefixed formats, written here from its detectors' documented shapes:
    # PubNub publish and subscribe keys, New Relic browser keys, Razorpay key ids, dotdigital API users,
    # Flexport, pganalyze read keys, Portainer access tokens, SpectralOps, trufflehog Enterprise; Webex
    # bot tokens (64 characters, 4, then a UUID) and Percy's ``PERCY_TOKEN`` (64 hex: a digest's length,
    # which the generic rules keep) have no prefix and are matched by their structure and their name.
    Pattern("SECRET_VENDOR_TOKEN", re.compile(
        r"(?<![A-Za-z0-9_.-])(?:(?:pub|sub)-c-[0-9a-z]{8}-[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{12}"
        r"|NRBR-[0-9a-f]{19}|rzp_(?:live|test)_[A-Za-z0-9]{14}|apiuser-[a-z0-9]{12}@apiconnector\.com"
        r"|shltm_[0-9A-Za-z_-]{40}|pgar_[A-Za-z0-9]{27}|spu-[a-z0-9]{32}|thog-key-[0-9a-f]{16}|thog-secret-[0-9a-f]{32}"
        r")(?![A-Za-z0-9_=-])"),
            ("pub-c-", "sub-c-", "nrbr-", "rzp_", "@apiconnector.com", "shltm_", "pgar_", "spu-", "thog-")),
    Pattern("SECRET_VENDOR_TOKEN", re.compile(r"(?<![A-Za-z0-9_.-])ptr_[A-Za-z0-9+/]{40,60}={0,2}(?![A-Za-z0-9_=+/-])"),
            ("ptr_",), fake=lambda v: _is_fake_token(v) or not _looks_random(v)),
    Pattern("SECRET_VENDOR_TOKEN", re.compile(
        r"(?<![A-Za-z0-9])[A-Za-z0-9]{64}_[A-Za-z0-9]{4}_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
        r"(?![A-Za-z0-9-])"), (), run=78),
    Pattern("SECRET_VENDOR_TOKEN", re.compile(r"(?i:\bpercy_token[\"']?\s*[:=]\s*[\"']?)(?P<v>[0-9a-fA-F]{64})(?![0-9a-fA-F])"),
            ("percy_token",)),
    # Vendor formats whose fixed part is a run or a structure rather than a name (issue 47): X (Twitter)
    # app-only bearer tokens (22 "A"s, then URL-encoded base64), Firebase Cloud Messaging server keys
    # (``AAAA`` + 7, ``:APA91b`` + 134), AWS STS session tokens (base64 of a protobuf that opens with
    # "origin"), Intercom (base64 of "tok:"), Braintree access tokens, Fly.io macaroons,
    # DeepSeek keys, Bitbucket app passwords, and Okta API tokens (``00`` + 40) where Okta is named.
    Pattern("SECRET_VENDOR_TOKEN", re.compile(
        r"(?<![A-Za-z0-9%])(?:A{18,24}[A-Za-z0-9%]{50,160}|AAAA[A-Za-z0-9_-]{7}:APA91b[A-Za-z0-9_-]{100,200}"
        r"|(?:IQoJb3JpZ2luX2Vj|FwoGZXIvYXdzE)[A-Za-z0-9+/=]{60,}|dG9rOj[A-Za-z0-9+/=_-]{30,100}"
        r"|access_token\$(?:production|sandbox)\$[0-9a-z]{16}\$[0-9a-f]{32}|(?:FlyV1 )?fm[12][ar]?_[A-Za-z0-9+/=_-]{60,}"
        r"|sk-[0-9a-f]{32}|ATBB[A-Za-z0-9_=.-]{28,})(?![A-Za-z0-9%+/=_-])"),
            ("aaaa", "iqojb3jpz2lux2vj", "fwogzxivyxdze", "dg9roj", "access_token$", "fm1", "fm2", "sk-", "atbb"),
            fake=lambda v: _is_fake_vendor(v) or (v.startswith("A" * 18) and not _mixes_classes(v.lstrip("A")))),
    Pattern("SECRET_VENDOR_TOKEN", re.compile(
        r"(?i:okta)[^\n]{0,80}?(?<![A-Za-z0-9_-])(?P<v>00[A-Za-z0-9_-]{40})(?![A-Za-z0-9_-])"), ("okta",)),
    # A private key stored base64-encoded (Kubernetes Secret ``data:``, env vars): "LS0tLS1CRUdJTi" is
    # base64 of "-----BEGIN"; the decoded start must name a private key.
    Pattern("SECRET_PRIVATE_KEY", re.compile(r"(?<![A-Za-z0-9+/])LS0tLS1CRUdJTi[A-Za-z0-9+/]{40,}={0,2}"),
            ("ls0tls1crudjti",), fake=lambda v: not _encodes_private_key(v)),
    # HTTP headers that carry an API key or token as a bare value.
    Pattern("SECRET_AUTH_HEADER", re.compile(
        r"(?i:\b(?:api-key|x-auth-token|private-token|x-access-token|x-apikey|x-goog-api-key|ocp-apim-subscription-key)"
        r"[\"']?\s*(?:[:=]\s*[\"']?|,\s*[\"']))(?P<v>[A-Za-z0-9._~+/-]{12,}+=*+)(?!\()"),  # a call is code; after a comma: quoted
            ("api-key", "-token", "x-apikey", "subscription-key"), fake=_is_fake_keyed),
    # Credentials passed as a (user, password) pair: requests' auth tuples, HTTPBasicAuth, aiohttp.BasicAuth,
    # smtplib/ftplib/imaplib login(user, password).
    Pattern("SECRET_PASSWORD", re.compile(
        r"(?:\bauth\s*=\s*[\(\[]|\b(?:HTTPBasicAuth|HTTPDigestAuth|BasicAuth|HTTPProxyAuth)\(|\.login\()"
        r"\s*(?:\"[^\"\n]*\"|'[^'\n]*'|[\w.\[\]'\"]+)\s*,\s*(?P<q>[\"'])(?P<v>[^\"'\n]+)(?P=q)"),
            ("auth", ".login("), fake=_is_fake_keyed, screen=lambda text: "Auth(" in text or ".login(" in text
                                                                           or AUTH_ASSIGNED.search(text) is not None),
    Pattern("SECRET_PASSWORD", re.compile(
        r"://(?<=[A-Za-z0-9]://)[^\s:/?#@'\"<>]{0,64}:(?P<v>[^\s/?#@'\"<>]{1,128})@(?=[\w\[])"),
            ("://",), fake=_is_fake_keyed),
    Pattern("SECRET_PASSWORD", re.compile(
        # the value stops at a JSON/C escape (``\n"`` ends a notebook's source line), not at any backslash
        r"(?<![\w-])(?:--?(?:password|passwd|pass)[= ]|(?:-u|--user)\s+[^\s:'\"]+:)[\"']?"
        r"(?P<v>(?:[^\s\"'<>`\\]|\\(?![nrt\"'\\]))+)"),
            ("-pass", "-u ", "--user"), fake=_is_fake_keyed),
)


def _pattern_findings(text: str, lower: str) -> Iterator[Finding]:
    possible = _possible(lower)
    # a pattern whose regex cannot match yields nothing; the others pass the same gates as before
    ranks = _mentioned_ranks(lower) if possible is None else possible.among(PATTERN_REGEXES)
    for rank in ranks:
        pattern = PATTERNS[rank]
        if not _mentions(lower, pattern.literals) or not _may_hold_run(text, lower, pattern.run) \
                or pattern.screen and not pattern.screen(text):
            continue
        group = "v" if "v" in pattern.regex.groupindex else 0
        for match in pattern.regex.finditer(text):
            value = match.group(group)
            if not pattern.fake(value) and not _after_closing_quote(text, match.start(), match.start(group)):
                yield Finding(match.start(group), match.start(group) + len(value), pattern.kind, rank, value)


PATTERN_REGEXES = tuple(pattern.regex for pattern in PATTERNS)


def _mentioned_ranks(lower: str) -> Iterable[int]:
    """The ranks of the PATTERNS whose literal gate a text can pass, in order: those without literals and,
    for a ``Lowered`` text, those naming a literal it mentions (``_mentions`` then answers as before)."""
    if not isinstance(lower, Lowered):
        return range(len(PATTERNS))
    ungated, by_literal = _patterns_by_literal()
    present = lower.mentioned(_gates())
    return sorted({*ungated, *(rank for literal in present for rank in by_literal.get(literal, ()))})


@functools.cache
def _patterns_by_literal() -> tuple[tuple[int, ...], dict[str, tuple[int, ...]]]:
    """The ranks of the PATTERNS without literals, and each literal -> the ranks of those naming it."""
    by_literal: dict[str, list[int]] = {}
    for rank, pattern in enumerate(PATTERNS):
        for literal in pattern.literals:
            by_literal.setdefault(literal, []).append(rank)
    return (tuple(rank for rank, pattern in enumerate(PATTERNS) if not pattern.literals),
            {literal: tuple(ranks) for literal, ranks in by_literal.items()})


def _in_string(text: str, position: int) -> bool:
    """Is ``position`` in literal text of its line: a string (an odd number of one quote before it), a
    comment (``#``, ``//``, ``--``, ``*``) or a shell escape (``!cmd``, ``%env``)?"""
    line_start = text.rfind("\n", 0, position) + 1
    before = text[line_start:position]
    return (any(before.count(quote) % 2 == 1 for quote in "\"'`") or "#" in before or "//" in before
            or before.lstrip().startswith(("*", "--", "!", "%")))


def _after_closing_quote(text: str, start: int, value_start: int) -> bool:
    """Is the value outside the string its name is in (``'--password='.$conn['password']``): a quote
    right before it that closes a literal opened before the match."""
    quote = text[value_start - 1] if value_start > start else ""
    if quote not in ("'", '"'):
        return False
    return text.count(quote, text.rfind("\n", 0, start) + 1, start) % 2 == 1


# --- private keys, however they are stored --------------------------------------------------------

PEM_BEGIN = re.compile(PEM_LABEL)
PEM_SEARCH = 60_000  # characters after BEGIN in which to look for END (a 16k RSA key is ~13k)
# Inside a key's body: base64 runs, escaped newlines (\n, \\n, \r\n), and what separates the lines of a
# key written as one string, a YAML block, a notebook's list of strings or concatenated literals.
PEM_PIECE = re.compile(r"(?P<esc>\\+[nrt])|(?P<header>(?<![^\s\"'n])(?:Proc-Type|DEK-Info|Version|Comment|Hash|Subject)"
                       r":[^\n\\\"']*)|(?P<run>[A-Za-z0-9+/=]+)|(?P<sep>[\s\"',+|])|(?P<other>.)", re.DOTALL)
MIN_TRUNCATED_LINE = 40  # a key cut off before END (truncated output) is the run of its full-width lines


def _private_key_findings(text: str, lower: str) -> Iterator[Finding]:
    """PEM private-key bodies between BEGIN and END, however indented, escaped or split into strings.

    The body is what lies between the markers when that is only base64, escaped newlines and
    separators (so code between a BEGIN in one string and an END in another is never touched). Written
    as one string or block, the whole body becomes one placeholder; split over several quoted strings
    (a notebook's ``"...\n",`` lines, concatenated literals), the first piece becomes the placeholder
    and the others empty strings, so the JSON or code around them still parses.
    """
    if not _can_match(lower, PEM_BEGIN) or "private key" not in lower and "static key" not in lower:
        return
    for begin in PEM_BEGIN.finditer(text):
        end_line = f"-----END {begin.group('label')}-----" if begin.group("label") else f"---- END {begin.group('ssh2')} ----"
        end_marker = text.find(end_line, begin.end(), begin.end() + PEM_SEARCH)
        pieces = _pem_pieces(text, begin.end(), end_marker if end_marker >= 0 else len(text), end_marker < 0)
        if pieces is None:
            continue
        runs = [m for m in pieces if m.lastgroup == "run"]
        body = "".join(m.group() for m in runs)
        if len(body) < 32 or _is_fake_pem(text[runs[0].start():runs[-1].end()]):
            continue
        yield from _key_body_findings(text, runs)


# PuTTY's ``.ppk`` (versions 1-3): ``Private-Lines: N`` then N base64 lines, then ``Private-MAC:`` (or v1's
# ``Private-Hash:``); the file's other lines (algorithm, comment, public lines) are public.
PPK_PRIVATE = re.compile(r"Private-Lines:[ \t]*\d+[ \t]*")
PPK_MAC = re.compile(r"Private-(?:MAC|Hash):[ \t]*(?P<v>[0-9a-fA-F]{40,128})")


def _armoured_key_findings(text: str) -> Iterator[Finding]:
    """Private keys in PuTTY's armour: the private lines and the MAC, however the lines are joined."""
    if "Private-Lines:" not in text:
        return
    for header in PPK_PRIVATE.finditer(text):
        mac = PPK_MAC.search(text, header.end(), header.end() + PEM_SEARCH)
        stop = mac.start() if mac else min(len(text), header.end() + PEM_SEARCH)
        pieces = []
        for piece in PEM_PIECE.finditer(text, header.end(), stop):
            if piece.lastgroup in ("other", "header"):
                break
            pieces.append(piece)
        runs = [m for m in pieces if m.lastgroup == "run"]
        if sum(len(r.group()) for r in runs) < 32 or _is_fake_pem("".join(r.group() for r in runs)):
            continue
        yield from _key_body_findings(text, runs)
        if mac:
            yield Finding(mac.start("v"), mac.end("v"), "SECRET_PRIVATE_KEY", 0, mac.group("v"))


def _key_body_findings(text: str, runs: list[re.Match[str]]) -> Iterator[Finding]:
    """One placeholder for a key body written as one block; split over quoted strings, the first piece
    becomes the placeholder and the others empty strings, so the code or JSON around them still parses."""
    first, last = runs[0].start(), runs[-1].end()
    if not any(c in "\"'" for c in text[first:last]):
        yield Finding(first, last, "SECRET_PRIVATE_KEY", 0, text[first:last])
        return
    yield Finding(runs[0].start(), runs[0].end(), "SECRET_PRIVATE_KEY", 0, runs[0].group())
    for run in runs[1:]:
        yield Finding(run.start(), run.end(), "SECRET_PRIVATE_KEY", 0, run.group(), replacement="")


def _pem_pieces(text: str, start: int, end: int, truncated: bool) -> list[re.Match[str]] | None:
    """The pieces of a key body in ``text[start:end]``; None if anything but a key body is there.
    A truncated key (no END) is its run of full-width lines and the one short line after them."""
    pieces: list[re.Match[str]] = []
    for piece in PEM_PIECE.finditer(text, start, end):
        kind = piece.lastgroup
        if truncated and kind in ("other", "header") or truncated and kind == "run" and _truncated_end(pieces, piece):
            break
        if kind == "other":
            return None
        pieces.append(piece)
    return pieces if any(p.lastgroup == "run" for p in pieces) else None


def _truncated_end(pieces: list[re.Match[str]], run: re.Match[str]) -> bool:
    """In a key without END: a run ends the body when the run before it was already short."""
    previous = [p for p in pieces if p.lastgroup == "run"]
    return bool(previous) and len(previous[-1].group()) < MIN_TRUNCATED_LINE


def _encodes_private_key(value: str) -> bool:
    """Base64 whose decoded start is a PEM private-key BEGIN line (a Kubernetes Secret's ``tls.key``)."""
    head = value[:120]
    try:
        decoded = base64.b64decode(head[: len(head) // 4 * 4]).decode("ascii", "replace")
    except ValueError:
        return False
    return "PRIVATE KEY-----" in decoded and not _is_fake_pem(value)


# --- passwords on command lines and in inline assignments -----------------------------------------

# Languages where an unquoted ``name = word`` is code (a variable, a call), not a literal value.
CODE_LANGUAGES = frozenset({
    "python", "cython", "jupyter notebook", "javascript", "typescript", "tsx", "java", "kotlin", "scala", "groovy",
    "c", "cpp", "cuda", "objective-c", "objective-c++", "c#", "f#", "go", "rust", "swift", "dart", "zig", "nim",
    "ruby", "php", "perl", "lua", "r", "julia", "haskell", "ocaml", "elixir", "erlang", "clojure", "visual basic",
    "coffeescript", "vue", "svelte", "solidity", "fortran", "pascal", "ada"})
# Where an unquoted ``name: word`` is a literal string: config files, env files, shell and Dockerfiles.
CONFIG_LANGUAGES = frozenset({"yaml", "ini", "toml", "dotenv", "shell", "dockerfile", "hcl", "makefile", "java properties",
                              "properties"})
QUOTED_OR_BARE = r"(?:'(?P<sq>[^'\n]+)'|\"(?P<dq>[^\"\n]+)\"|(?P<bare>[^\s'\"`;&|()<>]+))"
# Command-line password flags of tools that take the password glued to ``-p`` (the MySQL family),
# after ``-p`` (sshpass) or ``-a`` (redis-cli); ``--password=``/``--pass`` are in PATTERNS.
COMMAND_PASSWORD = re.compile(
    r"(?:\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlshow|mysqlcheck|mysqlsh|mariadb|mariadb-dump)\b"
    r"[^\n;&|]{0,200}?(?<=\s)-p(?=[^\s-])|\bsshpass\s+(?:-\w\s+)*-p\s*|\bredis-cli\b[^\n;&|]{0,200}?\s-a\s+)"
    + QUOTED_OR_BARE)
# ``NAME=value`` inside a line: ``PGPASSWORD=pw psql``, ``docker run -e DB_PASSWORD=pw``, a DSN's
# ``password=pw``; secret names only (``_is_secret_name``).
INLINE_NAME = re.compile(r"(?<![\w$.{-])(?P<name>[A-Za-z_][A-Za-z0-9_]{1,60})=")
INLINE_VALUE = re.compile(QUOTED_OR_BARE)
# An XML element or .NET appSettings entry holding a secret: ``<password>pw</password>``,
# ``<add key="DbPassword" value="pw"/>``.
XML_SECRET = re.compile(
    r"<(?P<tag>[A-Za-z_][\w.-]{0,60})>(?P<v>[^<>\s]{1,200})</(?P=tag)>"
    r"|\bkey=\"(?P<key>[\w.:-]{1,60})\"\s+value=\"(?P<kv>[^\"<>\s]{1,200})\"")


def _command_findings(text: str, lower: str, literal_values: bool) -> Iterator[Finding]:
    """Passwords given to command-line tools, inline ``NAME=value`` secrets and XML secret elements."""
    if _can_match(lower, COMMAND_PASSWORD) and any(tool in lower for tool in ("mysql", "mariadb", "sshpass", "redis-cli")):
        for match in COMMAND_PASSWORD.finditer(text):
            yield from _value_finding(match, "SECRET_PASSWORD")
    if "=" in text and _can_match(lower, INLINE_NAME):
        # names first: a quoted value may hold more assignments; a secret name holds one of SECRET_NAME_WORDS
        for name in _screened(INLINE_NAME, text, lower, SECRET_NAME_WORDS, holds=("=",)):
            match = INLINE_VALUE.match(text, name.end()) if _is_secret_name(name.group("name")) else None
            if match is None:
                continue
            group = match.lastgroup
            bare = (match.group("bare") or "").rstrip(",;")
            if bare and not literal_values and (CODE_VALUE.fullmatch(bare) and not _looks_random(bare) or (
                    (CODE_PUNCTUATION.search(bare) or not bare[0].isalnum()) and not _in_string(text, name.start()))):
                continue  # in code, ``token=token_value`` passes a variable
            quoted = (match.group("sq") or match.group("dq") or "").strip()
            if quoted and not literal_values and quoted[0] == quoted[-1] == "+":
                continue  # ``"AuthToken="+n.at+";path=/"``: the code between two string literals
            kind = "SECRET_PASSWORD" if PASSWORDISH.search(name.group("name")) else "SECRET_HIGH_ENTROPY"
            yield from _value_finding(match, kind)
    if _can_match(lower, XML_SECRET) and ("</" in text or "value=" in lower):
        for match in XML_SECRET.finditer(text):
            name, group = (match.group("tag"), "v") if match.group("tag") else (match.group("key"), "kv")
            value = match.group(group)
            if _is_secret_name(name) and not _is_fake_keyed(value):
                kind = "SECRET_PASSWORD" if PASSWORDISH.search(name) else "SECRET_HIGH_ENTROPY"
                yield Finding(match.start(group), match.end(group), kind, KEYWORD_RANK, value)


def _value_finding(match: re.Match[str], kind: str) -> Iterator[Finding]:
    """The quoted-or-bare value of ``QUOTED_OR_BARE`` in ``match``, unless it is a placeholder."""
    group = next(g for g in ("sq", "dq", "bare") if match.group(g) is not None)
    value = match.group(group)
    if group == "bare":
        value = value.rstrip(",;")
    if not _is_fake_keyed(value):
        yield Finding(match.start(group), match.start(group) + len(value), kind, KEYWORD_RANK, value)


# --- 1b. shapes the rule sets miss, each common in real repositories (issue 25) -------------------

# The schemes whose URLs carry a database or broker password, which may hold raw ``#`` and ``@``
# (``postgres://app:p#ss@word@db:5432/app``): the password runs to the last ``@`` before a host.
DB_URL = re.compile(
    r"\b(?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|redis|rediss|amqps?|mssql|sqlserver|oracle|cockroachdb|"
    r"clickhouse)(?:\+\w+)?://[^\s:/?#@'\"<>]{1,64}:(?P<v>[^\s/'\"<>]{1,128}?)@(?=[A-Za-z0-9._-]+(?::\d+)?(?:[/?\s'\"]|$))")
# Go's MySQL driver DSN: ``user:password@tcp(host:3306)/db``.
GO_DSN = re.compile(r"(?<![\w:/])[\w.-]{1,64}:(?P<v>[^\s@'\"`]{1,128})@(?:tcp|unix|udp|tcp6)\(")
# An environment lookup with a literal default: ``os.environ.get("REDIS_PASSWORD", "...")``,
# ``os.getenv("SECRET_KEY", "...")``, ``ENV.fetch("API_TOKEN", "...")``, ``process.env.DB_PASSWORD || "..."``.
ENV_DEFAULT = re.compile(
    r"(?:(?:environ\.get|getenv|env\.get|ENV\.fetch|env\.str|config)\(\s*[\"'](?P<name>[A-Za-z_][\w.]{0,80})[\"']\s*,"
    r"\s*(?:default\s*=\s*)?|process\.env\.(?P<jsname>[A-Za-z_]\w{0,80})\s*(?:\|\||\?\?)\s*)"
    r"(?P<q>[\"'])(?P<v>[^\"'\n]{1,200})(?P=q)")
# ``$token = "..."`` (PHP, Perl), ``token := "..."`` (Go): a quoted value assigned to a secret name.
SIGIL_ASSIGNMENT = re.compile(
    r"(?:\$|\b)(?P<name>[A-Za-z_]\w{0,80})\s*(?::=|=)\s*(?P<q>[\"'])(?P<v>[^\"'\n]{6,200})(?P=q)")
# Hex of a digest's length is kept by the entropy scan (it is a digest nearly everywhere) and detect-secrets'
# keywords have no "token": ``auth_token = "<32 hex>"`` (Twilio, Mailgun, Heroku) is caught by its name.
HEX_ASSIGNMENT = re.compile(
    r"(?<![\w$])(?P<name>[A-Za-z_][\w.-]{0,80})[\"'`]?\]?[ \t]*(?::[ \t]*&?(?:'static[ \t]+)?(?:str|string|String)[ \t]*=|\|\|=|\?\?=|:=|:|=|=>)[ \t]*(?P<q>[\"'`]?)(?P<v>[0-9a-fA-F]{32,128})(?P=q)"
    r"(?![\w.-])")
# ... and in prose: "my wandb api key is <40 hex>", "the secret key base is <128 hex>".
PROSE_HEX = re.compile(r"(?i:\b(?:key|token|secret|password|passphrase)(?:[ \t]+base)?[ \t]+(?:is|was|=|:)[ \t]+)"
                       r"(?P<v>[0-9a-fA-F]{32,128})(?![\w.-])")
HEX_RUN = re.compile(r"[0-9a-fA-F]{32}")
# A Twilio client built from an account SID and, positionally, its auth token.
POSITIONAL_TOKEN = re.compile(
    r"[\"']AC[0-9a-f]{32}[\"']\s*,\s*(?P<q>[\"'])(?P<v>[0-9a-f]{32})(?P=q)")
# Passwords of config files that write them after a bare word: ``.netrc`` (``login deploy password ...``),
# ``redis.conf`` (``requirepass ...``), and ``.pgpass`` lines (``host:port:database:user:password``).
CONFIG_PASSWORD = re.compile(
    r"\blogin[ \t]+\S+\s+password[ \t]+(?P<v>[^\s\"'\\]+)(?=\s|$)|(?m:^[ \t]*(?:requirepass|masterauth)[ \t]+\"?(?P<r>[^\s\"]+))"
    r"|(?m:^[A-Za-z*][\w.*-]*:(?:\d{1,5}|\*):[\w.*-]+:[\w.*@-]+:(?P<p>\S+)$)")
# Docker's ``config.json``: ``"auths": {"registry": {"auth": base64("user:password")}}``.
DOCKER_AUTH = re.compile(r"\"auth\"\s*:\s*\"(?P<v>[A-Za-z0-9+/]{12,}={0,2})\"")
# Telegram bot tokens: the bot's numeric id, ``:``, then 35 characters that start with ``AA``.
TELEGRAM = re.compile(r"(?:(?<=/bot)|(?<![\w:]))\d{8,10}:AA[A-Za-z0-9_-]{32,33}(?![\w-])")
# An Azure shared access signature's ``sig=`` (base64, URL-encoded) in a URL that names the SAS version.
AZURE_SAS = re.compile(r"[?&]sv=\d{4}-\d{2}-\d{2}[^\s'\"<>]*?[?&]sig=(?P<v>[A-Za-z0-9%+/]{30,}(?:%3[Dd]|=){0,2})")
# A GCP service account's key id (40 hex), next to its private key in the downloaded JSON.
GCP_KEY_ID = re.compile(r"[\"']private_key_id[\"']\s*:\s*[\"'](?P<v>[0-9a-f]{40})[\"']")
# A bare AWS secret access key in prose or output: 40 base64 characters within a few words of
# "secret" or of an access key id (the AWS CLI's ``configure`` and console pages print them so).
AWS_SECRET_BARE = re.compile(r"(?<![A-Za-z0-9/+=_-])(?P<v>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=_-])")
AWS_SECRET_NEAR = re.compile(r"secret|(?:AKIA|ASIA)[A-Z0-9]{16}", re.IGNORECASE)
# String literals joined by ``+`` (or Python's implicit concatenation): a token split to dodge scanners.
CONCATENATED = re.compile(r"(?:\"[^\"\n\\]{1,120}\"|'[^'\n\\]{1,120}')(?:\s*\+?\s*(?:\"[^\"\n\\]{1,120}\"|'[^'\n\\]{1,120}')){1,12}")
LITERAL = re.compile(r"\"([^\"\n\\]*)\"|'([^'\n\\]*)'")
# Two literals joined by ``+`` or by juxtaposition, on one line or over a line break.
SPLIT_GATE = re.compile(r"[\"'][ \t]*(?:\+[ \t]*\n?|\n|[ \t])[ \t]*\+?[ \t]*[\"'](?=\w)")


def _shape_findings(text: str, lower: str) -> Iterator[Finding]:
    """Passwords in database URLs and DSNs, env defaults, sigil assignments, Docker auths, Telegram
    tokens, Azure SAS signatures, GCP key ids, bare AWS secrets and tokens split over literals."""
    simple = ((DB_URL, "SECRET_PASSWORD", "://", _is_fake_keyed), (GO_DSN, "SECRET_PASSWORD", "@tcp(", _is_fake_keyed),
              (GO_DSN, "SECRET_PASSWORD", "@unix(", _is_fake_keyed),
              (POSITIONAL_TOKEN, "SECRET_TWILIO_KEY", "ac", _is_fake_token),  # "AC" + 32 hex: a run of 34
              (DOCKER_AUTH, "SECRET_DOCKER_AUTH", '"auth"', lambda v: not _decodes_to_credentials(v)),
              (TELEGRAM, "SECRET_TELEGRAM_TOKEN", ":aa", _is_fake_token), (AZURE_SAS, "SECRET_AZURE_SAS", "sig=", _is_fake_token),
              (GCP_KEY_ID, "SECRET_GCP_SERVICE_ACCOUNT", "private_key_id", _is_fake_token))
    for regex, kind, literal, fake in simple:
        if _can_match(lower, regex) and literal in lower and (regex is not POSITIONAL_TOKEN
                                                               or _may_hold_run(text, lower, 34)):
            # DB_URL's matches lie in one line, through "://"; the others run on the whole text
            matches = _screened(regex, text, lower, ("://",)) if regex is DB_URL else regex.finditer(text)
            for match in matches:
                group = "v" if "v" in regex.groupindex else 0
                if not fake(match.group(group)):
                    yield Finding(match.start(group), match.end(group), kind, KEYWORD_RANK, match.group(group))
    if _can_match(lower, CONFIG_PASSWORD) and ("password" in lower or "requirepass" in lower or "masterauth" in lower
                                               or ":" in text) and _config_password_possible(text):
        for match in CONFIG_PASSWORD.finditer(text):
            group = next(g for g in ("v", "r", "p") if match.group(g) is not None)
            value = match.group(group)  # test files' "#pass" and "pa#ss" are the word "pass"
            if not _is_fake_keyed(value):
                yield Finding(match.start(group), match.end(group), "SECRET_PASSWORD", KEYWORD_RANK, value)
    yield from _named_value_findings(text, lower)
    if _can_match(lower, AWS_SECRET_NEAR) and _can_match(lower, AWS_SECRET_BARE) and (
            "secret" in lower or "akia" in lower or "asia" in lower):
        yield from _bare_aws_secrets(text)
    if _can_match(lower, SPLIT_GATE) and _can_match(lower, CONCATENATED) and SPLIT_GATE.search(text):
        yield from _concatenated_findings(text)


PGPASS_PORT = re.compile(r":(?:\d{1,5}|\*):")  # every .pgpass match of CONFIG_PASSWORD holds this


def _config_password_possible(text: str) -> bool:
    """False only where CONFIG_PASSWORD cannot match: its (case-sensitive) branches need ``login``,
    ``requirepass``/``masterauth``, or a ``.pgpass`` line's ``:port:``."""
    return "login" in text or "requirepass" in text or "masterauth" in text or PGPASS_PORT.search(text) is not None


ENV_DEFAULT_LITERALS = ("getenv", "environ.get", "env.get", "env.fetch", "process.env", "env.str", "config(")
SIGIL_LITERALS = ("$", ":=")
HEX_ASSIGNMENT_LITERALS = ("token", "secret", "key", "pass", "auth")
PROSE_HEX_LITERALS = (" is ", " was ", "=", ":")


# A kept SIGIL_ASSIGNMENT names a secret (``_is_secret_name``: its lowercase ends with one of these, see
# SECRET_NAME) and assigns it right after the name: ``name\s*:?=``.
SECRET_NAME_ASSIGNED = re.compile(r"(?:word|wd|pass|secret|token|key|credentials?|base|phrase|auth|pw|pat)\s*:?=")
# In an ASCII text, SECRET_NAME_ASSIGNED matches the lowercase where this matches the text, at the same place.
SECRET_NAME_ASSIGNED_ANY_CASE = re.compile(SECRET_NAME_ASSIGNED.pattern, re.IGNORECASE)
# What every kept SIGIL_ASSIGNMENT match holds (screened, never run): the name's last letters are a
# SECRET_NAME ending in any case (``_is_secret_name`` lowers the name; the Kelvin sign, the one character
# above ASCII that lowers to an ASCII letter without adding another, is a ``k`` to ``(?i)``), then the
# regex's own ``\s*(?::=|=)\s*`` and quoted value.
SIGIL_KEPT = re.compile(r"(?i)(?:word|wd|pass|secret|token|key|credentials?|base|phrase|auth|pw|pat)"
                        r"\s*(?::=|=)\s*[\"'][^\"'\n]{6,200}[\"']")
HEX_RUN_LOWER = re.compile(r"[0-9a-f]{32}")


def _sigil_possible(text: str, lower: str) -> bool:
    """False only where no SIGIL_ASSIGNMENT match can be kept (ASCII texts: lowercase is exact)."""
    if not (isinstance(lower, Lowered) and text.isascii()):
        return True
    return _can_match(lower, SECRET_NAME_ASSIGNED_ANY_CASE) and SECRET_NAME_ASSIGNED.search(lower) is not None


def _holds_hex_run(text: str, lower: str) -> bool:
    """``HEX_RUN.search(text)``; in an ASCII text 32 hex digits in a row lie in one word run of 32 or more,
    so only the vocabulary's long runs are searched."""
    if not _can_match(lower, HEX_RUN):
        return False
    if isinstance(lower, Lowered) and text.isascii():
        return lower.longest_run() >= 32 and HEX_RUN_LOWER.search(lower.long_runs(32)) is not None
    return HEX_RUN.search(text) is not None


def _named_value_findings(text: str, lower: str) -> Iterator[Finding]:
    """Env lookups with a literal default and sigil/``:=`` assignments, when the name is a secret's."""
    sources = [(ENV_DEFAULT, ENV_DEFAULT_LITERALS)] if _can_match(lower, ENV_DEFAULT) else []
    if _can_match(lower, SIGIL_ASSIGNMENT) and _can_match(lower, SIGIL_KEPT) and _sigil_possible(text, lower):
        sources.append((SIGIL_ASSIGNMENT, SIGIL_LITERALS))
    # both need a 32-hex value: most texts have none, and the scans are costly
    if (_can_match(lower, HEX_ASSIGNMENT) or _can_match(lower, PROSE_HEX)) and _holds_hex_run(text, lower):
        sources += [(regex, literals) for regex, literals in ((HEX_ASSIGNMENT, HEX_ASSIGNMENT_LITERALS),
                                                             (PROSE_HEX, PROSE_HEX_LITERALS)) if _can_match(lower, regex)]
    for regex, literals in sources:
        if not _mentions(lower, literals):
            continue
        for match in regex.finditer(text):
            name = match.groupdict().get("name") or match.groupdict().get("jsname") or "secret"
            value = match.group("v")
            if regex is SIGIL_ASSIGNMENT and not match.group().startswith("$") and ":=" not in match.group():
                continue  # a plain ``name = "..."`` is KeywordDetector's
            if regex in (HEX_ASSIGNMENT, PROSE_HEX) and (HASH_CONTEXT.search(name) or not _mixes_classes(value)):
                continue
            if regex is PROSE_HEX and HASH_CONTEXT.search(text, max(0, match.start() - 40), match.start("v")):
                continue  # "the commit hash key is ..."
            if _is_secret_name(name.split(".")[-1]) and not _is_fake_keyed(value):
                kind = "SECRET_PASSWORD" if PASSWORDISH.search(name) else "SECRET_HIGH_ENTROPY"
                yield Finding(match.start("v"), match.end("v"), kind, KEYWORD_RANK, value)


def _decodes_to_credentials(value: str) -> bool:
    """Docker's ``auth`` is base64 of ``user:password``."""
    try:
        decoded = base64.b64decode(value + "=" * (-len(value) % 4), validate=True).decode("utf-8")
    except ValueError:
        return False
    user, colon, password = decoded.partition(":")
    return bool(colon and user and password and decoded.isprintable() and not _is_fake_password(password))


def _bare_aws_secrets(text: str) -> Iterator[Finding]:
    """A 40-character base64 run with both cases and digits, within 120 characters after "secret" or an
    access key id (``git`` object ids are hex, paths have few capitals: both fail ``_looks_random``)."""
    for near in AWS_SECRET_NEAR.finditer(text):
        for match in AWS_SECRET_BARE.finditer(text, near.end(), min(len(text), near.end() + 120)):
            value = match.group("v")
            if _looks_random(value) and _shannon(value) >= 4.0 and not _is_fake_token(value) and not _is_path(value):
                yield Finding(match.start(), match.end(), "SECRET_AWS_SECRET_KEY", KEYWORD_RANK, value)


def _concatenated_findings(text: str) -> Iterator[Finding]:
    """A vendor token split over joined literals: the first piece becomes the placeholder, the others
    empty strings, so the expression still evaluates and parses."""
    for chain in CONCATENATED.finditer(text):
        pieces = [m for m in LITERAL.finditer(chain.group())]
        joined = "".join(m.group(1) if m.group(1) is not None else m.group(2) for m in pieces)
        hits = [f for f in _pattern_findings(joined, joined.lower()) if f.start == 0 and f.end == len(joined)]
        if not hits or len(pieces) < 2:
            continue
        for i, piece in enumerate(pieces):
            group = 1 if piece.group(1) is not None else 2
            start, end = chain.start() + piece.start(group), chain.start() + piece.end(group)
            if end > start:
                yield Finding(start, end, hits[0].kind, KEYWORD_RANK - 1, text[start:end], None if i == 0 else "")


# --- 2. detect-secrets service plugins -----------------------------------------------------------

PLUGIN_RANK = len(PATTERNS)
# Each plugin with its placeholder and the literal gate in front of its regexes. Plugins whose
# regexes name no vendor (Discord's, Telegram's token shapes; IBM's and Cloudant's optional prefixes)
# run only on texts that name the vendor: the keyword and entropy scanners cover the rest.
PLUGINS: dict[type[RegexBasedDetector], tuple[str, tuple[str, ...]]] = {
    AWSKeyDetector: ("SECRET_AWS_ACCESS_KEY", ("akia", "asia", "abia", "acca", "a3t", "aws")),
    AzureStorageKeyDetector: ("SECRET_AZURE_STORAGE_KEY", ("accountkey=",)),
    BasicAuthDetector: ("SECRET_PASSWORD", ("://",)),
    GitHubTokenDetector: ("SECRET_GITHUB_TOKEN", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_")),
    GitLabTokenDetector: ("SECRET_GITLAB_TOKEN", (*(p + "-" for p in GITLAB_PREFIXES), "gr1348941")),
    JwtTokenDetector: ("SECRET_JWT", ("eyj",)),
    NpmDetector: ("SECRET_NPM_TOKEN", ("_authtoken",)),
    OpenAIDetector: ("SECRET_OPENAI_KEY", ("t3blbkfj",)),
    SendGridDetector: ("SECRET_SENDGRID_KEY", ("sg.",)),
    SlackDetector: ("SECRET_SLACK_TOKEN", ("xox", "hooks.slack.com")),
    StripeDetector: ("SECRET_STRIPE_KEY", ("k_live_",)),
    TwilioKeyDetector: ("SECRET_TWILIO_KEY", ()),  # "AC"/"SK" literal prefixes: re skips ahead by itself
    ArtifactoryDetector: ("SECRET_ARTIFACTORY_TOKEN", ("artifactory", "akc")),
    CloudantDetector: ("SECRET_CLOUDANT_KEY", ("cloudant",)),
    DiscordBotTokenDetector: ("SECRET_DISCORD_TOKEN", ("discord",)),
    IbmCloudIamDetector: ("SECRET_IBM_CLOUD_KEY", ("ibm", "iam")),
    IbmCosHmacDetector: ("SECRET_IBM_CLOUD_KEY", ("ibm", "hmac", "cos_", "cos-")),
    MailchimpDetector: ("SECRET_MAILCHIMP_KEY", ("-us",)),
    PypiTokenDetector: ("SECRET_PYPI_TOKEN", ("pypi-",)),
    SoftlayerDetector: ("SECRET_SOFTLAYER_KEY", ("softlayer",)),
    SquareOAuthDetector: ("SECRET_SQUARE_TOKEN", ("sq0csp-",)),
    TelegramBotTokenDetector: ("SECRET_TELEGRAM_TOKEN", ("telegram", "/bot")),
}
# Plugins each of whose regex matches holds a word run this long: ``[a-f0-9]{48}``, ``AC[a-z0-9]{32}``.
PLUGIN_RUNS: dict[type[RegexBasedDetector], int] = {IbmCosHmacDetector: 48, TwilioKeyDetector: 34}
# Plugin regexes return some delimiters with the value (Artifactory's leading ``=``/``:``/quote,
# Azure's ``AccountKey=``, npm's rest of the line): the value is the first token after them.
PLUGIN_VALUE = re.compile(r"[\s=:\"']*(?:AccountKey=)?([^\s\"']+)")


@functools.cache
def _plugins() -> tuple[tuple[RegexBasedDetector, str, tuple[str, ...]], ...]:
    return tuple((cls(), kind, literals) for cls, (kind, literals) in PLUGINS.items())


@functools.cache
def _gates() -> Gates:
    """Every literal ``_mentions`` is asked about, answered together once per text."""
    return Gates(frozenset(literal for group in (*(p.literals for p in PATTERNS), *(g for _, g in PLUGINS.values()),
                                                 ENV_DEFAULT_LITERALS, SIGIL_LITERALS, HEX_ASSIGNMENT_LITERALS,
                                                 PROSE_HEX_LITERALS) for literal in group))


def _plugin_findings(text: str, lower: str) -> Iterator[Finding]:
    """Each plugin's values (``analyze_string``) on the lines its regexes hit, located in those lines."""
    possible = _possible(lower)
    for plugin, kind, literals in _plugins():
        # the screen's answer for all of a plugin's regexes at once (~22 plugins a text: per regex, its largest cost)
        if (not (plugin.denylist if possible is None else possible.any_of(plugin.denylist))
                or not _mentions(lower, literals) or not _may_hold_run(text, lower, PLUGIN_RUNS.get(type(plugin), 0))):
            continue
        for regex in plugin.denylist:
            if possible is not None and regex not in possible:
                continue
            for start, end in _segments_hit(text, regex):
                for raw in plugin.analyze_string(text[start:end]):
                    value = _plugin_value(raw)
                    if value and not _is_fake_vendor(value) and not TEMPLATE.search(value):  # e.g. <SECRET_...>
                        for found in _occurrences(text, start, end, value, _plugin_kind(kind, value), PLUGIN_RANK):
                            if found.start == 0 or not text[found.start - 1].isalnum():  # not inside a longer run
                                yield _whole_token(text, found)


def _gitleaks_findings(text: str, lower: str) -> Iterator[Finding]:
    """gitleaks' published rules (``filters.gitleaks``), less documented examples and placeholders."""
    for hit in gitleaks.find(text, lower, _possible(lower)):
        if not _is_fake_vendor(hit.value) and not TEMPLATE.search(hit.value):
            yield Finding(hit.start, hit.end, hit.kind, PLUGIN_RANK, hit.value)


def _whole_token(text: str, found: Finding) -> Finding:
    """``found`` grown to the end of its token: some plugin regexes have a fixed length and no end
    boundary (Discord's third part is 27 characters, newer tokens' 38), and half a token is still a leak.
    Never backwards, where the characters before a value are its key's name."""
    end = TOKEN_TAIL.match(text, found.end).end()
    return found._replace(end=end, value=text[found.start:end])


TOKEN_TAIL = re.compile(r"[A-Za-z0-9_+/-]*=*")


def _plugin_value(raw: str) -> str:
    """The token in a plugin's raw value; "" for a bare prefix (GitHubTokenDetector returns only ``ghp``)."""
    match = PLUGIN_VALUE.match(raw)
    value = match.group(1) if match else ""
    return value if len(value) >= 16 else ""


def _plugin_kind(kind: str, value: str) -> str:
    """AWSKeyDetector reports access key ids and 40-character secret keys under one type."""
    if kind == "SECRET_AWS_ACCESS_KEY" and len(value) == 40:
        return "SECRET_AWS_SECRET_KEY"
    return kind


def _occurrences(text: str, start: int, end: int, value: str, kind: str, rank: int) -> Iterator[Finding]:
    position = text.find(value, start, end)
    while position >= 0:
        yield Finding(position, position + len(value), kind, rank, value)
        position = text.find(value, position + len(value), end)


# --- 3. secret-named assignments -----------------------------------------------------------------

KEYWORD_RANK = PLUGIN_RANK + 1
# Lines worth a closer look: every KeywordDetector keyword and every secret name below has one of these.
SECRET_WORD = re.compile(r"pass|pw|secret|key|token|auth|credential|contrase|(?<![a-z0-9])pat\b")
SECRET_WORD_ANY_CASE = re.compile(SECRET_WORD.pattern, re.IGNORECASE)
SECRET_WORD_LITERALS = ("pass", "pw", "secret", "key", "token", "auth", "credential", "contrase", "pat")
KEYWORD_DETECTOR = KeywordDetector()
KEYWORDS = re.compile("|".join(DENYLIST))  # detect-secrets' keyword list, matched on lowercased lines
MAX_KEYWORD_LINE = 4000  # longer lines (minified code, data) are scanned in windows around the keywords
KEYWORD_WINDOW = 300
# ``NAME=value`` (env dumps, .env, Dockerfile ENV, shell export; value may be quoted) and unquoted
# ``name: value`` / ``name = value`` (YAML, INI, properties), each on a line of its own.
ASSIGNMENT = re.compile(
    r"[ \t]*(?:export[ \t]+|ENV[ \t]+|-[ \t]+|%env[ \t]+|%set_env[ \t]+)?"
    r"(?P<name>[A-Za-z_][\w.-]{0,80})"
    r"(?:=(?P<q>[\"']?)(?P<v>[^\s\"'`]{6,})(?P=q)|[ \t]*[?:]?[:=][ \t]+(?P<spaced>[^\s\"'`]{6,}))[ \t]*\r?")
# The secret word must end the name: ``DB_PASSWORD``, ``apiKey``, but not ``token_type``, ``PASSWORD_FILE``.
SECRET_NAME = re.compile(
    r"(?:^|_|^pg|^redis)(?:password|passwd|pass|pwd|secret|token|api_?key|apikey|access_?key|private_?key|auth_?key|"
    r"credentials?|client_?secret|secret_?key|auth_?token|secret_?key_?base|passphrase|auth|pw"
    # keys that are secrets by what they do (an ``encryption_key``, Laravel's ``APP_KEY``, FCM's ``server_key``)
    r"|(?:signing|sign|hmac|encryption|decryption|crypt|cipher|master|session|app|server|account|storage|"
    r"subscription|webhook|deploy|consumer|license|shared|jwt|signature|bearer|admin|root|service)_?key)$"
    r"|(?:^|_)(?:bind|root|db|admin|user|master)pw$|(?:password|passwd|passphrase|secret|token|auth)$|_pat$"
    r"|(?:api|app|access|private|secret|signing|encryption|master|server)key$")
# Every SECRET_NAME alternative holds one of these (``passwd``/``passphrase``: pass, ``pwd``: pw, ``*_key``:
# key, ``_pat``: pat), none with ``_`` inside, so a name that ``_is_secret_name`` accepts holds one in its
# lowercase: a line screen for the scans that keep only secret names (docs/design/secret-screen.md).
SECRET_NAME_WORDS = ("pass", "pw", "secret", "key", "token", "auth", "credential", "pat")
NOT_SECRET_NAMES = frozenset({"pwd", "oldpwd"})  # the shell's working directories, not passwords
# Unquoted values in code are names and literals, not secrets: identifiers, numbers, booleans.
CODE_VALUE = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*|[\d._]+|0[xXoObB][\da-fA-F_]+[lLuU]*|(?i:true|false|yes|no|on|off|null|none)")


def _secret_word_lines(text: str, lower: str) -> list[tuple[int, int]]:
    """The segments that contain a secret word (cached per ``Lowered`` text: several scans use them)."""
    if not isinstance(lower, Lowered):
        return list(_secret_word_segments(text, lower))
    segments = lower.__dict__.get("_secret_word_segments")
    if segments is None:
        segments = lower.__dict__["_secret_word_segments"] = list(_secret_word_segments(text, lower))
    return segments


def _has_secret_word(text: str, lower: str) -> bool:
    """``SECRET_WORD.search(lower)``, from the cached segments where their offsets are the text's."""
    if isinstance(lower, Lowered) and len(lower) == len(text):
        return bool(_secret_word_lines(text, lower))
    return SECRET_WORD.search(lower) is not None


def _secret_word_segments(text: str, lower: str) -> Iterator[tuple[int, int]]:
    """The segments that contain a secret word (one regex pass over the lowercased text)."""
    if text.isascii() and not _can_match(lower, SECRET_WORD_ANY_CASE):
        return  # an ASCII text's lowercase holds a secret word only where the text holds it in some case
    # lower() can change lengths ("İ" -> "i̇"), and then its offsets are not the text's.
    if len(lower) != len(text):
        matches: Iterator[re.Match[str]] = SECRET_WORD_ANY_CASE.finditer(text)
    else:  # SECRET_WORD matches within a line, on a line holding one of its literals (exact: lines_with)
        matches = _screened(SECRET_WORD, lower, lower, SECRET_WORD_LITERALS)
    last_end = -1
    for match in matches:
        if match.start() >= last_end:
            start, last_end = _segment(text, match.start())
            yield start, last_end


PUBLIC = re.compile(r"public|pubkey|pub_key", re.IGNORECASE)


def _keyword_findings(text: str, lower: str) -> Iterator[Finding]:
    """detect-secrets' KeywordDetector (quoted values, as it scans code) on lines naming a secret."""
    for start, end in (window for line in _secret_word_lines(text, lower) for window in _keyword_windows(text, *line)):
        line = text[start:end]
        if heuristic.is_indirect_reference(line):
            continue
        for value in KEYWORD_DETECTOR.analyze_string(line):
            if _is_fake_keyed(value) or heuristic.is_likely_id_string(value, line, KEYWORD_DETECTOR):
                continue
            for position in _quoted_positions(line, value):
                if PUBLIC.search(line, max(0, position - 40), position):
                    continue  # publicKeyToken="...", public_key = "...": published on purpose
                if _is_digest(value) and HASH_CONTEXT.search(line, 0, position):
                    continue  # secret_sha256 = "<64 hex>": a digest of a secret, named so
                # The keyword before the value names the type: db_pass/password/pwd vs api_key/secret.
                kind = "SECRET_PASSWORD" if PASSWORDISH.search(line, 0, position) else "SECRET_HIGH_ENTROPY"
                yield Finding(start + position, start + position + len(value), kind, KEYWORD_RANK, value)


def _keyword_windows(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    """The line if short; else the stretches around each keyword in it. KeywordDetector's regexes
    (``keyword\\w*`` then backtracking) are quadratic in the line's length: 38 s for a 1 MB minified line."""
    if end - start <= MAX_KEYWORD_LINE:
        if KEYWORDS.search(text[start:end].lower()):
            yield start, end
        return
    window: tuple[int, int] | None = None
    for match in KEYWORDS.finditer(text[start:end].lower()):
        around = (max(start, start + match.start() - KEYWORD_WINDOW), min(end, start + match.end() + KEYWORD_WINDOW))
        if window and around[0] <= window[1] and around[1] - window[0] <= MAX_KEYWORD_LINE:
            window = (window[0], around[1])  # merge neighbours, up to the size a whole line may have
            continue
        if window:
            yield window
        window = around
    if window:
        yield window


def _quoted_positions(line: str, value: str) -> Iterator[int]:
    """Where ``value`` sits between matching quotes in ``line`` (KeywordDetector's values are quoted)."""
    for quote in "\"'`":
        position = line.find(quote + value + quote)
        while position >= 0:
            yield position + 1
            position = line.find(quote + value + quote, position + len(value) + 2)


def _assignment_findings(text: str, lower: str, language: str) -> Iterator[Finding]:
    """Unquoted config/env assignments to secret-named keys (KeywordDetector needs quotes)."""
    for start, end in _secret_word_lines(text, lower):
        match = ASSIGNMENT.fullmatch(text, start, end)
        if match is None or not _is_secret_name(match.group("name")):
            continue
        group = "v" if match.group("v") is not None else "spaced"
        value = match.group(group)
        if _is_fake_keyed(value) or value.isdigit() or value.startswith(("/", "./", "~", "http")):
            continue
        # ``password: bytes,`` and ``private_key=private_key,`` in code are a parameter and a keyword argument.
        if language in CODE_LANGUAGES and (CODE_VALUE.fullmatch(value.rstrip(",;)")) or CODE_PUNCTUATION.search(value)):
            continue  # an unquoted value in code is an expression: ``password = c->argv[1];``, ``-(2**63)``
        code_shaped = CODE_VALUE.fullmatch(value.rstrip(",;)"))
        if code_shaped and (language in CODE_LANGUAGES or group == "spaced" and language not in CONFIG_LANGUAGES
                            and not _looks_random(value) and not (_is_digest(value) and _mixes_classes(value))):
            continue
        if _is_code_expression(value, language):
            continue
        kind = "SECRET_PASSWORD" if PASSWORDISH.search(match.group("name")) else "SECRET_HIGH_ENTROPY"
        yield Finding(match.start(group), match.end(group), kind, KEYWORD_RANK, value)


# --- 3b. values named by their key, in any language ----------------------------------------------

# A quoted value after a key that names a secret, however the language writes the pair: ``name = "v"``,
# ``name: "v"``, ``"name": "v"``, ``:name => "v"``, ``$name = 'v'``, ``name := "v"``, Rust's
# ``NAME: &str = "v"``, keyword arguments (``password='v'``, Ruby's ``password: 'v'``), builder calls
# (``.password("v")``), ``define('NAME', 'v')``/``setdefault("NAME", "v")``, ``#define NAME "v"`` and
# SQL's ``IDENTIFIED BY 'v'``/``PASSWORD 'v'``; a wrapper call may stand between (``String::from("v")``).
KEYED_QUOTED = re.compile(  # a lookahead, so a rejected pair never hides the next (``f('NAME', 'v')``)
    r"(?=(?:(?<![\w$@.-])[$@:]?(?P<q0>[\"'`]?)(?P<name>[A-Za-z_][\w.-]{0,80})(?P=q0)\]?[ \t]*"
    r"(?::[ \t]*&?(?:'static[ \t]+)?[\w<>\[\]:]{1,30}[ \t]*=|\|\|=|\?\?=|\?=|:=|=>|=|:)"
    r"|(?<=\.)(?P<call>[A-Za-z_]\w{0,80})[ \t]*\("
    r"|(?P<q1>[\"'])(?P<arg>[A-Za-z_][\w.-]{0,80})(?P=q1)[ \t]*,"
    r"|\#[ \t]*define[ \t]+(?P<macro>[A-Za-z_]\w{0,80})[ \t]"
    r"|(?P<sql>(?i:\bidentified(?:[ \t]+with[ \t]+\w+)?[ \t]+by|\bpassword)[ \t]))"
    r"[ \t]*(?:(?P<wrap>[A-Za-z_][\w:.]{0,40})\([ \t]*)?[rbuRBU]{0,2}"
    r"(?:\"(?P<dq>[^\"\n]{1,400})\"|'(?P<sq>[^'\n]{1,400})'|`(?P<bq>[^`\n]{1,400})`))")
# KEYED_QUOTED matches within one line, and a match yields only if its name is a secret's (each
# SECRET_NAME alternative holds one of these words) or it is the SQL branch (``identified``/``password``).
KEYED_SCREEN = (*SECRET_NAME_WORDS, "identified")
QUOTES = ('"', "'", "`")  # every KEYED_QUOTED match (its look-ahead) holds its value's quotes
# Builder and setter calls pass a value; calls that look a secret up, check or derive one take its name or a guess.
LOOKUP_CALL = re.compile(r"(?i)^(?:get|check|verify|validate|hash|load|read|fetch|find|lookup|parse|decode|decrypt|is|has|"
                         r"generate|gen|make|create|reset|revoke|delete|del|remove|rotate|prompt|ask|input|request|"
                         r"refresh|require|assert|test|mock|compare|match|encode|encrypt|sign|store|save|print|log)")
# Calls whose string argument is a pattern, a message or a lookup key, not the value: ``re.compile(r"auth=(.*)")``.
WRAPPER_NOT_VALUE = re.compile(r"(?i)(?:compile|regex|pattern|escape|gettext|_|translate|getenv|get|environ|fetch|"
                               r"lookup|prompt|input|getpass|format|log\w*|print\w*|warn\w*|error|raise|assert\w*)$")
# ``user:pass@`` in any URL, the password running to the last ``@`` before the host (raw ``@``/``#`` happen).
URL_USERINFO_PASSWORD = re.compile(
    r"\b[a-z][a-z0-9+.-]{1,20}://[^\s:/?#@'\"<>]{1,64}:(?P<v>[^\s'\"`]{1,128}?)@(?=[A-Za-z0-9._-]+(?::\d+)?(?:[/?#\s'\"`]|$))")
# ``Password=...;`` in a connection string (ADO.NET, ODBC, JDBC): the value runs to the next ``;`` or quote.
CONNECTION_PASSWORD = re.compile(
    r"(?:(?<=;)|(?<=^)|(?<=[\"']))[ \t]*(?i:password|pwd|user[ ]?password|accountkey|sharedaccesskey)[ \t]*=[ \t]*"
    r"(?P<v>[^;\"'\n]{1,200})(?=;|[\"']|$)", re.MULTILINE)
CONNECTION_WORDS = ("password", "pwd", "accountkey", "sharedaccesskey")
# ``NAME=value`` in prose, .env and config text, where the value runs to whitespace or a quote (in shell,
# ``;``, ``&`` and ``|`` end it, and ``INLINE_VALUE`` reads it).
INLINE_LITERAL = re.compile(r"(?<![\w$.{-])(?P<name>[A-Za-z_][A-Za-z0-9_.-]{1,60})=(?P<v>[^\s'\"`]{6,400})")
# A config line that is only a secret's name and its value, space-separated (``ldap.conf``'s ``bindpw``,
# ``slapd.conf``'s ``rootpw``, ``.netrc``'s ``password``): config and prose files, never code.
SPACED_PAIR = re.compile(r"(?m)^[ \t]*(?P<name>[A-Za-z_][\w.-]{1,60})[ \t]+(?P<v>[^\s]{6,200})[ \t]*$")


def _screened(regex: re.Pattern[str], text: str, lower: str, literals: tuple[str, ...],
              holds: tuple[str, ...] = ()) -> Iterator[re.Match[str]]:
    """``regex.finditer(text)``, run only on the lines holding one of ``literals`` where that is exact:
    ``regex`` never matches across a newline and yields nothing the caller keeps without one of
    ``literals`` on the line (each caller's screen says why; docs/design/secret-screen.md). With
    ``holds``, characters one of which every match of ``regex`` contains, a block holding none is skipped."""
    blocks = lines_with(text, lower, literals)
    if blocks is None:
        yield from regex.finditer(text)
        return
    for start, end in blocks:
        end = min(end + 1, len(text))  # the newline too: lookaheads see it
        if not holds or any(text.find(c, start, end) >= 0 for c in holds):
            yield from regex.finditer(text, start, end)


def _keyed_findings(text: str, lower: str, language: str) -> Iterator[Finding]:
    """Values a secret's key names (``KEYED_QUOTED``, URL user-info, connection strings, space-separated
    config pairs), whatever their characters, unless ``_is_fake_keyed``."""
    if _has_secret_word(text, lower) or "identified" in lower:
        keyed = _screened(KEYED_QUOTED, text, lower, KEYED_SCREEN, holds=QUOTES) if _can_match(lower, KEYED_QUOTED) else ()
        for match in keyed:  # the value is quoted
            name = next(match.group(g) for g in ("name", "call", "arg", "macro", "sql") if match.group(g) is not None)
            if match.group("call") is not None and LOOKUP_CALL.match(name):
                continue
            if match.group("sql") is None and not _is_secret_name(name) or WRAPPER_NOT_VALUE.search(match.group("wrap") or ""):
                continue
            group = next(g for g in ("dq", "sq", "bq") if match.group(g) is not None)
            value = match.group(group)
            if not _is_fake_keyed(value):
                kind = "SECRET_PASSWORD" if PASSWORDISH.search(name) or match.group("sql") else "SECRET_HIGH_ENTROPY"
                yield Finding(match.start(group), match.end(group), kind, KEYWORD_RANK, value)
    if "://" in text and _can_match(lower, URL_USERINFO_PASSWORD):
        for match in _screened(URL_USERINFO_PASSWORD, text, lower, ("://",)):  # one line, through "://"
            if not _is_fake_keyed(match.group("v")):
                yield Finding(match.start("v"), match.end("v"), "SECRET_PASSWORD", KEYWORD_RANK, match.group("v"))
    if "=" in text and _can_match(lower, CONNECTION_PASSWORD) and (
            "password" in lower or "pwd" in lower or "accountkey" in lower or "sharedaccesskey" in lower):
        for match in _screened(CONNECTION_PASSWORD, text, lower, CONNECTION_WORDS):  # one line, holding one
            value = match.group("v").strip()
            if ";" not in text[max(0, match.start() - 1):match.end() + 1]:
                continue  # a connection string's pairs are joined by ";": ``pwd = os.getcwd()`` is code
            line_start = text.rfind("\n", 0, match.start()) + 1
            if language in CODE_LANGUAGES and text.count('"', line_start, match.start()) % 2 == 0 \
                    and text.count("'", line_start, match.start()) % 2 == 0:
                continue  # in code, a connection string is a string literal: ``password = c->argv[1];`` is not
            if not _is_fake_keyed(value):
                yield Finding(match.start("v"), match.start("v") + len(value), "SECRET_PASSWORD", KEYWORD_RANK, value)
    if language not in CODE_LANGUAGES and language not in ("shell", "bash", "powershell", "batchfile") and "=" in text \
            and _can_match(lower, INLINE_LITERAL):
        for match in INLINE_LITERAL.finditer(text):
            value = match.group("v").rstrip(".,;:)")
            if _is_secret_name(match.group("name")) and not _is_fake_keyed(value) and not _is_code_expression(value, language):
                yield Finding(match.start("v"), match.start("v") + len(value), "SECRET_PASSWORD"
                              if PASSWORDISH.search(match.group("name")) else "SECRET_HIGH_ENTROPY", KEYWORD_RANK, value)
    if language not in CODE_LANGUAGES and _can_match(lower, SPACED_PAIR):
        for match in SPACED_PAIR.finditer(text):
            value = match.group("v")
            if _is_secret_name(match.group("name")) and not _is_fake_keyed(value) and not _is_code_expression(value, language):
                yield Finding(match.start("v"), match.end("v"), "SECRET_PASSWORD", KEYWORD_RANK, match.group("v"))


# A secret named in prose: "the token we use is <v>", "Okta token for the sandbox: <v>",
# "`AZURE_OPENAI_API_KEY` is now <v>", "my api key = <v>". Up to four words between the name and the verb.
PROSE_SECRET = re.compile(
    r"(?i:\b[\w.-]*(?:password|passwd|passphrase|secret|token|key|credentials?|pwd|auth|pat)\b)[`'\"]?"
    r"(?:[ \t]+[\w.'-]+){0,4}?[ \t]*(?i:\bis\b|\bwas\b|:|=)(?:[ \t]+(?i:now|still|set[ \t]+to))?[ \t]+[`'\"]?"
    r"(?P<v>[^\s`'\"]{8,400})")
# ... or right before the value, when the value is plainly generated: "the basic auth <v> into the app".
PROSE_ADJACENT = re.compile(r"(?i:\b(?:password|passphrase|secret|token|key|credentials?|auth|pat))[ \t]+[`'\"]?"
                            r"(?P<v>[^\s`'\"]{12,400})")
UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
# Code a sentence names (``key: Optional[str]``, ``token X509_NAME_oneline(...)``), not a value.
CODE_LIKE = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?:\[[\w., ]*\]|\([\w., ]*\))?|[A-Za-z_][\w.]*(?:\[[\w., ]*\]|\([\w., ]*\))")


def _prose_findings(text: str, lower: str) -> Iterator[Finding]:
    """Generated-looking values a secret's name introduces in prose (markdown, issues, a transcript's
    turns, notebook text): letters and a digit, and an upper-case letter or a symbol, or 32+ hex."""
    if not _has_secret_word(text, lower):
        return
    for regex, strict in ((PROSE_SECRET, False), (PROSE_ADJACENT, True)):
        for match in regex.finditer(text) if _can_match(lower, regex) else ():
            value = match.group("v").rstrip(".,;:!?)")
            if _prose_value(value, strict) and not HASH_CONTEXT.search(text, max(0, match.start() - 40), match.start("v")):
                yield Finding(match.start("v"), match.start("v") + len(value), "SECRET_HIGH_ENTROPY", KEYWORD_RANK, value)


def _prose_value(value: str, strict: bool) -> bool:
    """Generated, not a word, a name, code or a link: three character classes (a digit among them when
    the value only follows the name), or 32+ hex after "key/token/secret ... is"."""
    classes = sum(bool(re.search(c, value)) for c in (r"[a-z]", r"[A-Z]", r"\d", r"[^\w]"))
    shortest = 10 if not strict else 12 if classes == 4 else 16
    if (len(value) < shortest or _is_fake_keyed(value) or "://" in value or CODE_LIKE.fullmatch(value)
            or CODE_EXPRESSION.match(value)):
        return False
    bare = value.removeprefix("0x")
    hex_key = len(bare) >= 32 and all(c in "0123456789abcdefABCDEF" for c in bare) and _mixes_classes(bare)
    digits = sum(c.isdigit() for c in value)
    symbols = sum(not c.isalnum() for c in value)
    if strict:  # generated: three classes, or 32+ letters and digits of a random alphabet (base32 PATs), or a UUID
        return (hex_key or (classes >= 3 and (digits > 0 or symbols >= 3) and _shannon(value) >= 3.5)
                or bool(UUID.fullmatch(value))
                or (len(value) >= 24 and digits >= 4 and classes >= 2 and _shannon(value) >= 3.8))
    return (hex_key or (classes >= 3 and _shannon(value) >= 3.0)
            or (len(value) >= 20 and digits >= 2 and classes >= 2 and _shannon(value) >= 3.5))


def _looks_random(value: str) -> bool:
    """``h7Kq2xLm9P``, not ``password2`` or ``DEFAULT_PASSWORD``: generated values mix cases and digits."""
    return sum(c.isdigit() for c in value) >= 2 and value.lower() != value and value.upper() != value


def _is_secret_name(name: str) -> bool:
    """``DB_PASSWORD``, ``clientSecret``, ``spring.datasource.password``; not ``PWD`` (a directory)."""
    words = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower().replace("-", "_").replace(".", "_")
    return name.lower() not in NOT_SECRET_NAMES and bool(SECRET_NAME.search(words))


# --- 4. entropy ----------------------------------------------------------------------------------

ENTROPY_RANK = KEYWORD_RANK + 1
# Quoted hex next to these names is a checksum or a commit, not a key.
HASH_CONTEXT = re.compile(r"sha|md5|hash|digest|checksum|commit|revision|fingerprint|crc|uuid|guid|\bid\b|hex",
                          re.IGNORECASE)
# Words on a random string's line (or the line before) that say it is a credential.
ENTROPY_CONTEXT = re.compile(r"pass|pwd|secret|(?<!pub)(?<!public)(?<!public_)key|token|auth|credential|salt|sign|cookie|session|bearer|api|"
                             r"private|access|client|contrase", re.IGNORECASE)
# The name a quoted value is given on its own line: ``"UploadId": "``, ``name = '``, ``f'nonce="``.
OWN_NAME = re.compile(r"[A-Za-z_][\w.-]*[\"']?\s*[:=]\s*[bru]{0,2}['\"]$")
COMMENT_LINE = re.compile(r"\s*(?:#|//|/\*|\*|--|;|<!--)")
# Shorter hex is a byte string or a colour, not a key; longer quoted base64 is embedded data (images
# in notebooks), not a credential.
MIN_HEX_LENGTH = 20
MAX_ENTROPY_LENGTH = 1024
# Keys made to be embedded in web pages (Stripe's publishable keys).
PUBLIC_KEY_PREFIXES = ("pk_live_", "pk_test_")
# Hex strings of digest lengths (MD5, SHA-1, SHA-224/256/384/512) are digests: docs and code are full
# of them, and a hex key of that length is still caught when it is assigned to a secret name.
DIGEST_LENGTHS = frozenset({32, 40, 56, 64, 96, 128})


@functools.lru_cache(maxsize=8)
def _entropy_plugins(base64_limit: float, hex_limit: float) -> tuple[tuple[HighEntropyStringsPlugin, re.Pattern[str]], ...]:
    """Each plugin with a regex for quoted runs long enough to pass its limit at all
    (a string of n characters has at most log2(n) bits of entropy per character)."""
    plugins = (HexHighEntropyString(limit=hex_limit), Base64HighEntropyString(limit=base64_limit))
    return tuple((p, re.compile(rf"(['\"])([{re.escape(p.charset)}]{{{max(8, int(2 ** p.entropy_limit))},}})\1"))
                 for p in plugins)


def _entropy_findings(text: str, config: RedactionConfig, lower: str = "") -> Iterator[Finding]:
    """detect-secrets' entropy plugins on quoted strings, filtered by its heuristics and ours."""
    for plugin, regex in _entropy_plugins(config.base64_entropy_limit, config.hex_entropy_limit):
        for match in regex.finditer(text) if _can_match(lower, regex) else ():
            value = match.group(2)
            if plugin.calculate_shannon_entropy(value) <= plugin.entropy_limit or _is_not_a_key(value):
                continue
            start, end = _segment(text, match.start())
            line = text[start:end]
            if (heuristic.is_likely_id_string(value, line, plugin) or HASH_CONTEXT.search(line)
                    or PUBLIC.search(text, max(start, match.start() - 40), match.start())):
                continue  # a public key's modulus or a digest
            # A random string nothing names as a secret is a test vector, a digest's continuation line
            # or a nonce (on CPython's tests, 28 of 28 such hits); keys are assigned or passed by name.
            # The line before counts when it is a comment or the value has no name of its own on its line (a
            # continued call, a wrapped value); ``"UploadId": "..."`` under ``"Key": "bigobject"`` is an upload id.
            previous = text.rfind("\n", 0, max(start - 1, 0)) + 1
            if OWN_NAME.search(text, start, match.start() + 1) and not COMMENT_LINE.match(text, previous, start):
                previous = start
            before = PAGINATION.sub(" ", text[previous:match.start()])
            if not (ENTROPY_CONTEXT.search(before) or ENTROPY_CONTEXT.search(text, match.end(), end)):
                continue  # (the value itself does not count: ``Qwen2_5OmniToken2Wav`` names a class)
            yield Finding(match.start(2), match.end(2), "SECRET_HIGH_ENTROPY", ENTROPY_RANK, value)


def _is_not_a_key(value: str) -> bool:
    """detect-secrets' heuristics, plus ours: keys mix character classes (words, paths and numbers
    do not), hex of a digest's length is a digest, and base64 of readable text is a test vector."""
    is_hex = all(c in "0123456789abcdefABCDEF" for c in value)
    return (heuristic.is_potential_uuid(value) or heuristic.is_templated_secret(value) or _is_fake_token(value)
            or not _mixes_classes(value)
            or (is_hex and (len(value) < MIN_HEX_LENGTH or len(value) in DIGEST_LENGTHS))
            or len(value) > MAX_ENTROPY_LENGTH or _encodes_text(value) or value.startswith(PUBLIC_KEY_PREFIXES)
            or _names_or_dates(value)
            or bool(re.search(r"\\[A-Za-z]{2}", value))  # a Windows path or registry key, not an escape
            or _is_path(value) or _is_repository_id(value))


# ``Qwen/Qwen2.5-7B-Instruct``, ``meta-llama/Llama-3.1-8B``: a hub repository (a model, a data set). A base64
# key never holds both ``/`` (standard alphabet) and ``-`` or ``.`` (URL-safe alphabet, or none).
REPOSITORY_ID = re.compile(r"[A-Za-z0-9][\w.-]{0,95}/[A-Za-z0-9][\w.-]{0,95}")


def _is_repository_id(value: str) -> bool:
    return bool(REPOSITORY_ID.fullmatch(value)) and bool(re.search(r"[-.]", value))


def _is_digest(value: str) -> bool:
    return len(value) in DIGEST_LENGTHS and all(c in "0123456789abcdefABCDEF" for c in value)


def _is_path(value: str) -> bool:
    """``projects/123/global/networks/myVPC``: slash-separated words, half of them plain lowercase."""
    parts = value.split("/")
    return len(parts) >= 3 and sum(part.isalpha() and part.islower() and len(part) >= 3 for part in parts) * 2 >= len(parts)


def _mixes_classes(value: str) -> bool:
    """Letters with digits or with both cases, as generated keys have; not ``invalid-mailbox`` or ``0102``."""
    has_digit = any(c.isdigit() for c in value)
    return any(c.isalpha() for c in value) and (has_digit or value.lower() != value != value.upper())


def _encodes_text(value: str) -> bool:
    """Base64 of printable ASCII (``YWJjZGVm`` is "abcdef"). A random key decodes to random bytes,
    of which only ~37% are printable, so 90% separates the two from 16 bytes on."""
    try:
        # detect-secrets' base64 charset has a backslash, so values may hold "\n" escapes of wrapped base64.
        value = value.replace("\\n", "").replace("-", "+").replace("_", "/")
        decoded = base64.b64decode(value + "=" * (-len(value) % 4), validate=True)
    except ValueError:
        return False
    printable = sum(32 <= byte < 127 or byte in (9, 10, 13) for byte in decoded)
    return len(decoded) >= 16 and printable >= 0.9 * len(decoded)


# --- 5. emails and IP addresses ------------------------------------------------------------------

PII_RANK = ENTROPY_RANK + 1
REPEAT_RANK = PII_RANK + 1
# Found from each "@" (a literal ``re`` can jump to): the local part backwards, the domain forwards.
AT = re.compile(r"@(?<=[A-Za-z0-9._%+-]@)(?=[A-Za-z0-9])")
LOCAL_PART = re.compile(r"(?<![\w.%+-])[A-Za-z0-9][A-Za-z0-9._%+-]{0,63}$")
DOMAIN = re.compile(r"(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+(?P<tld>[A-Za-z]{2,24})(?![\w-]|\.[A-Za-z0-9])")
# Country codes are any two letters; generic TLDs from a short list, so ``a@b.shape`` (numpy's matmul)
# is not an address.
GENERIC_TLDS = frozenset((
    "com", "net", "org", "edu", "gov", "mil", "int", "info", "biz", "name", "pro", "io", "ai", "app", "dev", "tech",
    "site", "online", "xyz", "cloud", "email", "page", "blog", "shop", "store", "co", "me", "tv", "cc", "ly", "gg",
    "sh", "so", "to", "ws", "eu", "asia", "mobi", "tel", "travel", "jobs", "aero", "coop", "museum", "systems",
    "network", "digital", "solutions", "company", "services", "software", "agency", "team", "world", "life", "live",
    "space", "website", "works", "codes"))
MESSAGE_ID_LOCAL = re.compile(r"[\d.]*\.[\d.]*")  # <1424802164.2080.1652@host> is a Message-ID, not a mailbox
URL_USERINFO = re.compile(r"://[^\s/@]{0,64}$")  # http://user:pass@host: credentials (see SECRET_PASSWORD), not a mailbox


def _email_findings(text: str, allowlist: tuple[frozenset[str], tuple[str, ...], frozenset[str]]) -> Iterator[Finding]:
    for at in AT.finditer(text):
        local = LOCAL_PART.search(text, max(0, at.start() - 64), at.start())
        domain = DOMAIN.match(text, at.end())
        if (local is None or domain is None or MESSAGE_ID_LOCAL.fullmatch(local.group())
                or URL_USERINFO.search(text, max(0, local.start() - 80), local.start())):
            continue
        tld = domain.group("tld").lower()
        address = text[local.start():domain.end()]
        if (len(tld) == 2 or tld in GENERIC_TLDS) and not _email_allowed(address.lower(), allowlist):
            yield Finding(local.start(), domain.end(), "EMAIL", PII_RANK, address)


@functools.lru_cache(maxsize=8)
def _email_allowlist(entries: tuple[str, ...]) -> tuple[frozenset[str], tuple[str, ...], frozenset[str]]:
    """``(exact addresses, domains, local parts)`` from the config's entries."""
    lowered = [e.lower() for e in entries]
    domains = tuple(e[1:] for e in lowered if e.startswith("@"))
    locals_ = frozenset(e[:-1] for e in lowered if e.endswith("@") and not e.startswith("@"))
    exact = frozenset(e for e in lowered if not e.startswith("@") and not e.endswith("@"))
    return exact, domains, locals_


def _email_allowed(address: str, allowlist: tuple[frozenset[str], tuple[str, ...], frozenset[str]]) -> bool:
    exact, domains, locals_ = allowlist
    local, _, domain = address.rpartition("@")
    return (address in exact or local in locals_
            or any(domain == d or domain.endswith("." + d) for d in domains))


OCTET = r"(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
IPV4 = re.compile(rf"(?<![\w.]){OCTET}(?:\.{OCTET}){{3}}(?!\.?\d|\w|\.in-addr)")
IPV4_HINT = re.compile(r"\.\d{1,3}\.\d{1,3}\.")  # literal-led, so cheap; IPV4 then runs where it hits
IPV6 = re.compile(r"(?<![\w:.])[23][0-9a-fA-F]{3}:[0-9a-fA-F:]{2,37}[0-9a-fA-F](?![\w:])")
IPV6_HINT = re.compile(r"::|:[0-9a-fA-F]{1,4}:[0-9a-fA-F]{1,4}:")
# Words that say a dotted quad is an address; without one, a quad with small middle numbers is a version.
NETWORK_CONTEXT = re.compile(
    r"\bip|addr|host|server|inet|ping|connect|proxy|dns|nameserver|listen|bind|route|gateway|client|remote|peer|"
    r"socket|://|\bssh\b|\bfrom\b|\bvia\b|tcp|udp", re.IGNORECASE)
VERSION_CONTEXT = re.compile(r"(?:version|release|python|\bv|\bver|section|sections|chapter|rfc|step|figure|"
                             r"table|oid|§)\W{0,3}$", re.IGNORECASE)


def _ip_candidates(text: str) -> Iterator[re.Match[str]]:
    """IPv4/IPv6 matches, looked for only around cheap literal hints."""
    yield from _matches_near(text, IPV4_HINT, IPV4, "0123456789", 3)
    yield from _matches_near(text, IPV6_HINT, IPV6, "0123456789abcdefABCDEF:", 39)


def _matches_near(text: str, hint: re.Pattern[str], full: re.Pattern[str], chars: str, back: int) -> Iterator[re.Match[str]]:
    """``full`` matched where each ``hint`` hit starts, after backing up over up to ``back`` of ``chars``."""
    last = -1
    for found in hint.finditer(text):
        start = found.start()
        while start > max(0, found.start() - back) and text[start - 1] in chars:
            start -= 1
        match = full.match(text, start) if start >= last else None
        if match:
            last = match.end()
            yield match


def _ip_findings(text: str, allowlist: tuple[Any, ...]) -> Iterator[Finding]:
    for match in _ip_candidates(text):
        value = match.group()
        try:
            ip = ipaddress.ip_address(value)
        except ValueError:
            continue
        if (ip.is_global and not ip.is_multicast and not any(ip in network for network in allowlist)
                and _reads_as_address(text, match)):
            yield Finding(match.start(), match.end(), "IP_ADDRESS", PII_RANK, value)


def _reads_as_address(text: str, match: re.Match[str]) -> bool:
    """Not ``version 3.1.4.1`` or ``section 8.2.4.44``, nor a package's version (``jetty-server:9.3.0.25``,
    ``pkg==1.2.3.4``, ``9.3.0.25.Final``, ``-SNAPSHOT``); a quad whose middle numbers are small (as in
    versions; 1 in 64 public addresses) or that reads as an OID (``1.3.132.1``: arcs 0-2, then under 40)
    needs a network word on its line, or a port."""
    start, end = _segment(text, match.start())
    if VERSION_CONTEXT.search(text[max(start, match.start() - 20):match.start()]) or _is_package_version(text, match):
        return False
    octets = match.group().split(".")
    small = len(octets) == 4 and int(octets[1]) < 32 and int(octets[2]) < 32
    oid = len(octets) == 4 and octets[0] in ("0", "1", "2") and int(octets[1]) < 40
    return not (small or oid) or bool(NETWORK_CONTEXT.search(text, start, end)) or text.startswith(":", match.end())


# A version after a package's coordinate or pin (``g:a:9.3.0.25``, ``pkg==1.2.3.4``, ``name-1.2.3.4``), or
# before a qualifier or an extension (``9.3.0.25.Final``, ``1.2.3.4-SNAPSHOT``, ``1.2.3.4.jar``).
VERSION_BEFORE = re.compile(r"(?:[\w.-]+:[\w.-]+:|[=~<>!]=|[A-Za-z][\w.]*-v?|\bv)$")
VERSION_AFTER = re.compile(r"[.-][A-Za-z]")


def _is_package_version(text: str, match: re.Match[str]) -> bool:
    return bool(VERSION_BEFORE.search(text, max(0, match.start() - 80), match.start())
                or VERSION_AFTER.match(text, match.end()))


def _parse_network(entry: str) -> ipaddress.IPv4Network | ipaddress.IPv6Network | None:
    try:
        return ipaddress.ip_network(entry, strict=False)
    except ValueError:
        return None


@functools.lru_cache(maxsize=8)
def _ip_allowlist(entries: tuple[str, ...]) -> tuple[Any, ...]:
    return tuple(network for network in map(_parse_network, entries) if network is not None)


@functools.cache
def placeholder_kinds() -> frozenset[str]:
    """Every placeholder name redact_text can produce (without brackets), e.g. to register them as tokens."""
    return frozenset({p.kind for p in PATTERNS} | {kind for kind, _ in PLUGINS.values()}
                     | gitleaks.rule_kinds() | {"SECRET_PASSWORD", "SECRET_HIGH_ENTROPY", "EMAIL", "IP_ADDRESS"})
