"""gitleaks' rule set read as gitleaks applies it: every rule compiles under Python's ``re`` with RE2's
flag scoping, and the vendor formats the planted corpus generates are the ones gitleaks' own regexes
describe (the reference), caught under that rule's placeholder."""

from __future__ import annotations

import random
import re

import pytest

from codemix.filters import gitleaks
from codemix.filters.secrets import RedactionConfig, redact_text
from tests.filters.planted_corpus import TOKEN_SHAPES

# Planted shapes whose format was taken from a gitleaks rule -> that rule's id.
FROM_GITLEAKS = {"doppler_token": "doppler-api-token", "pulumi_token": "pulumi-api-token",
                 "postman_key": "postman-api-token", "linear_key": "linear-api-key",
                 "grafana_cloud_token": "grafana-cloud-api-token", "flyio_token": "flyio-access-token",
                 "sentry_user_token": "sentry-user-token", "planetscale_token": "planetscale-api-token",
                 "prefect_key": "prefect-api-token", "shippo_token": "shippo-api-token",
                 "rubygems_key": "rubygems-api-token", "dynatrace_token": "dynatrace-api-token",
                 "notion_token": "notion-api-token", "age_secret_key": "age-secret-key"}


def test_every_rule_but_the_skipped_compiles():
    rules, allow, stopwords = gitleaks.rules()
    assert len(rules) >= 200 and allow and stopwords
    assert not {r.id for r in rules} & gitleaks.SKIPPED_RULES


@pytest.mark.parametrize(("go", "matches", "misses"), [
    (r"ab(?i)cd", ["abCD"], ["ABcd"]),  # the flag holds from where it stands
    (r"ab(?i)cd|ef", ["abcd", "EF"], ["ABcd"]),  # ... and in the group's later alternatives
    (r"x(?:a(?i)b|c)d", ["xaBd", "xCd"], ["xAbd", "xcD"]),  # ... but not past its group
    (r"[[:alnum:]]{3}\z", ["a1B"], ["a-b"]),
])
def test_re2_syntax_is_translated_with_re2s_meaning(go, matches, misses):
    regex = re.compile(gitleaks.go_to_python(go))
    assert all(regex.fullmatch(m) for m in matches) and not any(regex.fullmatch(m) for m in misses)


@pytest.mark.parametrize("shape", [s for s in TOKEN_SHAPES if s.name in FROM_GITLEAKS], ids=lambda s: s.name)
def test_planted_formats_are_gitleaks_formats_and_are_caught(shape):
    rule = next(r for r in gitleaks.rules()[0] if r.id == FROM_GITLEAKS[shape.name])
    rng = random.Random(25)
    for _ in range(20):
        value = shape.make(rng)
        line = f'{shape.env} = "{value}"\n'
        assert rule.regex.search(line), "the reference regex describes the planted format"
        redacted, counts = redact_text(line, RedactionConfig(), "python")
        assert value not in redacted and dict(counts) == {rule.kind: 1}
    assert len(FROM_GITLEAKS) == 14


# gitleaks' own sample lines for its Sentry organisation-token rule (gitleaks/gitleaks, MIT,
# cmd/generate/config/rules/sentry.go): each token sits in a Go raw string, and the rule's regex ends in
# "(?:[^a-zA-Z0-9+/]|\z)", a boundary that its whole match would include.
SENTRY_GO = (
    "\t\t`sntrys_eyJpYXQiOjE2ODczMzY1NDMuNjk4NTksInVybCI6bnVsbCwicmVnaW9uX3VybCI6Imh0dHA6Ly9sb2NhbGhvc3Q6ODAwMCIsIm9y"
    "ZyI6InNlbnRyeSJ9_NzJkYzA3NzMyZTRjNGE2NmJlNjBjOWQxNGRjOTZiNmI`, // gitleaks:allow\n"
    "\t\t` sntrys_eyJpYXQiOjE3MjkyNzg1ODEuMDgxMTUzLCJ1cmwiOiJodHRwczovL3NlbnRyeS5pbyIsInJlZ2lvbl91cmwiOiJodHRwczov"
    "L3VzLnNlbnRyeS5pbyIsIm9yZyI6ImdsYW1hIn0=_NDtyKO3XyRQqwfCL5yaugRWix7G2rKwrmSpIGFvsem4`, // gitleaks:allow\n")


def test_a_rules_trailing_boundary_is_checked_not_masked():
    text, counts = redact_text(SENTRY_GO, RedactionConfig(), language="go")
    assert counts == {"SECRET_SENTRY_ORG_TOKEN": 2}
    assert text == ("\t\t`<SECRET_SENTRY_ORG_TOKEN>`, // gitleaks:allow\n"
                    "\t\t` <SECRET_SENTRY_ORG_TOKEN>`, // gitleaks:allow\n")
    rule = next(r for r in gitleaks.rules()[0] if r.id == "sentry-org-token")
    token = "sntrys_eyJpYXQiO" + "A1b2" * 5 + "LCJyZWdpb25fdXJs" + "C3d4" * 5 + "_" + "e5F6" * 11
    assert rule.regex.search(token[:-1] + "`") and rule.regex.search(token[:-1])  # 43 then a boundary or the end
    assert not rule.regex.search(token)  # 44: the boundary is still required
