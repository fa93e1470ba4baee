"""The SFT stage's shard stats count what opens each continuation, and the manifest adds them up."""

from __future__ import annotations

import sysconfig
from pathlib import Path

from codemix.document import packed_document
from codemix.mixtures.blend import stage_manifest
from codemix.mixtures.sft import SFTConfig
from codemix.mixtures.spec import parse_spec
from codemix.mixtures.tokenizer import train_bpe
from codemix.pipelines.readers import read_location
from codemix.pipelines.shape_sft import WriteSFTShard
from codemix.sources import SourceConfig

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"


def test_shard_stats_and_manifest_count_summaries_by_origin(tmp_path: Path) -> None:
    source = SourceConfig(name="runs", type="transcripts", paths=["unused"])
    docs = [doc for name in ("codex", "claude-code", "openai-chat") for path in sorted((FIXTURES / name).iterdir())
            for doc in read_location(source, str(path))]
    stdlib = [p.read_text(encoding="utf-8") for p in sorted(Path(sysconfig.get_path("stdlib")).glob("json/*.py"))]
    tokenizer_path = tmp_path / "tokenizer.json"
    train_bpe(stdlib + [d.text for d in docs], vocab_size=800).save(str(tokenizer_path))
    write = WriteSFTShard("sft", str(tmp_path), str(tokenizer_path), 600, SFTConfig(outcome_policy="any", min_tokens=1))
    write.setup()
    outputs = list(write.process((("runs", 0, 1), [packed_document(d) for d in docs])))
    (stats,) = [o for o in outputs if isinstance(o, dict)]
    # Two real compactions (Codex, Claude Code's main chain) open with the model's summaries, and so do
    # the splits after them; 600 tokens also splits the runs before them, where the summary is templated.
    assert stats["summaries"]["real"] >= 2 and stats["summaries"]["templated"] >= 1
    spec = parse_spec({"name": "t", "sources": [{"name": "runs", "type": "transcripts", "paths": ["x"]}],
                                  "stages": {"sft": {"sequence_length": 600, "token_budget": 10_000,
                                                     "weights": {"runs": 1}}}})
    manifest = stage_manifest(spec, [stats, {**stats, "shard": 1, "prefix": stats["prefix"] + "-b"}])
    assert manifest["sft"]["summaries"] == {k: 2 * v for k, v in stats["summaries"].items()}
