"""The request's fields in one table: each field's limits, the wording key of its refusal and
the notes it leaves when assumed. The parser checks values against it (`_validate`), the
form's check and the refusals read the same limits, templates/phrases.j2 words each field
(`field_name`) and each limit (`bad_value`) with the limits passed in from here, and the notes
are listed in its order.

Adding a field is one row here, its words in the parser and in advisor/request/canonical.py,
and its wording in phrases.j2: tests/test_message_codes.py fails while a field or a limit has
no wording, tests/test_canonical.py while the row has no words to generate or does not read back.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Field:
    name: str
    # Inclusive limits; `above` is an exclusive lower bound (more than zero).
    low: float | None = None
    high: float | None = None
    above: float | None = None
    whole: bool = False
    # The refusal's wording key in phrases.j2 `bad_value` (fields sharing a limit share a key).
    limit: str | None = None
    # A flag (`hsdp`, `cheapest`): said twice it agrees, so no refusal ever names it.
    flag: bool = False
    # The notes (phrases.j2 `assumption`) left when the value is assumed, by the parser or, for
    # the deadline, the planner (tests/test_message_codes.py: every assumption is one field's).
    assumed: tuple[str, ...] = ()

    def ok(self, value: float) -> bool:
        if self.low is not None and value < self.low:
            return False
        if self.above is not None and value <= self.above:
            return False
        if self.high is not None and value > self.high:
            return False
        return not self.whole or value == int(value)


MAX_DEADLINE_DAYS = 3650
MAX_TOKENS = 1e16
LAYOUT_DEGREE = dict(low=1, high=1024, whole=True, limit="layout")

FIELDS: tuple[Field, ...] = (
    # the model
    Field("params_b", low=0.01, high=20_000, limit="size", assumed=("unknown_model", "unknown_moe_model")),
    Field("active_params_b", above=0, limit="active"),
    Field("model"),
    Field("unknown_model"),
    Field("moe", flag=True),
    # the method
    Field("method", assumed=("method_default", "method_pretrain", "method_from_rank")),
    Field("finetune", flag=True),
    Field("lora_rank", low=1, high=4096, whole=True, limit="lora_rank", assumed=("lora_rank",)),
    Field("lora_targets", assumed=("lora_targets",)),
    # the data
    Field("data", above=0, high=1e18, limit="data", assumed=("no_data", "bytes_per_token", "tokens_per_sample")),
    Field("data_language"),
    Field("epochs", above=0, high=1000, limit="epochs", assumed=("epochs",)),
    # time and money
    Field("deadline_days", above=0, high=MAX_DEADLINE_DAYS, limit="deadline", assumed=("horizon",)),
    Field("budget", above=0, high=1e12, limit="budget"),
    Field("currency", assumed=("currency",)),
    Field("lease_term_months", low=1, high=120, whole=True, limit="lease_term"),
    Field("rent_or_buy"),
    Field("own_use_months", low=1, high=120, limit="own_use"),
    Field("own_utilisation", low=0.05, high=1, limit="own_utilisation"),
    Field("cost_first", flag=True),
    Field("speed_first", flag=True),
    # the hardware
    Field("gpu"),
    Field("gpu_count", low=1, high=200_000, whole=True, limit="gpu_count"),
    Field("nodes", low=1, high=25_000, whole=True, limit="gpu_count"),
    Field("city", assumed=("market_china",)),
    # the training setup
    Field("precision", assumed=("precision_bf16", "precision_fp16")),
    Field("optimizer", assumed=("optimizer",)),
    Field("opt_in_backward", flag=True),
    Field("seq_len", low=16, high=10_000_000, limit="seq_len", assumed=("seq_len",)),
    Field("micro_batch", low=1, high=4096, limit="micro_batch"),
    Field("global_batch", low=1, high=10_000_000, limit="global_batch"),
    Field("zero_stage"),
    Field("tp", **LAYOUT_DEGREE),
    Field("pp", **LAYOUT_DEGREE),
    Field("ep", **LAYOUT_DEGREE),
    Field("vpp", **LAYOUT_DEGREE),
    Field("dp", low=1, high=200_000, whole=True, limit="layout"),
    Field("cp", **LAYOUT_DEGREE),
    Field("hsdp", flag=True),
    Field("offload"),
    Field("recompute"),
    Field("lang"),
)

BY_NAME = {f.name: f for f in FIELDS}


def field(name: str) -> Field:
    return BY_NAME[name]


# The order notes are listed in (the "Assumed" lines): the model, the sequence, the data, the
# method, the numerics, the money; then any the planner adds.
NOTE_ORDER = (
    *field("params_b").assumed,
    *field("seq_len").assumed,
    *field("data").assumed,
    *field("epochs").assumed,
    *field("method").assumed,
    *field("lora_rank").assumed,
    *field("lora_targets").assumed,
    *field("precision").assumed,
    *field("optimizer").assumed,
    *field("currency").assumed,
    *field("city").assumed,
    *field("deadline_days").assumed,
)


def bounds(limit: str) -> dict:
    """The limits a refusal of `limit` states (phrases.j2 `bad_value`), from its first field;
    none for a limit the table lacks (its wording is missing too, and says so)."""
    row = next((f for f in FIELDS if f.limit == limit), Field(limit))
    return {"low": row.low, "high": row.high}
