"""Stage kinds: a spec's stage names resolve to kinds, and the kind alone decides how a stage is treated."""

from __future__ import annotations

import re

import pytest

from codemix.config import ConfigError
from codemix.mixtures.spec import parse_spec
from codemix.mixtures.stages import FILES, KINDS, REPOSITORIES, SAMPLES, STAGE_NAMES, stage_kind, stages_of_shape
from tests.conftest import REPO_ROOT
from tests.layout import package_dirs


def spec_with(stage: str, source_type: str) -> dict:
    return {"name": "t", "sources": [{"name": "src", "type": source_type, "paths": ["/tmp"]}],
            "stages": {stage: {"sequence_length": 128, "token_budget": 1000, "weights": {"src": 1.0}}}}


@pytest.mark.parametrize("stage", STAGE_NAMES)
def test_every_kind_is_a_stage_a_spec_can_name(stage: str) -> None:
    source_type = "transcripts" if stage_kind(stage).source_types else "directory"
    assert list(parse_spec(spec_with(stage, source_type)).stages) == [stage]


def test_a_kind_refuses_source_types_it_does_not_take_naming_the_field_and_where_they_go() -> None:
    limited = [kind for kind in KINDS.values() if kind.source_types]
    assert limited, "guard: some kind limits its source types"
    for kind in limited:
        with pytest.raises(ConfigError) as raised:
            parse_spec(spec_with(kind.name, "directory"))
        message = str(raised.value)
        assert message.startswith(f"stages.{kind.name}.weights.src:")
        takers = [name for name in STAGE_NAMES if stage_kind(name).accepts("directory")]
        assert takers and all(name in message for name in takers)


def test_an_unknown_stage_is_refused_with_the_known_ones() -> None:
    with pytest.raises(ConfigError, match=r"^stages\.medium: unknown stage") as raised:
        parse_spec(spec_with("medium", "directory"))
    assert all(name in str(raised.value) for name in STAGE_NAMES)
    with pytest.raises(ValueError, match="medium"):
        stage_kind("medium")


def test_shapes_partition_the_stages_and_answers_follow_the_shape() -> None:
    shapes = {shape: stages_of_shape(STAGE_NAMES, shape) for shape in (FILES, REPOSITORIES, SAMPLES)}
    assert sorted(name for names in shapes.values() for name in names) == sorted(STAGE_NAMES)
    for name in STAGE_NAMES:
        kind = stage_kind(name)
        assert kind.loss_masked == kind.has_chat_template == (kind.shape == SAMPLES)
        assert kind.dedup_output(False) == "dedup"
        assert kind.dedup_output(True) == ("repo_dedup" if kind.shape == REPOSITORIES else "dedup")


# A stage name compared with a literal outside mixtures/stages.py is a kind decided in the wrong place.
NAMES = "|".join(STAGE_NAMES)
STAGE_LITERAL = re.compile(rf"""(==|!=|\bin)\s*\(?["']({NAMES})["']|["']({NAMES})["']\s*(==|!=|\bin\b)""")


def test_no_layer_decides_by_a_stage_name_literal() -> None:
    offenders = []
    for folder in package_dirs().values():
        for path in (REPO_ROOT / folder).rglob("*.py"):
            if path.name == "stages.py" and path.parent.name == "mixtures":
                continue
            for number, line in enumerate(path.read_text().splitlines(), 1):
                if STAGE_LITERAL.search(line):
                    offenders.append(f"{path.relative_to(REPO_ROOT)}:{number}: {line.strip()}")
    assert STAGE_LITERAL.search('if stage == "sft":'), "guard: the pattern finds the old special case"
    assert offenders == []
