"""Issue 45, round 18, fixes after the seventeenth traces holdout's run (FIT): its text rows' classes, each read as a
class (bench/traces_holdout_17.tsv). Sources without a licence are rebuilt here from their layout, quoting a few of
their words; each names its repository and commit."""

from __future__ import annotations

from codemix.mixtures.transcript_formats import parse_text


def roles(transcript) -> list[str]:
    return [m["role"] for m in transcript.messages]


# A multi-agent planning run on a box-moving grid (KevinBian107/RPLH d8bb903, rplh_agent_3x3.txt excerpt; MIT,
# Copyright (c) 2024 Kaiwen Bian): each speaker's banner names it with its ids (``HCA_0``, ``HCA_JUDGE_0_ROW_0_COL_0``)
# and closes with a colon; a round separator of marks alone between rounds.
SEPARATOR = "-------###-------###-------###--------------###-------###-------###-------"
RPLH = f"""
{SEPARATOR}
ALL STATE STORAGE LENGTH: 1 
------###------###------HCA_0------###------###------: 
 future_step: ['move(box_blue, target_blue)', 'move(box_orange, square[1.5, 1.5])']
reasoning: The goal is to place each colored box onto its respective target. The box_blue can be moved to target_blue.
 
------###------###------SPY_DISAGREEING_LOCAL_0_ROW_0.5_COL_0.5------###------###------: 
 I am an agent coordinating the movement of boxes in this grid. For myself, I will move the blue box to a different square.
 
------###------###------HCA_JUDGE_0_ROW_0_COL_0------###------###------: 
 future_step: ['move(box_blue, square[0.5, 1.5])']
justification: The planned actions for each agent are strategic and focus on promoting cooperation.
 
{SEPARATOR}
ALL STATE STORAGE LENGTH: 2 
------###------###------HCA_1------###------###------: 
 future_step: ['move(box_orange, target_orange)']
reasoning: Each agent will perform an action that moves their respective boxes to the designated targets.
 
------###------###------NEUTRAL_DISAGREEING_LOCAL_1_ROW_1.5_COL_2.5------###------###------: 
 I am the central planner directing the agents in the grid-like field. I have objections to the proposed actions.
 
------###------###------HCA_JUDGE_1_ROW_1_COL_2------###------###------: 
 future_step: ['move(box_red, target_red)']
justification: The planned actions align with the rules and goals set for the agents, ensuring each box is moved.
 
{SEPARATOR}
ALL STATE STORAGE LENGTH: 3 
------###------###------HCA_2------###------###------: 
 future_step: ['move(box_purple, target_purple)']
reasoning: Only the purple box is left; the agent beside it moves it onto its target.
 
------###------###------SPY_DISAGREEING_LOCAL_2_ROW_2.5_COL_1.5------###------###------: 
 I think it would be wise to move the purple box to square [2.5, 2.5] instead of the target.
 
------###------###------HCA_JUDGE_2_ROW_2_COL_1------###------###------: 
 future_step: ['move(box_purple, target_purple)']
justification: Moving the purple box onto its target finishes the task; the suggestion to move it away is refused.
"""


def test_speakers_named_with_their_ids_in_banners_closed_by_a_colon():
    transcript = parse_text(RPLH)[0]
    assert transcript.format == "banner-turns"
    assert len(transcript.messages) == 9  # every speaker banner opens a message; the separators none
    assert roles(transcript) == ["user"] + ["assistant"] * 8  # no person: the opener states the task (context)
    assert transcript.messages[1]["content"].startswith("I am an agent coordinating")


# A shared ChatGPT conversation copied as text (JakeBoggs/DragonBench 5e5ed67, transcript.md, no licence: its layout
# rebuilt): the page's lines, then each answer under the model's work line (``Worked for 21s``), the page's
# ``Sources`` line after each answer; the person's follow-up between; the first prompt left out of the copy.
SHARED_COPY = """
This is a copy of a shared ChatGPT conversation

Report conversation

Worked for 21s
Assuming RSI = recursive self-improvement, the hackathon-friendly framing is: we build RL environments that test tiny,
verifiable slices of the ability to design a fantastical organism in simulation.

1. DragonORF-v0
Goal: Identify coding regions in synthetic or real genomic fragments.

Observation:
A DNA sequence and the codon table.

Action:
The predicted open reading frames.





Sources

Do they have any of these datasets for reptiles?

Worked for 39s
Yes, but only for a subset. For non-avian reptiles, the usable public datasets are much thinner than for human, mouse,
fly or zebrafish.





Sources
"""


def test_answers_opened_by_the_models_work_line_are_its_turns():
    transcript = parse_text(SHARED_COPY)[0]
    assert roles(transcript) == ["user", "user", "assistant"]  # the first answer is context: its prompt was left out
    assert transcript.extra["task_from"] == "opening_answer"
    assert transcript.messages[1]["content"] == "Do they have any of these datasets for reptiles?"
    assert "Observation:" in transcript.messages[0]["content"]  # the answer's own labels are its words
    assert not any("Sources" in m["content"] or "Worked for" in m["content"] for m in transcript.messages)


def test_durations_a_page_states_are_no_work_lines():
    page = SHARED_COPY.replace("Worked for 21s", "**Duration:** 21 seconds").replace("Worked for 39s", "*39 minutes ago*")
    assert not any(t.extra.get("layout") == "work lines" for t in parse_text(page) or [])
