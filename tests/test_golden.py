"""Golden Block Kit for the main messages, checked against Block Kit's limits. Regenerate
after an intended change with UPDATE_GOLDEN=1 and review the diff."""

import json
import os
from pathlib import Path

import pytest

from bot import answers
from bot.blocks import check_limits

GOLDEN = Path(__file__).parent / "golden"
CASES = {
    "answer_en": ("70B full-finetune 1TB 14d budget", None),
    "answer_zh": ("13B 全量微调 200GB数据 7天 预算10万", None),
    "answer_hardware": ("70B qlora r=8 seq 2048 mbs 2 on 2xA100-40GB zero3 recompute full", None),
}


def _compare(name: str, got: dict):
    path = GOLDEN / f"{name}.json"
    text = json.dumps(got, ensure_ascii=False, indent=1, sort_keys=True) + "\n"
    if os.environ.get("UPDATE_GOLDEN"):
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"no golden file {path.name}: run with UPDATE_GOLDEN=1"
    assert json.loads(path.read_text(encoding="utf-8")) == json.loads(text)


@pytest.mark.parametrize("name", sorted(CASES))
def test_answer_messages_match_golden_and_limits(name, book):
    text, lang = CASES[name]
    payload = answers.answer(text, lang, book)
    msg = payload["message"]
    assert check_limits(msg) == []
    header = msg["blocks"][0]["text"]["text"]
    assert "\n" not in header and len(header) <= 60  # one line
    assert msg["text"].rstrip().endswith((".", "。")) and "\n" not in msg["text"]  # one complete sentence
    _compare(name, msg)


def test_follow_up_messages_match_golden(book):
    first = answers.answer("70B full-finetune 1TB 14d budget", None, book)
    for name, question in (("whatif_en", "what if we had 30 days?"), ("whatif_zh", "用LoRA呢?")):
        reply = answers.follow("70B full-finetune 1TB 14d budget", first["summary"], question, None, book)
        assert check_limits(reply["message"]) == []
        _compare(name, reply["message"])


def test_oversized_text_is_split_within_limits():
    from bot.blocks import plain

    long_text = "Summary line\n\n" + "\n\n".join(f"Section {i}\n" + ("  line of text\n" * 300) for i in range(70))
    msg = plain(long_text)
    assert check_limits(msg) == [] and len(msg["blocks"]) > 1
    assert "```" not in json.dumps(msg["blocks"])  # prose is never put in a code block
