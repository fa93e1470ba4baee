"""Issue 45, round 19 (b45l): text exports and session logs read from their own structure (bench/traces_dev_extra.tsv,
"round 19"). Sources without a licence are rebuilt here from their layout, quoting a few of their words; each names
its repository and commit."""

from __future__ import annotations

from pathlib import Path

from codemix.mixtures.transcript_formats import parse_text


def roles(transcript) -> list[str]:
    return [m["role"] for m in transcript.messages]


# aider's chat history with architect and editor models (BjornNordblom/pocketflow-text2sql-gui fa36619,
# .aider.chat.history.md, the spent seventeenth holdout, no licence: its session line and lines 6,425-6,470 rebuilt,
# the replies shortened): after a reply aider tells the person its token count, the edits it applied and the
# commits; a rate-limited provider makes it print the error and its retries, then the reply comes.
RATE_LIMITED = ('> litellm.RateLimitError: RateLimitError: OpenrouterException - {"error":{"message":"Provider returned '
                'error","code":429}}  \n> The API provider has rate limited you. Try again later or check your quotas.  \n'
                '> Retrying in 0.2 seconds...  \n')
ARCHITECT_HISTORY = (
    "# aider chat started at 2025-08-06 12:06:30\n\n"
    "> Tokens: 7.6k sent, 442 received.  \n> .gitignore  \n"
    "> Allow edits to file that has not been added to the chat? (Y)es/(N)o [Yes]: y  \n"
    "> Committing .gitignore before applying edits.  \n> Applied edit to .gitignore  \n"
    "> Commit d4c06d0 chore: add comprehensive .gitignore for Python, Node, and tooling  \n"
    "> You can use /undo to undo and discard each aider commit.  \n\n"
    "#### -ask  \n" + RATE_LIMITED + "\n"
    "I need a bit more information to proceed. Could you clarify what you'd like me to do next?\n\n"
    "> Tokens: 9.0k sent, 90 received.  \n\n"
    "#### /ask I nodes.py used in the backend project?  \n\n"
    "#### I nodes.py used in the backend project?  \n\n"
    "From the current repository contents you shared, there is no nodes.py file.\n\n"
    "> Tokens: 7.2k sent, 130 received.  \n\n"
    "#### /clear  \n> All chat history cleared.  \n\n"
    "#### /run pytest -q  \n> Add 0.6k tokens of command output to the chat? (Y)es/(N)o [Yes]: y  \n"
    "> Added 17 lines of output to the chat.  \n\n"
    "#### Fix the failing test  \n\nThe test expects the schema route; here is the change.\n")


def test_aider_s_notices_and_commands_are_no_messages():
    """What the model was sent is the messages: aider's ``>`` notices (tokens, edits, commits, rate limits, its
    questions) and the commands to aider itself (``/ask x`` is echoed as ``#### x``, ``/clear``, ``/run``) are
    counted on the transcript; a run's output aider added to the chat is not in the file (it printed only its word)."""
    before, after = parse_text(ARCHITECT_HISTORY)
    assert roles(before) == ["user", "assistant", "user", "assistant"]
    assert [m["content"] for m in before.messages if m["role"] == "user"] == [
        "-ask", "I nodes.py used in the backend project?"]
    assert before.extra["aider_notices"] == 4 and before.extra["aider_commands"] == 2
    assert not any("Tokens:" in m["content"] or "RateLimitError" in m["content"] for m in before.messages)
    assert roles(after) == ["user", "assistant"] and after.extra["aider_commands"] == 1
    assert after.extra["aider_notices"] == 2 and after.extra["after_clear"] == 1


FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcript_inputs"


def test_numbered_role_headings_and_calls_under_their_tools_names():
    """A Claude.ai chat exported as Markdown (falkorichter/agentic-experiences c703ac4, claude_conversation.md, its first
    109 lines; Apache-2.0): ``## User Message 1`` / ``## Assistant Response 1``; inside the reply each MCP call under
    its tool's name (``### whoami``), its arguments in one fence and its result in the next, then the exporter's
    ``### API Call`` showing the same request and result again (a repeat, no turn)."""
    (transcript,) = parse_text((FIXTURES / "agentic-experiences.claude_conversation.lines-1-109.md").read_text())
    assert transcript.format == "markdown-turns"
    assert roles(transcript) == ["user", "assistant", "tool", "user", "assistant", "tool"]
    calls = [c for m in transcript.messages for c in m["tool_calls"]]
    assert [c["name"] for c in calls] == ["whoami", "login"] and calls[0]["arguments"].strip("{}\n ") == ""
    assert "`email`: `firstname.lastname@gmail.com`" in calls[1]["arguments"]
    assert transcript.messages[2]["content"].startswith('{\n  "authenticated": false')
    assert not any("**Request:**" in m["content"] or "whoami" in m["content"] for m in transcript.messages)


def test_a_person_s_label_heading_its_request():
    """VS Code's Copilot chat exported as Markdown (morberg/f1-chart 2aa0f63, copilot-chat.md, its first 86 lines; MIT):
    ``# morberg: <request>`` heads each request, ``**GitHub Copilot:**`` opens each reply."""
    (transcript,) = parse_text((FIXTURES / "f1-chart.copilot-chat.lines-1-86.md").read_text())
    assert transcript.format == "labelled-dialogue"
    assert roles(transcript) == ["user", "assistant"] * 4
    assert transcript.messages[2]["content"].startswith("it is not working properly, help me debug it.")
    assert transcript.messages[3]["content"].startswith("The error is caused by trying to access the key")


def test_a_page_s_headings_with_a_colon_are_no_requests():
    page = ("# Step 1: Install the package\n\nRun `pip install x` first.\n\n**Note:** it needs Python 3.11.\n\n"
            "# Step 2: Configure it\n\nWrite a config file.\n\n**Note:** keep it small.\n\n"
            "# Step 3: Run it\n\nStart the server. Does it answer?\n\n**Note:** it listens on 8080.\n")
    assert not parse_text(page)


# Trae's chat retold by the agent as a text log (GinoZMYS/trae-rtl 5f3f3a4, PRD/complete_chat_history.log, no licence:
# its layout rebuilt, a few of its words): ``用户:`` / ``TRAE:`` over each turn, stage headers in 【】, the agent's
# clauses ending in a colon before a list or a command (``首先让我检查当前项目的状态：``, ``描述:``), bracketed notes of
# what it ran (``[检查项目结构]``).
TRAE_LOG = (
    "TRAE_RTL 项目完整聊天记录\n生成时间: 2025-12-06\n描述: 从项目开始到当前的所有交互记录\n\n【项目启动阶段】\n\n"
    "用户: 我要迁移电脑了，应该怎么把记录迁移到另一个电脑上？\n\n"
    "TRAE: 我来帮你制定迁移方案。\n\n首先让我检查当前项目的状态：\n\n[检查项目结构]\nls -la\n\n基于项目分析，迁移方案如下。\n\n"
    "用户: 如何将当前的代码用git帮忙管理？\n\nTRAE: 我来帮你将项目用Git管理。\n\n[创建GitHub仓库]\ngit init\n\n"
    "用户: 你来帮我操作\n\nTRAE: 好的，我来帮你完成Git仓库的创建。\n\n提交变更：\ngit push origin main\n\n"
    "【技术实施阶段】\n\n用户: 帮我整理仓库\n\nTRAE: 我来帮你整理仓库。\n\n移动文件：\nmkdir -p scripts\n")


def test_labels_written_once_in_a_script_without_spaces_are_a_turn_s_text():
    (transcript,) = parse_text(TRAE_LOG)
    assert transcript.format == "labelled-dialogue"
    assert roles(transcript) == ["user", "assistant"] * 4
    assert "[检查项目结构]" in transcript.messages[1]["content"] and "首先让我检查" in transcript.messages[1]["content"]


# Two Gemma 3 1B models talking under the names they were given (Caspia-n/Gemma3-1b-vs-Gemma3-1b 5ad2d65,
# conversation.md, no licence: its layout rebuilt, the turns shortened): ``## Jake`` / ``## Paul`` 275 times under a
# title; they ask in the opening and now and then after, and trail off into short answers.
def two_names_talking(questions_later: bool) -> str:
    turns = ["Hello there! How's your day going so far? Is there anything you'd like to talk about?",
             "Hello! My day is going pretty well, thanks for asking! What's on your mind today?"]
    for index in range(22):
        later = questions_later and index % 5 == 0
        turns.append(f"That is a lovely idea about the lighthouse, part {index}." + (" What do you think?" if later else ""))
    return "# AI Conversation: Jake & Paul\n\n" + "".join(
        f"## {'Jake' if i % 2 == 0 else 'Paul'}\n\n{turn}\n\n" for i, turn in enumerate(turns))


def test_two_names_talking_long_are_a_conversation():
    (transcript,) = parse_text(two_names_talking(questions_later=True))
    assert transcript.format == "markdown-turns" and len(transcript.messages) == 24
    assert roles(transcript)[:2] == ["user", "assistant"]


def test_two_alternating_sections_whose_second_never_asks_are_a_page():
    """Twelve ``## Problem`` / ``## Solution`` pairs under a title, the first problem asked as a question, the rest
    stated, the solutions asking nothing: a page, however long (the same page with the names' side asking now and
    then is the talk above)."""
    page = "# Troubleshooting\n\n" + "".join(
        f"## Problem\n\nStep {i} fails when the cache is cold{'. Why?' if i == 0 else '.'}\n\n## Solution\n\n"
        f"Warm the cache before step {i}.\n\n" for i in range(12))
    assert not parse_text(page)
    assert not parse_text(two_names_talking(questions_later=False))


def test_a_cli_log_s_headed_intents_with_the_agent_s_lines_under_them_are_no_copied_chat():
    """simple-cli's session log (the development row ``simple-cli ... demo``: ``## Intent: <request>`` over the
    program's warnings and the agent's clack glyph lines, then ``Agent:`` and its words): the headed requests are no
    exporter's, whose heading holds the request alone."""
    run = ("## Intent: Scan the current directory and sort the images into /Photos.\n\n"
           "(node:2377) ExperimentalWarning: `--experimental-loader` may be removed in the future\n"
           "┌   SIMPLE-CLI v0.2.6\n│\n●  First, I'll list all the files in the current directory.\n│\n◇  Executed list_dir\n│\n\n")
    log = "".join(run.replace("Scan", f"Scan ({i})") + f"Agent:\nFiles to handle, round {i}: vacation.jpg. Shall I move them?\n\n"
                  for i in range(4))
    assert not parse_text(log)


# An AI debate hall's transcript in Chinese (Cameron-xuan/debate_hall 5bea4c6, debate.md, no licence: its layout rebuilt,
# the speeches shortened): each speech under ``#N [stage] speaker model time``, the judge commenting each round.
DEBATE = "".join(
    f"#{n} [{stage}] {speaker} debate-openai-stream 23:{n:02d}:59\n\n{speech}\n\n" for n, (stage, speaker, speech) in enumerate([
        ("正方立论", "正一", "评委、对方辩友，大家好。我方认为开源AI更有利于社会长远发展。"),
        ("反方立论", "反一", "评委、对方辩友，大家好。我方认为闭源AI才能保障安全，对方如何回应风险？"),
        ("评委点评（第一回合）", "评委", "正方本回合建立了开源加速创新的认知路径；反方需要补强论据。"),
        ("正方二辩质询反方", "正二", "请问对方辩友，闭源模式如何防止技术垄断？"),
        ("反方二辩质询正方", "反二", "请问对方辩友，开源权重被恶意微调怎么办？"),
        ("评委点评（第二回合）", "评委", "双方质询都抓住了对方的要害，正方的回应更具体。"),
        ("自由辩论", "正二", "对方辩友说开源带来风险，可是闭源模型的风险谁来审查？"),
        ("自由辩论", "反二", "审查需要责任主体，开源模型出了问题由谁负责？"),
        ("评委点评（第三回合）", "评委", "自由辩论交锋激烈，反方的责任论证更完整。"),
        ("反方总结陈词", "反一", "综上所述，闭源AI通过可控治理更有利于社会。"),
        ("正方总结陈词", "正一", "综上所述，开源AI通过普惠创新更有利于社会。")], 1))


def test_a_log_s_numbered_entries_naming_their_speakers():
    (transcript,) = parse_text(DEBATE)
    assert transcript.format == "banner-turns" and len(transcript.messages) == 11
    assert [m["name"] for m in transcript.messages][:3] == ["正一", "反一", "评委"]
    assert roles(transcript)[0] == "user" and set(roles(transcript)[1:]) == {"assistant", "user"}


def test_a_numbered_task_list_is_no_log_of_speakers():
    tasks = "".join(f"{n}. [{'x' if n % 2 else ' '}] {verb} the parser for case {n}\n   - it fails on empty input, see the "
                    f"issue for the traceback and the fix we agreed on\n" for n, verb in
                    enumerate(["Fix", "Add", "Fix", "Add", "Fix", "Add"], 1))
    assert not parse_text(tasks)


def test_a_long_account_handle_labels_the_person_s_turns():
    """VS Code's Copy All (amcquistan/gen-ai-assisted-amazing-scientist-ui 6630170, copilot-chat.md, its first 63 lines;
    MIT): ``adam-mcquistan_moo:`` (a handle longer than a name's word, joined by ``-`` and ``_``) / ``GitHub Copilot:``."""
    (transcript,) = parse_text((FIXTURES / "amazing-scientist-ui.copilot-chat.lines-1-63.md").read_text())
    assert transcript.format == "labelled-dialogue" and roles(transcript) == ["user", "assistant"] * 2
    assert transcript.messages[2]["content"] == "Do this again please"
