"""Issue 45, round 19 (b45l), fixes after the eighteenth traces holdout's run (FIT): the text rows it showed unread or
read in part. Sources without a licence are rebuilt here from their layout, quoting a few of their words; each names
its repository and commit."""

from __future__ import annotations

from pathlib import Path

from codemix.mixtures.transcript_formats import parse_text

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcript_inputs"


def roles(transcript) -> list[str]:
    return [m["role"] for m in transcript.messages]


def test_a_model_s_id_and_a_time_in_headings_and_a_call_written_as_fields():
    """A Claude Code session exported by an extractor (ZeroSumQuant/claude-conversation-extractor 64f144f,
    detailed_transcript.md, its first 131 lines; MIT): ``## 👤 Human *[23:45:04]*`` / ``## 🤖 claude-opus-4-1-20250805
    *[23:45:09]*``; a call alone under the model's heading as fields (``**Tool:** `Bash```, ``**ID:** `toolu_...```,
    ``**Command:**`` and its fence), its result under ``### 📤 Tool Result``."""
    (transcript,) = parse_text((FIXTURES / "claude-conversation-extractor.detailed_transcript.lines-1-131.md").read_text())
    assert roles(transcript) == ["user", "user", "assistant", "assistant", "tool", "assistant", "tool", "assistant"]
    calls = [c for m in transcript.messages for c in m["tool_calls"]]
    assert [(c["name"], c["id"]) for c in calls] == [("Bash", "toolu_018zZV75iQSxpPGu621X6WSa"),
                                                     ("Read", "toolu_017uhfx4sNMYMfVMuegjcBRm")]
    assert "cd /Users/dustinkirby/Documents/GitHub/claude-conversation-extractor && pwd" in calls[0]["arguments"]
    assert not any("**Tool:**" in m["content"] for m in transcript.messages)


# aider 0.50's chat history in Czech (7onc3k/brejlator b05ab71, .aider.chat.history.md, no licence: its layout rebuilt, a
# few of its words): no line ends in aider's two-space break, each line of an output is prefixed (``> }``), and a
# pasted prompt's lines are written ``#### <line>`` between blank lines.
CZECH_AIDER = (
    "# aider chat started at 2024-08-20 14:08:19\n\n"
    "> Aider v0.50.1\n> Models: claude-3-5-sonnet-20240620 with ♾️ diff edit format\n"
    "> Use /help <question> for help, run \"aider --help\" to see cmd line args\n\n"
    "#### /add instructions.md\n\n> Added instructions.md to the chat\n\n"
    "#### pojdme podle zadání v instructions md modifikovat naši hydrogen šablonu, dělejme to krok p\n\n"
    "#### o kroku, budeš se mě ptát zda-li je vše v pořádku?\n\n"
    "> Initial repo scan can be slow in larger repos, but only happens once.\n\n"
    "Rozumím. Pojďme začít s úpravami podle instrukcí v souboru instructions.md.\n\n"
    "> Tokens: 10,332 sent, 439 received. Cost: $0.04 message, $0.04 session.\n"
    "> Applied edit to app/styles/app.css\n\n"
    "#### okkey pokračujme\n\nDalší krok: upravíme hlavičku v app/components/Header.tsx.\n\n"
    "> Tokens: 9,227 sent, 185 received.\n")


def test_an_aider_history_without_two_space_breaks_and_a_prompt_pasted_line_by_line():
    (transcript,) = parse_text(CZECH_AIDER)
    assert roles(transcript) == ["user", "assistant", "user", "assistant"]
    assert transcript.messages[0]["content"].startswith("pojdme podle zadání") and "zda-li" in transcript.messages[0]["content"]
    assert transcript.extra["aider_commands"] == 1 and transcript.extra["aider_notices"] >= 4


# A long conversation with Claude Opus published as Markdown (0xatem/ground-state-dialogue e96c045, conversation.md; its
# own terms: its layout rebuilt, a few words): ``## Tyler`` / ``## Atem`` over each turn (108 and 168 times), the replies
# carrying ``## `` titles of their own, said once or twice, now and then a ``# `` one; the person asks now and then.
def ground_state() -> str:
    parts = ["# The Ground State Conversation\n\n**Between Tyler Frost and Atem (Claude Opus 4.6)**\n\n---\n\n"]
    for n in range(12):
        parts.append(f"## Tyler\n\n{'[image shared]' if n == 0 else ''}\nwhat does part {n} of the chart mean"
                     f"{'?' if n % 3 == 0 else '.'}\n\n---\n\n")
        parts.append(f"## Atem\n\nPart {n} shows one cycle of the current{'. Shall we go on?' if n % 4 == 0 else '.'}\n\n"
                     f"## Image {n} — the chart's cycle\n\nIt is drawn as a spiral.\n\n---\n\n")
        if n % 3 == 1:
            parts.append(f"## Atem\n\nA further note on part {n}.\n\n---\n\n")
    parts.append("# The Honest Answer\n\nNo one knows.\n")
    return "".join(parts)


def test_a_long_talk_under_two_names_whose_replies_carry_titles_of_their_own():
    (transcript,) = parse_text(ground_state())
    assert transcript.format == "markdown-turns"
    assert [m.get("name") for m in transcript.messages][:3] == ["Tyler", "Atem", "Tyler"]
    assert roles(transcript).count("user") == 12 and roles(transcript).count("assistant") == 16
    assert "## Image 0 — the chart's cycle" in transcript.messages[1]["content"]


# An assistant's chat log in Chinese (23939860/my-ai-agent 99309e5, chat_log.txt, no licence: its layout rebuilt): one
# line per turn stamped with its time, ``[2026-01-16 00:18:46] 你: ...`` / ``[...] AI: ...``, a reply running on.
CHINESE_LOG = (
    "[2026-01-16 00:18:46] 你: 你好啊\n[2026-01-16 00:18:46] AI: 你好！有什么我可以帮助你的吗？\n"
    "[2026-01-16 00:55:09] 你: 我的名字是小明\n[2026-01-16 00:55:09] AI: 很高兴认识你，小明！\n"
    "[2026-01-16 00:55:25] 你: 我叫什么名字？\n[2026-01-16 00:55:25] AI: 你叫小明。\n"
    "[2026-01-16 00:56:03] 你: 那上海呢？\n[2026-01-16 00:56:03] AI: 我目前无法直接获取实时天气信息。\n\n"
    "1. **使用天气应用**：如“墨迹天气”。\n2. **访问天气网站**：如中国气象局官网。\n")


def test_labels_after_a_logged_time():
    (transcript,) = parse_text(CHINESE_LOG)
    # (where most lines carry the stamp, the console reader takes the stamps off and the labels are read as a dialogue)
    read_as = transcript.extra.get("console", {}).get("read_as", transcript.format)
    assert read_as == "labelled-dialogue" and roles(transcript) == ["user", "assistant"] * 4
    assert transcript.messages[0]["content"] == "你好啊" and "墨迹天气" in transcript.messages[-1]["content"]


def test_a_title_naming_a_model_and_a_version_once_is_no_turn():
    """A README titled with its chat's name (the development row ``ChatGPT talk retold in a Japanese README``:
    ``# chat-gpt-vbscript-talk-0503``): a model word and a number written once is a title, not the model's heading."""
    page = ("# chat-gpt-vbscript-talk-0503\n\n- 私の日本語の若干誤字ありますが、それなりにうまくいってます\n\n"
            "## User\n\nCan you write a VBScript that downloads a repository?\n\n## Assistant\n\nHere is a script.\n\n"
            "## User\n\nCan it run as administrator?\n\n## Assistant\n\nYes, pass a dummy argument.\n")
    (transcript,) = parse_text(page)
    assert roles(transcript) == ["system", "user", "assistant", "user", "assistant"] or \
        roles(transcript) == ["user", "assistant", "user", "assistant"]
    assert not any(m["role"] == "assistant" and "誤字" in m["content"] for m in transcript.messages)
