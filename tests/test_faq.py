"""The bilingual FAQ matcher (advisor/faq.py) on the evaluation set and on odd input."""

from __future__ import annotations

import re
import tomllib
import unicodedata
from collections import Counter
from pathlib import Path

import pytest

from advisor.knowledge import faq

_SETS = tomllib.loads((Path(__file__).parent / "faq_eval.toml").read_text("utf-8"))
EVAL = _SETS["q"]  # paraphrases the matcher's weights and thresholds were tuned on
HELD_OUT = _SETS["held_out"]  # paraphrases never used for tuning
# Both are among the questions asked of the topics (data/faq/asked.toml): each is scored with its
# own questions left out of them (faq.answer(..., leave_out=...)), as a question never seen.
EVAL_SET, HELD_OUT_SET = "faq_eval.toml", "faq_eval.toml held_out"
# Questions of set d used below are left out in the same way: asked word for word, an example gets
# its own topic alone.
SET_D = "faq_heldout_2026_12d.toml"
TOPICS = faq.topics()
CJK = re.compile(r"[\u4e00-\u9fff]")

# A plan as the advisor makes it for 70B full fine-tuning on 16 x H800.
PLAN = {
    "gpu": "H800",
    "gpu_count": 16,
    "nodes": 2,
    "gpus_per_node": 8,
    "tp": 8,
    "pp": 1,
    "dp": 2,
    "ep": 2,
    "cp": 2,
    "zero_stage": 1,
    "mem_per_gpu_gib": 71.5,
    "gpu_mem_gib": 80,
    "days": 12.3,
    "epochs": 2,
    "gpu_hours": 4723,
    "mfu_pct": 38,
    "cpu_cores_per_node": 128,
    "ram_gib_per_node": 2048,
    "nvme_tb_per_node": 15.36,
    "storage_read_gb_s": 8,
    "network": "8x400G RoCE",
    "interconnect": "NVLink 400 GB/s",
    "power_kw_per_node": 10.2,
    "rent_total": 123456,
    "offer_option": "monthly",
    "offer_rate": 8625,
    "buy_capex": 4600000,
    "currency": "CNY",
    "decision": "rent",
    "breakeven_months": 26,
    "method": "full-finetune",
    "params_b": 70,
    "attention_pct": 12,
    "attention_fa2_factor": 1.1,
    "dpo_ref_gib_per_gpu": 3.7,
    "dpo_days_per_b_tokens": 0.41,
    "useful_life_months": 48,
    "power_kwh_month": 90000,
    "power_cost_month": 48600,
    "power_price": 0.54,
    "power_region": "Sichuan",
    "pue": 1.5,
}


def _same_words(text):
    return "".join(ch for ch in unicodedata.normalize("NFKC", text).lower() if ch.isalnum())


def test_eval_set_names_only_known_topics():
    ids = {t.id for t in TOPICS}
    assert len(ids) == len(TOPICS) == 81
    assert {q["topic"] for q in EVAL} <= ids
    assert {q["topic"] for q in HELD_OUT} == ids  # every topic has a held-out question


def test_eval_questions_are_not_the_topics_own():
    """So the word-for-word shortcut (faq.rank) never answers them: the evaluations below
    measure the retrieval itself."""
    own = {_same_words(text) for t in TOPICS for text in (t.title_en, t.title_zh, *t.questions_en, *t.questions_zh)}
    asked = [q["text"] for q in EVAL + HELD_OUT]
    assert [text for text in asked if _same_words(text) in own] == []
    assert len({_same_words(text) for text in asked}) == len(asked)  # and none is asked twice


def test_top1_on_held_out_paraphrases():
    """Questions written after the matcher was tuned (faq_eval.toml, held_out): 41 of 45
    were answered with their topic when they were written, and 41 of 45 with bm25s; 43 of 47
    with the two topics of issue 25's round four and their two questions; 44 of 47 with the
    questions asked of the topics (round nine), these 47 left out of them; the expert and context
    parallelism topics' two, scored once when they were added (2026-12-02): one right (the context
    question went to activation recompute, context parallelism second); 88 of 98 with the
    training-scheduler topic (2026-12-06): its four right at their one scoring, and "only have about
    50k rmb ..." won back from its tie with the first-run topic (83 of 94 just before it); 92 of 102
    with the hyperparameters topic (2026-12-06): its four right at their one scoring, the other 98 as before;
    105 of 118 with the remote-access topic (2026-12-07): three of its four right at their one scoring ("机器放在
    机房，我们在公司能直接连上去用吗" went to colocation), the other 114 as before (102); 108 of 122 with the
    hardware-verification topic (2026-12-07): its four right at their one scoring, three once its words were
    narrowed (no "quote", "check", "rent" or H800-against-H100 question) so that it stopped taking other sets'
    questions on quotes and NVLink ("...real H100s and not something slower?" went to the estimate topic); 114 of
    126 with the fine-tuning data in the epochs topic (2026-12-07, fiftieth session): its four right at their one
    scoring, and "our MoE has 128 experts, do all of them have to sit on every GPU ..." (the expert topic says what
    an MoE model is) and "does running validation every 500 steps eat much ..." won back."""
    ranked = {q["text"]: [topic for topic, _ in faq.rank(q["text"], leave_out=HELD_OUT_SET)] for q in HELD_OUT}
    top1 = [q for q in HELD_OUT if faq.answer(q["text"], leave_out=HELD_OUT_SET).topic == q["topic"]]
    top3 = [q for q in HELD_OUT if q["topic"] in ranked[q["text"]][:3]]
    report = "misses:\n  " + "\n  ".join(
        f"{q['text']!r}: {ranked[q['text']][:3]} (want {q['topic']})" for q in HELD_OUT if q not in top1
    )
    assert len(top1) / len(HELD_OUT) >= 0.89, report  # 113 of 126: one slip from today's 114
    assert len(top3) / len(HELD_OUT) >= 0.93, report


def test_top1_accuracy_on_eval_set():
    """174 of 184 with the questions asked of the topics, these 184 left out of them (176 before)."""
    hits, total = Counter(), Counter()
    misses = []
    for q in EVAL:
        got = faq.answer(q["text"], leave_out=EVAL_SET).topic
        total[q["lang"]] += 1
        hits[q["lang"]] += got == q["topic"]
        if got != q["topic"]:
            misses.append(f"{q['text']!r}: {got} (want {q['topic']})")
    acc = {lang: hits[lang] / total[lang] for lang in total}
    overall = sum(hits.values()) / sum(total.values())
    report = (
        f"overall {overall:.1%} ({sum(hits.values())}/{sum(total.values())}); "
        + ", ".join(f"{lang} {acc[lang]:.1%} ({hits[lang]}/{total[lang]})" for lang in total)
        + "\nmisses:\n  "
        + "\n  ".join(misses)
    )
    assert overall >= 0.90, report
    assert acc["en"] >= 0.85, report
    assert acc["zh"] >= 0.85, report
    assert acc["mixed"] >= 0.85, report


def test_example_questions_find_their_topic_without_the_word_for_word_shortcut():
    """The retrieval alone ranks nearly every example question's own topic first; the
    shortcut (faq.rank, verbatim) is there for the few that lose to a close neighbour."""
    asked = [(t.id, q) for t in TOPICS for q in t.questions_en + t.questions_zh]
    lost = [(topic, q) for topic, q in asked if faq.rank(q, verbatim=False)[0][0] != topic]
    # four lose: the fourth, "How much GPU memory does full fine-tuning a 7B model need?", is a tie with
    # LoRA vs full fine-tuning (16.44 against 16.38) since the seven topics of 2026-12-05 made memory commoner
    assert len(asked) >= 300 and len(lost) <= 4, lost
    assert all(topic in [t for t, _ in faq.rank(q, verbatim=False)[:3]] for topic, q in lost), lost


@pytest.mark.parametrize("topic", TOPICS, ids=lambda t: t.id)
def test_topic_answers_its_own_example_questions(topic):
    """The shortcut itself: a question asked word for word gets its topic, confidently."""
    for question in topic.questions_en + topic.questions_zh:
        got = faq.answer(question)
        assert got.topic == topic.id, (question, got.topic)
        assert got.confident, (question, got.score)


def test_plan_snippet_leads_when_a_plan_is_given():
    """The plan's own figure first, then the general answer (review 2026-12-01, N14)."""
    plain = faq.answer("How much host RAM do the servers need?")
    with_plan = faq.answer("How much host RAM do the servers need?", plan=PLAN)
    assert plain.topic == with_plan.topic == "ram_sizing"
    assert not plain.used_plan and "2048" not in plain.answer
    assert with_plan.used_plan and "2048 GiB" in with_plan.answer
    assert with_plan.answer.endswith(plain.answer) and "2048 GiB" in with_plan.answer.split("\n\n")[0]

    zh = faq.answer("内存要配多少？", plan=PLAN)
    assert zh.used_plan and "2048 GiB" in zh.answer and CJK.search(zh.answer)


def test_plan_with_missing_keys_renders():
    # Only the RAM figure is known: every other plan variable is None, nothing raises.
    got = faq.answer("内存要配多少？", plan={"ram_gib_per_node": 512})
    assert got.topic == "ram_sizing"
    assert "512" in got.answer
    # An empty plan leaves the general answer alone.
    empty = faq.answer("内存要配多少？", plan={})
    assert not empty.used_plan and empty.answer == faq.answer("内存要配多少？").answer


@pytest.mark.parametrize("topic", TOPICS, ids=lambda t: t.id)
def test_every_plan_snippet_renders_with_a_full_and_an_empty_plan(topic):
    plan = dict(PLAN, gpu="RTX4090", gpu_count=8) if topic.id == "consumer_cards_4090" else PLAN
    for lang in ("en", "zh"):
        assert faq.plan_note(topic.id, {}, lang) == ""
        note = faq.plan_note(topic.id, plan, lang)
        assert bool(note) == bool(topic.plan_fields), (lang, note)
        assert bool(CJK.search(note)) == (lang == "zh" and bool(note))


@pytest.mark.parametrize("text", ["asdf qwer", "", "？？？", "   ", "!!!", "hello", "谢谢"])
def test_nonsense_is_not_confident_and_offers_two_topics(text):
    got = faq.answer(text)
    assert got.confident is False
    assert len(got.alternatives) == 2
    assert got.topic not in {a.id for a in got.alternatives}
    assert got.alternatives[0].title in got.answer
    assert 0.0 <= got.score < faq.MIN_SCORE


def test_unsure_reply_says_so_in_the_reply_language():
    en = faq.answer("asdf qwer")
    assert en.lang == "en" and "don't have an answer" in en.answer
    zh = faq.answer("？？？")
    assert zh.lang == "zh" and "没有现成的答案" in zh.answer


def test_chinese_question_gets_a_chinese_answer_by_default():
    got = faq.answer("包月划算还是按量付费划算")
    assert got.topic == "monthly_vs_hourly" and got.lang == "zh"
    assert got.answer.startswith("按小时") and got.title == "包月还是按小时租，最短租期"


def test_lang_forces_the_reply_language():
    en = faq.answer("包月划算还是按量付费划算", lang="en")
    assert en.lang == "en" and en.title.startswith("Monthly") and not CJK.search(en.answer)
    zh = faq.answer("should I rent by the hour or by the month?", lang="zh")
    assert zh.lang == "zh" and CJK.search(zh.answer)
    with pytest.raises(ValueError):
        faq.answer("rent or buy?", lang="fr")


def test_mixed_and_misspelt_questions():
    assert faq.answer("FSDP和ZeRO3是不是一个东西").topic == "zero_fsdp_offload"
    assert faq.answer("loar微调7b一张24g的卡够不够").topic == "lora_vs_full_finetune"
    assert faq.answer("do we need infinband between nodes").topic == "internode_network"


def test_score_is_between_zero_and_one_and_alternatives_differ():
    for q in EVAL[:40]:
        got = faq.answer(q["text"])
        assert 0.0 <= got.score <= 1.0
        ids = [got.topic] + [a.id for a in got.alternatives]
        assert len(set(ids)) == 3


@pytest.mark.parametrize(
    "text",
    [
        "北京到上海的高铁要多久",
        "how long does it take to get from london to paris",
        "how many days until christmas",
        "我们公司年会几天",
        "how long is a marathon",
    ],
)
def test_asking_how_long_about_something_else_is_not_confident(text):
    assert faq.answer(text).confident is False


@pytest.mark.parametrize(
    "text,topic",
    [
        ("有现货的话最快几天能上线", "time_to_first_run"),
        ("多久存一次 ckpt 合适", "checkpoint_storage"),
        ("how long until training runs", "time_to_first_run"),
    ],
)
def test_asking_how_long_about_the_plan_is_answered(text, topic):
    got = faq.answer(text)
    assert got.confident and got.topic == topic


THREAD_CHATTER = [
    "thanks!",
    "ok, let's go with this",
    "@Bob can you check this with finance before Friday?",
    "sounds good",
    "lgtm",
    "谢谢",
    "好的，就这么定了",
    "收到",
    "我下午跟财务确认一下",
    "哈哈",
]


@pytest.mark.parametrize("text", THREAD_CHATTER)
def test_thread_chatter_is_not_answered_confidently(text):
    assert not faq.answer(text).confident


def test_off_topic_questions_are_refused_in_both_languages():
    """bench/faq_speed.py's 30 off-topic questions, half English, half Chinese: none is answered
    confidently (two were before SURE_SCORE: a place name or "run" shared by chance)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("faq_speed", Path(__file__).parent.parent / "bench" / "faq_speed.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    for lang in ("en", "zh"):
        assert len([q for q in bench.OFF_TOPIC if (CJK.search(q) is not None) == (lang == "zh")]) >= 10
    assert [q for q in bench.OFF_TOPIC if faq.answer(q).confident] == []


@pytest.mark.parametrize(
    "text",
    [
        "how fast can a cheetah run",
        "上海到成都的机票多少钱",
        "how do i rent a car in shenzhen",
        "成都到重庆的高铁多久",
    ],
)
def test_a_word_shared_by_chance_is_not_enough(text):
    assert not faq.answer(text).confident


@pytest.mark.parametrize(
    "text,topic",
    [
        ("is gpu time cheaper if we only train overnight?", "offpeak_night_pricing"),
        ("going from 1 node to 4 nodes, do we get 4x the speed?", None),
    ],
)
def test_numbers_and_synonyms_are_not_foreign_words(text, topic):
    answer = faq.answer(text)
    assert answer.confident and (topic is None or answer.topic == topic)


@pytest.mark.parametrize(
    "text", ["why does the plan need a parallel filesystem?", "do we need lustre?", "并行文件系统有必要吗"]
)
def test_a_parallel_file_system_is_storage_not_parallelism(text):
    answer = faq.answer(text)
    assert answer.confident and answer.topic == "storage_bandwidth"


# -- issue 25: fresh held-out sets, the plan as context, the index built before the first question ---

# The plan of the thread the bot answers under (advisor/planning/followup.py passes it).
THREAD_PLAN = {**PLAN, "gpu": "H100-SXM5-80GB", "gpu_count": 224, "nodes": 28, "days": 13, "ram_gib_per_node": 1280}


def _holds_the_facts(q: dict, got: faq.FaqAnswer) -> bool:
    """The reply holds the facts asked for: its first part or its second ("Also relevant") comes
    from the question's topic or one of the others (`also`) whose answer holds them."""
    parts = {got.topic} | ({got.second.id} if got.second else set())
    return bool(parts & {q["topic"], *q.get("also", [])})


# Every held-out set of issue 25 (tests/faq_heldout_2026_12*.toml), a set added later included.
HELD_OUT_SETS = sorted(p.name for p in Path(__file__).parent.glob("faq_heldout_2026_12*.toml"))
# Right of each set (docs/bench.md tells how each was written and scored), each scored with its own
# questions left out of the questions asked of the topics; the floors keep round nine's figures
# with one question of slack.
HELD_OUT_FLOORS = {
    # scored once: 13 of 20 before issue 25, 14 after round one; then development data (19 of 20)
    "faq_heldout_2026_12.toml": 18,
    # scored once: 17 before, 17 after round two; then development data (20)
    "faq_heldout_2026_12b.toml": 19,
    # scored once: 17 before, 16 after round three; development data since (20 in round eight; 19 in
    # round nine, "is QLoRA on a single 4090 enough for a 13B model?" no longer gets its second part)
    "faq_heldout_2026_12c.toml": 18,
    # scored once: 30 of 44 before round four, 33 after; then development data (41; 40 in round nine)
    "faq_heldout_2026_12d.toml": 39,
    # scored once, after round five: 20 of 20 (main before round four: 17)
    "faq_heldout_2026_12e.toml": 19,
    # written before round six: 32 of 44 before it, 35 at its one scoring after; 41 in round eight, 40 in nine
    "faq_heldout_2026_12f.toml": 39,
    # written before round seven: 38 of 46 before it, 39 after; development data since (44; 45 in round nine;
    # 43 once the expert and context parallelism topics came: "跑到一半挂了一台机器…" went to the SLA topic)
    "faq_heldout_2026_12g.toml": 43,
    # written before round eight: 33 of 42 before it, 34 at its one scoring after; 41 in round nine
    "faq_heldout_2026_12h.toml": 40,
    # written before round nine by a writer who saw only the topics' ids, titles and English answers
    # (not the retriever, its words or the earlier sets); scored once: 38 of 40 on main before round
    # nine, 40 after
    "faq_heldout_2026_12i.toml": 39,
    # written on 2026-12-03 from a probe's questions (helper-22), scored once: 15 of 23 (10 confident);
    # 17 after a few keywords (burn-in, 理论值), its examples in data/faq/asked.toml left out
    "faq_heldout_2026_12j.toml": 16,
    # written on 2026-12-03 by a probe before it read data/faq (helper-26), scored once: 27 of 28
    # (26 confident); 28 after the mid-run failure topic and a few pilot keywords
    "faq_heldout_2026_12k.toml": 27,
    # written on 2026-12-04 by a helper before the topics changed (questions before renting, probes 43
    # and 45's misrouted ones among them), scored once: 16 of 25 (12 confident); 25 (23 confident)
    # after the batch-size and lease-payment topics, the corrected monthly topic and a few words
    "faq_heldout_2026_12l.toml": 24,
    # written on 2026-12-03 by a helper (probe 51) before it read data/faq, scored once: 26 of 27 (25
    # confident); 27 (27 confident) after the failure topic learnt NCCL timeouts and the pilot topic
    # an acceptance-test question; 26 since the 77th topic (training loss, 2026-12-06): every term's idf
    # rose a little, the rare "ECC" most, and "ECC errors / Xid 79 GPU fell off the bus, is that the
    # vendor's problem?" went from the SLA topic to cluster monitoring by 0.1% of its score (11.18 to 11.16)
    "faq_heldout_2026_12m.toml": 26,
    # written on 2026-12-07 by a helper (helper-118) that read nothing of the repository: what a concept
    # means or how it works; scored once: 25 of 25 (21 confident), before the parallelism, MFU and MoE
    # topics learnt the virtual pipeline, sequence parallelism, sparsity and all-reduce vs all-to-all
    "faq_heldout_2026_12n.toml": 24,
}
# A set added later, until its one scoring sets its floor: three in four right, so the test runs on it
# and catches a broken retrieval without deciding the figure the scoring reports.
NEW_SET_SHARE = 0.75


@pytest.mark.parametrize("name", HELD_OUT_SETS)
def test_held_out_sets(name):
    """A question counts when the answer is its topic or one of the others (`also`) whose answer holds
    the facts, in the reply's first part or its second, under the thread's plan."""
    questions = tomllib.loads((Path(__file__).parent / name).read_text("utf-8"))["q"]
    right = [q for q in questions if _holds_the_facts(q, faq.answer(q["text"], plan=THREAD_PLAN, leave_out=name))]
    misses = [q["text"] for q in questions if q not in right]
    assert name not in HELD_OUT_FLOORS or {faq.language_of(q["text"]) for q in questions} == {"en", "zh"}
    assert len(right) >= HELD_OUT_FLOORS.get(name, NEW_SET_SHARE * len(questions)), misses


def test_the_earlier_held_out_sets_are_all_there():
    assert set(HELD_OUT_FLOORS) <= set(HELD_OUT_SETS)


@pytest.mark.parametrize(
    "question,topic",
    [
        ("how fast should the storage be?", "storage_bandwidth"),  # found GPUDirect Storage before
        ("why is my multi-node training slow?", "multi_node_scaling_loss"),  # the network topic before
    ],
)
def test_the_review_questions_find_their_topic(question, topic):
    assert faq.answer(question, plan=THREAD_PLAN).topic == topic


def test_a_number_of_the_plan_leads_to_the_topic_that_speaks_of_it():
    terms = faq._query_terms("why 1280 GiB of RAM per server?", THREAD_PLAN)
    assert terms.get("@plan:ram_gib_per_node")
    assert "@plan:days" in faq._query_terms("why does it take 13 days?", THREAD_PLAN)
    assert not any(t.startswith("@plan:") for t in faq._query_terms("why does it take 13 days?", None))
    assert faq.answer("why 1280 GiB of RAM per server?", plan=THREAD_PLAN).topic == "ram_sizing"


def test_a_quoted_number_stands_only_for_plan_fields_of_its_unit():
    """Round seven: on the tuning set under the plan, "70b" read as 71.5 GiB per GPU, "8 gpu" as
    8 GB/s of storage and "13B" as 13 days; the unit after a number now says which fields it can be."""
    assert faq._plan_fields_asked("how big is a checkpoint for a 70b run", THREAD_PLAN) == ["params_b"]
    assert faq._plan_fields_asked("is 2tb local ssd enough for an 8 gpu node", THREAD_PLAN) == ["gpus_per_node"]
    assert faq._plan_fields_asked("13B模型大概要什么配置", THREAD_PLAN) == []
    assert faq._plan_fields_asked("is 1.28 TB of RAM per box a lot?", THREAD_PLAN) == ["ram_gib_per_node"]
    assert set(faq._plan_fields_asked("why 8?", THREAD_PLAN)) == {"gpus_per_node", "tp", "storage_read_gb_s"}


def test_a_plan_number_does_not_pull_a_question_its_words_answer_elsewhere():
    """The plan's 70B led "is FP8 stable enough for a 70B fine-tune..." (development set f) to the
    topic about 70B models; its other words stand clear on precision, so the number steps aside.
    Where the words alone are not sure, the number still leads (1280 GiB: RAM sizing)."""
    question = "is FP8 stable enough for a 70B fine-tune or do we stay on bf16?"
    assert "70b" in faq._query_terms(question, THREAD_PLAN).plan_words
    assert faq.answer(question, plan=THREAD_PLAN).topic == "precision_fp8_bf16"
    assert faq.answer("why 1280 GiB of RAM per server?", plan=THREAD_PLAN).topic == "ram_sizing"
    # "take ... days" only asks how long: it points nowhere, so the plan's days keep the question off
    # the topic about lead times
    assert faq.answer("why does it take 13 days?", plan=THREAD_PLAN).topic != "time_to_first_run"


def test_a_plan_figure_asked_to_change_goes_to_the_topics_that_change_it():
    """Round eight: a quoted GPU memory figure led to the topic that explains it (why 70B needs 8
    GPUs) even when the question asks how to bring it down; asked so, or with memory short (OOM), it
    stands for the topics that tell how (`levers`). Asked why, it still stands for the figure."""
    asked = faq._query_terms("we're at 71.5 GB per GPU, how do we bring it down?", THREAD_PLAN)
    assert "@lever:mem_per_gpu_gib" in asked and "@plan:mem_per_gpu_gib" not in asked
    assert "@plan:mem_per_gpu_gib" in faq._query_terms("why 71.5 GB per GPU?", THREAD_PLAN)
    assert "@lever:mem_per_gpu_gib" not in faq._query_terms("we're at 71.5 GB per GPU, how do we bring it down?", None)
    # the figure and its unit ("13 days") stand for the topics that change the days, not those of lead time
    assert faq.answer("13 days is too long, how do we bring it down?", plan=THREAD_PLAN).topic in {
        "data_size_to_gpu_count",
        "training_time_estimate",
    }
    # development data (sets d and g): the figure pulled both to why_70b_needs_8_gpus before
    for question in (
        "we keep hitting OOM at 8k context on the 80GB cards, what are our options?",
        "we're at 71.5 of 80 GB per card, any cheap tricks to get some headroom back?",
    ):
        # or, since 2026-12-04, the out-of-memory topic, whose steps name recompute and sharding
        topics = {"activation_recompute", "zero_fsdp_offload", "out_of_memory"}
        assert faq.answer(question, plan=THREAD_PLAN).topic in topics, question


@pytest.mark.parametrize(
    "question,topics",
    [
        # round eight's everyday words, one family each; on main before it every one of these was
        # unsure or went elsewhere
        ("are we billed while the machines sit idle?", {"billing_granularity"}),
        ("机器闲置的时候照样扣钱吗", {"billing_granularity"}),
        ("先租一台试试水，测什么", {"pilot_plan"}),
        ("from signing to the first loss curve, how long?", {"time_to_first_run"}),
        ("显存不够，挤一挤能不能塞下", {"activation_recompute", "zero_fsdp_offload", "out_of_memory"}),
        ("what's the quickest way to get it to their cluster", {"data_transfer_ingress"}),
        ("机器挂了，服务商多久能修好", {"sla_failure_repair"}),
        ("任务中途挂掉，前面跑的是不是白费了", {"checkpoint_storage", "failure_mid_run"}),
        ("one of the nodes keeps falling over, is that on the vendor?", {"sla_failure_repair"}),
        ("最少要租几个月", {"monthly_vs_hourly"}),
        ("we doubled the nodes and it didn't get twice as fast", {"multi_node_scaling_loss"}),
        # short questions under a plan (fortieth session: each named its topic only as a guess)
        ("需要几个运维", {"ops_staffing"}),
        ("数据要传多久", {"data_transfer_ingress"}),
    ],
)
def test_everyday_words_of_failure_billing_pilots_and_memory(question, topics):
    got = faq.answer(question, plan=THREAD_PLAN)
    assert got.confident and _holds_the_facts({"topic": "", "also": sorted(topics)}, got), (got.topic, got.second)


def test_the_planning_processes_build_the_index_before_the_first_question(tmp_path):
    """Review 2026-12-01 (N13): the first FAQ answer after a start took 4 s (the index was built
    on first use). bot.answers.ready, which every planning process runs when it starts, builds it."""
    import os
    import subprocess
    import sys

    code = (
        "from bot import answers; from advisor.knowledge import faq; answers.ready(); "
        "print(faq._index.cache_info().currsize, faq._asked.cache_info().currsize)"
    )
    env = {**os.environ, "GPU_ADVISOR_DB": str(tmp_path / "ready.db")}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "1 1", out.stderr[-2000:]


# -- issue 25, round four: aspects, key idf, two new topics, a fourth held-out set ---------------


def test_the_forms_of_one_word_are_one_aspect_and_other_words_are_others():
    terms = faq._query_terms("PCIe版的卡能做张量并行吗")
    forms = ["张量", "并行", "张量并行", "@tensor_parallel", "@parallel"]
    assert {terms.aspect[t] for t in forms} == {terms.aspect["张量并行"]}
    assert terms.aspect["pcie"] == terms.aspect["@pcie"] != terms.aspect["张量并行"]
    english = faq._query_terms("can a pcie box do tensor parallel")
    assert english.aspect["tensor"] == english.aspect["parallel"] == english.aspect["@tensor_parallel"]
    assert english.aspect["pcie"] != english.aspect["tensor"]


def test_an_aspect_in_many_forms_does_not_outweigh_two_aspects():
    """Summed term by term (a plain dict: every term its own aspect), tensor parallelism's five
    forms bring the parallelism topic level with NVLink vs PCIe in the topics' own text (ahead of it
    with 52 topics; half a percent behind since the 54th changed every idf a little, under two since
    the thirty-fourth session's answers (reservations abroad, 910B against H20) did, under six since the
    fiftieth's lengthened the parallelism topic (virtual pipeline, sequence parallelism)); by aspect, the
    topic that holds both wins clearly. (The question is set d's, left out of the questions asked,
    else it is answered word for word; those asked of NVLink vs PCIe in other sets ("PCIe版的卡能做
    张量并行吗") lead there term by term too.)"""
    question = "pcie 机型做 tensor parallel 行不行"
    terms = faq._query_terms(question)
    ids = [t.id for t in TOPICS]
    by_term = faq._scores(dict(terms), SET_D).own.sum(axis=0)
    assert by_term[ids.index("parallelism_strategies")] >= 0.94 * by_term.max()
    by_aspect = faq._scores(terms, SET_D).own.sum(axis=0)
    assert ids[int(by_aspect.argmax())] == "nvlink_vs_pcie"
    assert by_aspect[ids.index("parallelism_strategies")] <= 0.9 * by_aspect.max()
    assert faq.rank(question, terms, leave_out=SET_D)[0][0] == "nvlink_vs_pcie"


def test_a_word_only_answers_mention_weighs_more_than_one_topics_are_about():
    """Of two words the same number of topics mention, the one fewer topics are about (their titles,
    questions, keywords) weighs more: "pcie" runs through many answers, few topics are about it."""
    index = faq._index()
    everywhere = Counter(term for doc in index.docs for term in doc)
    in_keys = Counter(term for doc in index.keydocs for term in doc)
    assert everywhere["pcie"] >= 10 and in_keys["pcie"] <= 3 and index.key_idf["pcie"] > 1.4
    words = [t for t in everywhere if t.isascii() and t.isalpha() and everywhere[t] >= 10]
    pairs = [(a, b) for a in words for b in words if everywhere[a] == everywhere[b] and in_keys[a] < in_keys[b]]
    assert len(pairs) >= 20 and all(index.key_idf[a] > index.key_idf[b] >= 1.0 for a, b in pairs)
    assert index.key_idf["@plan:days"] == 1.0  # plan fields are keys only


@pytest.mark.parametrize(
    "question,topic",
    [
        ("how long does it take to push 20TB to the cluster over a 1 Gbit line?", "data_transfer_ingress"),
        ("数据从办公室传到云上要多久", "data_transfer_ingress"),
        ("can old and new GPUs share one training job?", "mixed_gpu_generations"),
        ("老卡和新卡能混训吗", "mixed_gpu_generations"),
        # the seven of 2026-12-05, in the words two user probes asked them (each had been another topic)
        ("how many GPUs do I need to serve a 70B model?", "inference_serving"),
        ("上线推理要几张H20", "inference_serving"),
        ("what does the KV cache cost at 32k context?", "inference_serving"),
        ("can we split an A100 into 7 for the interns?", "gpu_sharing"),
        ("grafana dashboards for gpus?", "cluster_monitoring"),
        ("我们要配几个SRE", "ops_staffing"),
        ("杭州有算力补贴吗", "compute_vouchers"),
        ("算力券能抵多少租金", "compute_vouchers"),
        ("摩尔线程S4000能跑训练吗", "other_domestic_gpus"),
        ("H100 NVL和SXM训练差多少", "gpu_variants"),
        ("4090之间没有NVLink会不会很慢", "consumer_cards_4090"),
    ],
)
def test_the_new_topics_answer_their_questions(question, topic):
    assert faq.answer(question).topic == topic


def test_a_voucher_and_a_failure_rate_are_worked_on_the_plans_own_numbers():
    """The voucher's share comes off the plan's rent (CNY only), and Meta's interruption rate is
    scaled to the plan's GPUs: 419 in 54 days on 16,384 GPUs is 3.2 a month on 224."""
    plan = dict(THREAD_PLAN, rent_total=1_000_000, currency="CNY")
    vouchers = faq.answer("算力券能抵多少租金", plan=plan)
    assert vouchers.topic == "compute_vouchers" and vouchers.used_plan
    assert "¥800,000" in vouchers.answer and "¥700,000" in vouchers.answer
    dollars = faq.answer("can compute vouchers pay our rent?", plan=dict(plan, currency="USD"))
    assert dollars.topic == "compute_vouchers" and not dollars.used_plan
    staffing = faq.answer("how many ops engineers do we need for this?", plan=plan)
    assert staffing.topic == "ops_staffing" and "about 3.2 interruptions a month" in staffing.answer


def test_a_text_of_the_plan_quoted_stands_for_its_field_and_8x400g_is_no_8():
    terms = faq._query_terms("why did it pick 8x400G for the network?", THREAD_PLAN)
    assert "@plan:network" in terms
    assert not {"@plan:gpus_per_node", "@plan:tp", "@plan:storage_read_gb_s"} & set(terms)  # not "8"
    assert "@plan:network" not in faq._query_terms("why did it pick RoCE for the network?", THREAD_PLAN)
    assert "@plan:network" not in faq._query_terms("why did it pick 8x400G for the network?", None)


# -- issue 25, round six: a question that spans two topics gets a second part ---------------------


@pytest.mark.parametrize(
    "question,first,second",
    [
        # development data (faq_heldout_2026_12d.toml): the topic that holds the fact ranked second
        ("ckpt放本地盘还是放共享存储", "local_nvme", "checkpoint_storage"),
    ],
)
def test_a_question_that_spans_two_topics_gets_both(question, first, second):
    got = faq.answer(question, plan=THREAD_PLAN, leave_out=SET_D)
    assert got.confident and got.second is not None and got.second.id == second, (got.topic, got.second)
    assert first is None or got.topic == first
    topic = next(t for t in TOPICS if t.id == second)
    lang = faq.language_of(question)
    last = got.answer.split("\n\n")[-1]
    assert last.startswith("另外，关于“" if lang == "zh" else "Also relevant – ") and topic.title(lang) in last
    assert topic.brief(lang) in last and faq.plan_note(second, THREAD_PLAN, lang) in last
    assert bool(CJK.search(last)) == (lang == "zh")


def test_a_billing_question_in_renting_words_finds_billing_first():
    """ "按量付费是按分钟扣还是按小时扣" was answered by the monthly-vs-hourly topic with billing as its second
    part; 按量付费 and 按分钟 are billing words now (sixteenth session), and billing answers it alone."""
    got = faq.answer("按量付费是按分钟扣还是按小时扣", plan=THREAD_PLAN, leave_out=SET_D)
    assert got.confident and got.topic == "billing_granularity", (got.topic, got.second)


def test_the_second_part_speaks_the_replys_language():
    got = faq.answer("ckpt放本地盘还是放共享存储", lang="en", plan=THREAD_PLAN, leave_out=SET_D)
    assert got.second and got.answer.split("\n\n")[-1].startswith("Also relevant – Where checkpoints go: ")
    assert not CJK.search(got.answer)


def test_a_confident_single_topic_answer_stays_as_it_was():
    """The runner-up far behind, or holding nothing the best topic lacks: no second part, and the
    text is the plan note and the topic's answer alone."""
    for question, topic in [
        ("How much host RAM do the servers need?", "ram_sizing"),
        ("why NVLink?", "nvlink_vs_pcie"),
    ]:
        got = faq.answer(question, plan=THREAD_PLAN)
        body = next(t for t in TOPICS if t.id == topic).answer_en
        assert got.topic == topic and got.confident and got.second is None
        assert got.answer == f"{faq.plan_note(topic, THREAD_PLAN, 'en')}\n\n{body}"


def test_no_second_part_for_chatter_off_topic_or_unsure_replies():
    import importlib.util

    spec = importlib.util.spec_from_file_location("faq_speed", Path(__file__).parent.parent / "bench" / "faq_speed.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    for text in THREAD_CHATTER + bench.OFF_TOPIC + ["asdf qwer", "谢谢"]:
        got = faq.answer(text, plan=THREAD_PLAN)
        assert got.second is None and "Also relevant" not in got.answer and "另外，关于" not in got.answer, text
    unsure = [q for q in EVAL if not faq.answer(q["text"], leave_out=EVAL_SET).confident]
    assert unsure and all(faq.answer(q["text"], leave_out=EVAL_SET).second is None for q in unsure)


def test_second_parts_are_few_on_the_tuning_set():
    """A second part is for questions that span two topics: on the tuning set it goes to 14 of the
    175 questions answered right (docs/bench.md); a rule that fires on many more is noise."""
    got = [(q, faq.answer(q["text"], leave_out=EVAL_SET)) for q in EVAL]
    right = [(q, a) for q, a in got if a.topic == q["topic"]]
    assert sum(a.second is not None for _, a in right) <= 0.12 * len(right)
    assert sum(_holds_the_facts(q, a) for q, a in got) > len(right)  # and it answers some that the first part missed


@pytest.mark.parametrize("topic", TOPICS, ids=lambda t: t.id)
def test_every_topic_has_a_short_brief_in_both_languages(topic):
    """The second part is one sentence: long enough to say something, short enough to stay a side note."""
    en, zh = topic.brief("en"), topic.brief("zh")
    assert 40 <= len(en) <= 300 and en.endswith((".", ")")) and not CJK.search(en), en
    assert 20 <= len(zh) <= 150 and zh.endswith("。") and CJK.search(zh), zh


def test_the_slack_reply_shows_the_second_part_as_its_own_paragraph():
    from bot import blocks

    got = faq.answer("ckpt放本地盘还是放共享存储", plan=THREAD_PLAN, leave_out=SET_D)
    msg = blocks.faq(got.answer)
    shown = "\n\n".join(b["text"]["text"] for b in msg["blocks"])
    assert shown.split("\n\n")[-1].startswith("另外，关于“checkpoint存在哪里”：")
    assert len(got.answer) <= 1500 and blocks.visible_chars(msg) <= 1500


# -- issue 25, round nine: stems, and the questions asked of each topic -------------------------


def test_inflections_meet_their_stem_and_the_forms_of_a_synonym_group():
    """Synonym forms are matched by Snowball's stems ("dying" and "died" are "die", "saving" is "save"),
    so a form met in another inflection gives its concept ("crashed": crash/crashes; "locking in":
    locked in; "redoing": redo). On main before round nine none of these four questions had one."""
    assert faq._form_stem("dying") == faq._form_stem("died") == faq._form_stem("die")
    assert faq._form_stem("saving") == faq._form_stem("save")
    assert {"@failure", "@resume"} <= set(faq._query_terms("a node crashed"))
    assert "@failure" in faq._query_terms("the job keeps dying")
    assert "@contract" in faq._query_terms("before locking in the big order")
    assert "@resume" in faq._query_terms("we would be redoing a week of work")


@pytest.mark.parametrize(
    "question,topic",
    [
        # written for round nine, in no set; on main before it: time to first run, and checkpoints
        ("two nodes crashed last week, how fast does the vendor have to fix them?", "sla_failure_repair"),
        ("our job keeps hanging on one node, who fixes that?", "sla_failure_repair"),
    ],
)
def test_a_failure_in_another_inflection_finds_the_repair_topic(question, topic):
    got = faq.answer(question, plan=THREAD_PLAN)
    assert got.confident and got.topic == topic, (got.topic, got.second)


def test_the_questions_asked_are_the_labelled_sets():
    """data/faq/asked.toml holds, set by set and in their order, the questions and topics of the sets
    it names, so leaving a set out leaves out exactly its questions; a set is added only after its
    one honest scoring."""
    asked = tomllib.loads((Path(__file__).parent.parent / "data" / "faq" / "asked.toml").read_text("utf-8"))["q"]
    names = list(dict.fromkeys(q["set"] for q in asked))
    sets = {EVAL_SET: EVAL, HELD_OUT_SET: HELD_OUT}
    for name in names:
        if name not in sets:
            sets[name] = tomllib.loads((Path(__file__).parent / name).read_text("utf-8"))["q"]
        want = [(q["text"], q["topic"]) for q in sets[name]]
        assert [(q["text"], q["topic"]) for q in asked if q["set"] == name] == want, name
    assert {q["topic"] for q in asked} <= {t.id for t in TOPICS}
    # every set scored once is among them, but set i: as examples its questions cost set g two
    # and gained f one (284 of 326 right on the nine sets with it, 285 without)
    assert set(HELD_OUT_FLOORS) - {"faq_heldout_2026_12i.toml"} <= set(names)


@pytest.mark.parametrize(
    "name,question,topic",
    [
        # set h, whose words no round's vocabulary was built for: the topics' own text leads elsewhere
        # (why 70B needs 8 GPUs, GPU memory bandwidth); the questions other sets asked of the
        # memory-saving topics ("headroom", "tricks", "显存快顶满了", "压下来") find them
        (
            "faq_heldout_2026_12h.toml",
            "memory is super tight at 71.5 GB per card, what knobs can we turn to free some up?",
            "activation_recompute",
        ),
        ("faq_heldout_2026_12h.toml", "每卡71.5G快满了，有什么办法把显存压下来", "activation_recompute"),
    ],
)
def test_a_question_like_those_asked_before_finds_their_topic(name, question, topic):
    """The question's own set left out, so it is unseen: its topic comes from questions asked before."""
    terms = faq._query_terms(question, THREAD_PLAN)
    scores = faq._scores(terms, name)
    ids = [t.id for t in TOPICS]
    assert ids[int(scores.own.sum(axis=0).argmax())] != topic  # the topics' own text alone misses it
    assert faq._verbatim(question, name) is None
    assert faq.answer(question, plan=THREAD_PLAN, leave_out=name).topic == topic


def test_leaving_a_set_out_leaves_out_its_questions():
    question = "can we kick the tyres on a couple of nodes for a week before locking in the big order?"
    assert faq._verbatim(question) is not None  # asked word for word: its topic, as any example
    assert faq._verbatim(question, "faq_heldout_2026_12h.toml") is None
    assert faq._verbatim(question, "faq_heldout_2026_12g.toml") is not None


def test_a_word_only_an_asked_question_holds_does_not_make_an_off_topic_question_sure():
    """成都 is in one asked question ("成都电价真的便宜吗"); confidence reads the topics' own text, where an
    off-topic question about a flight to Chengdu stays unsure."""
    got = faq.answer("上海到成都的机票多少钱")
    assert not got.confident and got.score < faq.SURE_SCORE


# -- a user study's follow-ups that went to the wrong topic (2026-12-02) -------------------------------


@pytest.mark.parametrize(
    "question,topics,confident,holds",
    [
        # each went elsewhere before (in brackets); `holds`: a phrase the reply must carry, from the
        # answer text added for it; `confident` None: the right topic first is enough (a near tie)
        ("能用竞价实例省钱吗", {"offpeak_night_pricing"}, True, "竞价"),  # small_budget
        ("A800 vs H800 差多少", {"h20_vs_h800_vs_h100"}, True, "3倍"),  # export controls
        ("A800 or H800 for a 13B full finetune", {"h20_vs_h800_vs_h100"}, None, "about 3×"),  # export controls
        ("do we really need NVLink if we're only doing LoRA on a 7B", {"nvlink_vs_pcie"}, True, "PCIe"),  # LoRA vs full
        ("what if we have 4 weeks instead of 2", {"data_size_to_gpu_count"}, True, "GPU-hours about the same"),
        ("工期放到两个月能便宜多少", {"data_size_to_gpu_count"}, True, "按整月"),  # unrelated topics before
        ("how should we preprocess / tokenize the data before training", {"data_transfer_ingress"}, True, "20 seconds"),
        ("1TB文本tokenize要多久", {"data_transfer_ingress"}, True, "20秒"),  # data size to GPU count
        ("whats the lead time on H100s in china rn", {"time_to_first_run"}, True, "weeks to months"),  # export
        ("GPU利用率一直上不去 data loader 卡住", {"cpu_cores_per_gpu", "storage_bandwidth"}, True, None),  # MFU
        ("租赁合同有哪些坑要注意", {"sla_failure_repair"}, True, "押金"),  # right topic, no contract terms
        ("how much vram for full finetune of 7b", {"memory_per_param"}, True, "16 bytes"),  # LoRA vs full
        ("单机需要IB吗", {"internode_network"}, True, "单台服务器不需要"),  # expert parallelism, unsure
        # a near tie since the tenth held-out set's examples joined the asked index (margin 14% of
        # the 15% a confident answer needs over "estimate vs measured"; docs/bench.md)
        ("how many tokens per second per GPU should we expect", {"data_size_to_gpu_count"}, None, "9,400"),
        ("4090能做70b的lora吗", {"consumer_cards_4090"}, True, "35-40GB"),  # QLoRA
        ("why do you recommend 64 GPUs, that seems like a lot", {"data_size_to_gpu_count"}, True, None),  # unsure
        # a near tie since the used-GPU topic joined (its margin over shared bandwidth 14.98% of the
        # 15% a confident answer needs: each topic added moves every term's idf a little)
        ("4机32卡怎么测nccl带宽", {"internode_network", "pilot_plan"}, None, "nccl-tests"),
    ],
)
def test_follow_ups_a_user_study_found_misrouted(question, topics, confident, holds):
    got = faq.answer(question)
    assert got.topic in topics, (got.topic, got.second, got.score)
    assert confident is None or got.confident == confident, (got.topic, got.score)
    assert holds is None or holds in got.answer, got.answer


@pytest.mark.parametrize(
    "text",
    [
        "is fp8 safe for finetuning a 70b model?",
        "70b模型全量微调用fp8安全吗？",
        "fp8微调70b模型安全吗？",
        "does fp8 training diverge?",
    ],
)
def test_whether_fp8_is_safe_is_the_precision_topic_and_says_how_to_check(text):
    # a model size in the question had drawn the "why 70B needs 8 GPUs" topic
    got = faq.answer(text)
    assert got.topic == "precision_fp8_bf16" and got.confident
    assert "0.25%" in got.answer and "BF16" in got.answer


@pytest.mark.parametrize(
    "question",
    ["can we use our own A800s for part of it? we have 8", "我们有8张A800，能和租的H800一起训吗"],
)
def test_own_cards_for_part_of_the_job_is_mixing_generations_not_export_rules(question):
    # the GPU names had drawn the export-rules topic (a800 is one of its keywords) or H20 against H800
    got = faq.answer(question)
    assert (got.topic, got.confident) == ("mixed_gpu_generations", True)


@pytest.mark.parametrize(
    "question",
    ["is 600B tokens enough for 3B?", "what about chinchilla optimal?", "3B用6000亿token够吗", "预训练要多少数据"],
)
def test_how_many_tokens_to_pretrain_on_has_its_topic(question):
    # under a plan these had got "I could not tell": no topic spoke of tokens per parameter
    found = faq.answer(question)
    assert found.topic == "pretraining_tokens" and found.confident
    assert "20" in found.answer and ("Chinchilla" in found.answer)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_plans_time_in_a_topics_note_is_in_minutes_or_hours_when_short(lang):
    # a 22-minute plan had been "about 0.0 days"
    plan = {"days": 0.015, "gpu_count": 4, "gpu": "H800-SXM-80GB", "gpu_hours": 1.5, "mfu_pct": 48, "params_b": 8}
    timed = [t.id for t in faq.topics() if "days" in (t.plan_en + t.plan_zh)]
    assert len(timed) >= 4
    for topic in timed:
        note = faq.plan_note(topic, plan, lang)
        assert "0.0" not in note
        if "duration" in faq.topics()[[t.id for t in faq.topics()].index(topic)].plan_en:
            assert ("22 minutes" if lang == "en" else "22 分钟") in note, topic


@pytest.mark.parametrize("question", ["4090能不能做多机训练", "能不能用4090训练70B"])
def test_a_yes_or_no_question_is_no_negation(question):
    # "能不能" had put "不能" among the content words: "4090能不能做多机训练" was unsure where
    # "4090多机能跑吗" was sure
    got = faq.answer(question)
    assert got.topic == "consumer_cards_4090" and got.confident


@pytest.mark.parametrize(
    "question,lang,global_words,china_words",
    [
        ("how much does electricity cost?", "en", "9.77 cents a kWh", "Inner Mongolia"),
        ("电费一个月多少", "zh", "9.77美分", "内蒙古"),
        ("should we rent or buy?", "en", "At US prices an 8×H100 server", "2026 China rental prices"),
        ("租还是买", "zh", "按美国价格", "国内租金水平"),
    ],
)
def test_a_plan_priced_in_dollars_gets_the_global_markets_figures(question, lang, global_words, china_words):
    # a USD plan's electricity answer had quoted China's regional tariffs under its own US rate
    usd = faq.answer(question, lang=lang, plan={**THREAD_PLAN, "currency": "USD"})
    cny = faq.answer(question, lang=lang, plan={**THREAD_PLAN, "currency": "CNY"})
    alone = faq.answer(question, lang=lang)
    assert usd.topic == cny.topic == alone.topic and usd.confident
    assert global_words in usd.answer and china_words not in usd.answer
    assert china_words in cny.answer and china_words in alone.answer and global_words not in cny.answer


def test_a_small_budget_under_a_dollar_plan_is_priced_on_us_marketplaces():
    # US-buyer probe: "what gpu would you recommend for a small budget?" under a USD plan had quoted
    # AutoDL's yuan prices
    usd = faq.answer("what gpu would you recommend for a small budget?", plan={**THREAD_PLAN, "currency": "USD"})
    assert usd.topic == "small_budget" and "RunPod" in usd.answer and "AutoDL" not in usd.answer


@pytest.mark.parametrize("method,base", [("lora", "66 GB in bf16"), ("qlora", "17 GB in 4-bit NF4")])
def test_memory_per_parameter_under_lora_counts_the_frozen_base(method, base):
    # US-buyer probe: "is 32GB vram enough?" under a 32.8B LoRA led with "full mixed-precision AdamW
    # state is about 525 GB", the full fine-tune's
    plan = {**THREAD_PLAN, "params_b": 32.8, "method": method, "mem_per_gpu_gib": 31.9, "gpu_mem_gib": 40.0}
    got = faq.answer("how many bytes per parameter does training need?", plan=plan)
    assert got.topic == "memory_per_param" and base in got.answer
    assert "full mixed-precision AdamW state is about" not in got.answer


@pytest.mark.parametrize(
    "text,topic",
    [
        # "A还是B" asks as a question does: these had been refused ("我没看懂“还”")
        ("发票开6%还是13%", "tax_invoices"),
        ("训练用bf16还是fp8", "precision_fp8_bf16"),
        ("包月还是按小时", "monthly_vs_hourly"),
    ],
)
def test_a_chinese_either_or_question_as_a_first_message_is_the_faqs(text, topic):
    from advisor.planning.advice import faq_instead
    from advisor.request.parser import RequestError, parse

    with pytest.raises(RequestError) as refused:
        parse(text)
    found, reply = faq_instead(text, None, refused.value)
    assert found.topic == topic and found.confident and reply.startswith(found.answer)


@pytest.mark.parametrize("text,topic", [("国产卡能训大模型吗", "domestic_accelerators")])
def test_a_question_with_no_model_near_two_topics_is_the_faqs_not_asked_for_a_size(text, topic):
    # it had been asked for a model size; its topic stands close to the next (Ascend, the other
    # domestic chips), so the answer is the unsure one that names them
    from advisor.planning.advice import faq_instead
    from advisor.request.parser import RequestError, parse

    with pytest.raises(RequestError) as refused:
        parse(text)
    assert refused.value.kind == "missing_size"
    found, reply = faq_instead(text, None, refused.value)
    assert found.topic == topic and found.score >= faq.SURE_SCORE and found.answer in reply
    # one that asks what only a plan answers is still asked for its size
    with pytest.raises(RequestError) as sized:
        parse("how many H100 do I need?")
    assert faq_instead("how many H100 do I need?", None, sized.value) is None


@pytest.mark.parametrize(
    "question,topic",
    [
        # asked in a thread, they had drawn the menu with the right topic only named as the nearest
        ("任务挂了以后怎么接着训", "failure_mid_run"),
        ("the run crashed at step 40k, how do we resume?", "failure_mid_run"),
    ],
)
def test_resuming_after_a_crash_is_the_failure_topic(question, topic):
    got = faq.answer(question)
    assert got.topic == topic and got.confident


@pytest.mark.parametrize(
    "question,lang",
    [("MoE模型训练显存按总参数算还是激活参数算", "zh"), ("for an MoE, size memory by total or active params?", "en")],
)
def test_moe_memory_is_said_to_follow_the_total_parameters(question, lang):
    got = faq.answer(question, lang=lang)
    assert got.topic == "memory_per_param"
    assert ("671B" in got.answer) and ("total" in got.answer if lang == "en" else "总参数" in got.answer)


@pytest.mark.parametrize("question", ["can we fine-tune qwen on 910B?", "910B能跑qwen微调吗"])
def test_a_model_familys_name_does_not_pull_a_question_to_a_topic_that_names_it_in_passing(question):
    """ "qwen" had made the MoE-speed topic (whose example questions name Qwen3-30B-A3B) the answer to
    an Ascend question, or its second part."""
    reply = faq.answer(question)
    assert reply.topic == "domestic_accelerators"
    assert reply.second is None or reply.second.id != "moe_finetune_speed"


@pytest.mark.parametrize(
    "question",
    ["what if we start next month, will prices drop?", "H100租金还会跌吗", "should we wait for prices to fall?"],
)
def test_where_prices_are_going_is_the_trend_topic_with_the_plans_rent_at_stake(book, question):
    # these had been the lead-time topic, and under a plan the H100's offers on record
    from advisor.planning.advice import advise, plan_context
    from advisor.planning.followup import follow_up
    from advisor.text.render import money

    text = "qwen2.5-72b full-finetune 2B tokens 14d usd"
    summary = plan_context(advise(text, book=book))
    reply = follow_up(text, summary, question, book=book)
    assert reply.kind == "question" and reply.faq["topic"] == "price_trend"
    assert money(summary["rent_total"] * 0.1, "USD") in reply.text  # what a 10% move is worth on this plan
    assert ("2.95" in reply.text) and ("87,000" in reply.text or "8.7万" in reply.text)


def test_downloading_is_the_data_transfer_topic():
    # it had gone to "why 70B needs 8 GPUs" on the model's size
    assert faq.answer("how long does it take to download a 70B model?").topic == "data_transfer_ingress"


@pytest.mark.parametrize("question", ["do we need kubernetes or slurm?", "用k8s还是slurm"])
def test_a_scheduler_asked_is_the_training_scheduler_topic(question):
    # they had been unsure (ops staffing, the GPU comparison), then the sharing topic, which names Slurm
    # and Kubernetes in passing; since the 75th topic (2026-12-06) the one on running training on them
    got = faq.answer(question)
    assert got.topic == "training_scheduler" and got.confident and "Slurm" in got.answer


@pytest.mark.parametrize(
    "question,topic",
    [
        ("would more data help?", "epochs"),  # had been data security, unsure
        ("would more GPUs help?", "gpu_count_not_everything"),  # had been ops staffing, unsure
        ("数据放哪里训练最快", "local_nvme"),  # had been the checkpoint topic
        ("家里的电脑能跑吗", "consumer_cards_4090"),  # had been refused on 家里电脑
        ("can my gaming pc fine-tune a 7b?", "consumer_cards_4090"),
        ("能不能远程访问", "remote_access"),  # had been data security, unsure (no topic on it)
        ("can we access the servers remotely?", "remote_access"),
        ("能不能分两期付款", "lease_payment_terms"),  # had been the menu (unsure)
    ],
)
def test_plain_first_questions_reach_the_topic_that_answers_them(cli, question, topic):
    import json

    out = cli("ask", question, "--json")
    assert out.returncode == 0, out.stderr
    found = json.loads(out.stdout)["faq"]
    assert found["topic"] == topic and found["confident"]


def test_the_expected_loss_of_a_dense_pretraining_plan_is_chinchillas_law_worked_on_its_size_and_tokens():
    """7B on 140B tokens: 1.69 + 406.4 / 7e9^0.34 + 410.7 / 1.4e11^0.28 = 1.69 + 0.183 + 0.311 = 2.18
    (Hoffmann et al. 2022, Approach 3); twice the tokens takes the data's term to 0.311 / 2^0.28 =
    0.256: 2.13. A mixture of experts is told the law is a dense one; fine-tuning gets no figure,
    only what to log before the first step."""
    dense = {"method": "pretrain", "params_b": 7.0, "active_params_b": 7.0, "tokens": 140e9}
    note = faq.plan_note("training_loss", dense, "en")
    assert "about 2.18 nats a token" in note and "the model's term 0.18, the data's 0.31" in note
    assert "on twice the tokens, about 2.13" in note
    assert "约为每 token 2.18 nats" in faq.plan_note("training_loss", dense, "zh")
    moe = dense | {"params_b": 30.5, "active_params_b": 3.3}
    assert "fitted on dense models" in faq.plan_note("training_loss", moe, "en")
    lora = faq.plan_note("training_loss", dense | {"method": "lora", "epochs": 3}, "en")
    assert "no law predicts the level" in lora and "each of the 3 epochs' starts" in lora
    got = faq.answer("what loss should we expect?", "en", plan=dense)
    assert got.topic == "training_loss" and got.confident and "2.18" in got.answer


@pytest.mark.parametrize(
    "question",
    [
        "is the alpha release of the driver stable?",
        "should we use cosine similarity for dedup?",
        "how do I rank GPUs by value?",
    ],
)
def test_a_word_the_hyperparameters_topic_uses_in_another_sense_does_not_make_a_question_sure(question):
    # each had been the hyperparameters topic, sure; the ML senses still are
    assert not faq.answer(question).confident
    assert faq.answer("what lora rank and alpha?").confident and faq.answer("cosine or constant schedule?").confident


@pytest.mark.parametrize(
    "question,topic",
    [
        # "pay" had leaned on the rent-or-buy topic's "pay back"
        ("can we pay in two installments?", "lease_payment_terms"),
        ("能不能分批次付款", "lease_payment_terms"),
        ("do we have to pay everything up front?", "lease_payment_terms"),
        # "配置" had drawn the topic on more than GPU counts
        ("这个配置能跑多大批次", "batch_size"),
    ],
)
def test_paying_in_parts_and_the_batch_in_other_words_reach_their_topics(question, topic):
    assert faq.answer(question).topic == topic


def test_the_rtx_5090_asked_is_answered_with_its_own_figures():
    # the consumer-card topic had answered a 5090 question with the 4090's and 3090's figures alone
    from advisor import catalog

    card = catalog.get_gpu("RTX5090-32GB")
    rows = tomllib.loads((Path(faq.__file__).parents[2] / "data" / "reference_prices.toml").read_text("utf-8"))
    autodl = next(p for p in rows["price"] if p["gpu"] == card.name and p["provider"] == "AutoDL")
    for question in ("is RTX 5090 good for LoRA?", "5090能训练吗"):
        got = faq.answer(question)
        assert got.topic == "consumer_cards_4090" and got.confident
        assert re.search(rf"{card.memory_gb:g}\s?GB(?: of)? GDDR7", got.answer)
        assert f"{autodl['price']:.2f}" in got.answer and f"{card.bf16_dense_tflops:.0f}" in got.answer


def test_verifying_the_gpus_names_the_plans_model_and_its_link_rate():
    # the 81st topic (2026-12-07): what to confirm on delivered servers, with the plan's own GPUs
    from advisor import catalog

    card = catalog.get_gpu("H800-SXM-80GB")
    plan = {"gpu": card.name, "gpu_count": 16, "interconnect": f"{card.intra_node} {card.intra_node_bw_gb_s:g} GB/s"}
    for question, lang in (("how do we verify the GPUs are genuine?", "en"), ("怎么判断供应商给的是不是真H100", "zh")):
        got = faq.answer(question, plan=plan)
        assert got.topic == "hardware_verification" and got.confident and got.lang == lang
        assert "16" in got.answer and card.name in got.answer and "NVLink 400 GB/s" in got.answer
        assert f"{card.tdp_w:.0f} W" in got.answer and "nvidia-smi -q -d POWER" in got.answer


@pytest.mark.parametrize(
    "question,topic,fact",
    [
        ("what's vpp", "parallelism_strategies", "divides the bubble by N"),
        ("what is interleaved 1F1B", "parallelism_strategies", "(PP − 1) / (m + PP − 1)"),
        ("all-reduce 和 all-to-all 有啥区别", "expert_parallelism", "每张卡都得到同一份求和结果"),
        ("显卡标的 TFLOPS 为什么有带稀疏和不带稀疏两个数", "mfu_meaning", "2:4结构化稀疏"),
    ],
)
def test_concepts_set_n_found_no_answer_for_are_answered(question, topic, fact):
    # four of set n's five questions without a topic (written blind, 2026-12-07): no answer had named
    # the virtual pipeline, the bubble's size, all-reduce against all-to-all, or sparse TFLOPS
    got = faq.answer(question)
    assert got.confident and got.topic == topic and fact in got.answer, (got.topic, got.confident)


@pytest.mark.parametrize("question", ["what is MoE?", "What is MoE", "MoE是什么", "什么是MoE？", "MoE是什么意思"])
def test_what_moe_is_is_the_topic_that_defines_it_not_why_moe_runs_slowly(question):
    # "what is MoE" had been unsure, leading with why MoE fine-tuning is slow on Hugging Face stacks
    got = faq.answer(question)
    assert got.confident and got.topic == "expert_parallelism", (got.topic, got.confident)
    assert re.search(r"671B|46\.7B", got.answer)
    assert faq.answer("why is our MoE fine-tune so slow?").topic == "moe_finetune_speed"
    # "what is a MoE model" had led, unsure, with why MoE fine-tuning runs slowly
    assert faq.answer("what is a MoE model").topic == "expert_parallelism"


def test_the_words_of_an_idiom_count_less_than_its_meaning():
    # "falling over" is a node failing: its "fall" had led to the price-trend topic ("are prices falling?")
    terms = faq._query_terms("one of the nodes keeps falling over")
    assert terms["fall"] == faq.IDIOM_WORD_WEIGHT and terms["@failure"] == faq.KIND_WEIGHTS["concept"]
    assert faq._query_terms("are H100 prices still falling?")["fall"] == 1.0
    assert faq.rank("one of the nodes keeps falling over, is that on the vendor?")[1][0] != "price_trend"


@pytest.mark.parametrize("question", ["can we pay quarterly?", "按季度付可以吗", "can we pay every quarter?"])
def test_paying_by_the_quarter_is_the_payment_terms_topic(question):
    # each had been unsure (the menu in a thread): the topic names 按季付 but had no word for a quarter
    got = faq.answer(question, plan=THREAD_PLAN)
    assert got.confident and got.topic == "lease_payment_terms"


@pytest.mark.parametrize("question", ["微调需要多少数据", "微调数据量要多大"])
def test_fine_tuning_data_asked_in_chinese_is_the_epochs_topic_not_pretrainings(question):
    # "微调需要多少数据" had met the pre-training topic through its keyword "多少数据"
    got = faq.answer(question)
    assert got.confident and got.topic == "epochs" and "LIMA" in got.answer
    assert faq.answer("预训练需要多少数据").topic == "pretraining_tokens"


@pytest.mark.parametrize("question", ["how much disk space do checkpoints need?", "checkpoint要占多少硬盘"])
def test_the_disk_a_checkpoint_takes_is_answered_with_its_size(question):
    # the local-NVMe topic alone had answered: the checkpoint topic never named disk space
    got = faq.answer(question)
    assert got.confident and "checkpoint_storage" in {got.topic, got.second.id if got.second else None}
    assert "14" in got.answer


@pytest.mark.parametrize("question", ["租卡要注意什么", "租服务器要注意啥", "what to watch out for when renting gpus?"])
def test_what_to_watch_when_renting_is_the_rfq_checklist_not_vouchers(question):
    # "租卡要注意什么" had been unsure; "租算力…" met the vouchers topic by its 算力
    got = faq.answer(question)
    assert got.confident and got.topic == "rfq_contents", (got.topic, got.confident)
    assert faq.answer("租算力能拿补贴吗").topic == "compute_vouchers"


@pytest.mark.parametrize("question", ["训练失败了怎么办", "训练挂了怎么办", "the job crashed, what now?"])
def test_a_crashed_run_asked_plainly_is_the_failure_topic(question):
    # "训练失败了怎么办" had been unsure, and in a thread "I could not tell what to do with that"
    got = faq.answer(question)
    assert got.confident and got.topic == "failure_mid_run", (got.topic, got.confident)


@pytest.mark.parametrize("question", ["买了服务器放哪", "服务器买回来放哪里"])
def test_where_bought_servers_stand_is_the_colocation_topic(question):
    # "买了卡放哪里" had met the checkpoint topic ("存在哪里"), unsure
    got = faq.answer(question)
    assert got.confident and got.topic == "colocation_price", (got.topic, got.confident)
    assert faq.answer("checkpoint存在哪里").topic == "checkpoint_storage"
