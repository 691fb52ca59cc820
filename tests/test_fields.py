"""The table of the request's fields (advisor/request/fields.py) is what the parser reads: every
plain spelling of a row reads as its value, each word's first spelling is plain text (it is how
request.canonical writes it), and every example `help` lists reads as its field."""

import pytest

from advisor.request.fields import FIELDS, HELP, field
from advisor.request.parser import _Parse, spells
from tests.table_phrases import PLAIN, all_phrases

# Phrases that carry their own model size; the rest are read after one.
SIZED = {"moe", "active_params_b", "params_b", "model"}


def _read(name: str, text: str, lang: str) -> dict:
    p = _Parse(text if name in SIZED else f"7B {text}", lang)
    p.read()
    return p.fields


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_plain_spelling_of_the_table_reads_as_its_value(lang):
    phrases = all_phrases(lang)
    assert len(phrases) > (150 if lang == "en" else 80), "the frames found too few words"
    wrong = []
    for name, text, value in phrases:
        got = _read(name, text, lang).get(name)
        if got != value:
            wrong.append((text, name, value, got))
    assert not wrong


def test_every_word_is_written_back_with_a_plain_spelling_that_reads_as_it():
    for row in FIELDS:
        for word in (row.keys, *row.choices, *row.units, *row.signs):
            for lang in ("en", "zh"):
                spellings = word.spellings(lang)
                if spellings:
                    first = spellings[0]
                    assert PLAIN.fullmatch(first), (row.name, first)
                    assert spells(word, first.lower(), literal=word in row.signs), (row.name, first)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_example_help_lists_reads_as_its_field(lang):
    listed = {name for _, names in HELP for name in names}
    assert listed == {row.name for row in FIELDS if row.examples.en}
    for name in listed:
        for example in field(name).examples.spellings(lang) or field(name).examples.en:
            assert name in _read(name, example.lower(), lang), (name, example)
