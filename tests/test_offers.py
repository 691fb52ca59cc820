"""Issue 15: prices are offers. A plan is priced only from offers that can deliver it (GPUs in
one order, the fabric, a term the job can use), or estimated from server leases by a stated rule;
never from an index or a single-card listing. Costs are ranges; buying is scaled to the plan;
checklists come from the plan; imports refuse bad offer terms with file and line."""

from __future__ import annotations

import dataclasses
import json
import math
import re
import tomllib
from contextlib import closing

import pytest

from advisor.market import layouts, reference, store
from advisor.market.imports import ImportProblem, import_file
from advisor.market.prices import PriceBook
from advisor.planning import costs as costsmod
from advisor.planning import rent
from advisor.planning.advice import advise, plan_context, render_text
from advisor.planning.followup import follow_up
from advisor.request.parser import parse
from advisor.resources import data_dir
from advisor.text.render import money


def row(**kw) -> dict:
    base = {
        "source": "test",
        "kind": "rent_hour",
        "gpu": "H800-SXM-80GB",
        "gpus": 1,
        "market": "china",
        "provider": "p",
        "region": "",
        "offer": "",
        "price": 1.0,
        "currency": "CNY",
        "unit": "gpu-hour",
        "min_term_months": 0,
        "as_of": "2026-11-01",
        "estimate": 0,
        "cite": "test row",
    }
    return store.offer_defaults({**store.NOT_NULL_DEFAULTS, **store.OFFER_COLUMNS, **store.OFFER_TERMS, **base, **kw})


def book_of(*rows) -> PriceBook:
    return PriceBook(list(rows), 7.0, "2026-11-01", "test rate")


INSTANCE = dict(provider="marketplace", offer_kind="instance", max_gpus=8, price=8.0)
SERVER = dict(provider="idc", offer_kind="server", max_gpus=8, fabric="nvlink", price=10.0)
CLUSTER = dict(provider="fabric-co", offer_kind="cluster", max_gpus=512, fabric="ib", fabric_gbps=400, price=14.0)
LONG_LEASE = dict(
    provider="5yr",
    kind="rent_month",
    unit="gpu-month",
    offer_kind="server",
    max_gpus=8,
    price=6000.0,
    min_term_months=36,
)


# ----------------------------------------------------------------------------------------
# Qualification


def test_an_offer_qualifies_by_count_fabric_and_term():
    book = book_of(row(**INSTANCE), row(**SERVER), row(**CLUSTER), row(**LONG_LEASE))
    one_server = rent.rent_plan(book, "H800-SXM-80GB", "china", "CNY", 8, 1, 14)
    assert {q.price.provider for q in one_server.range_pool} == {"marketplace", "idc", "fabric-co"}
    # The 36-month lease is no 1- or 3-month option, and a short job on one server pays by the hour.
    assert one_server.options == [] and one_server.headline.option == "hourly"
    four_servers = rent.rent_plan(book, "H800-SXM-80GB", "china", "CNY", 32, 4, 14)
    assert four_servers.estimate_rule is None
    assert [q.price.provider for q in four_servers.range_pool] == ["fabric-co"]  # only a cluster fabric
    # A team that signs for 36 months can use the 36-month lease.
    long_use = rent.rent_plan(book, "H800-SXM-80GB", "china", "CNY", 8, 1, 14, asked_term=36)
    assert long_use.headline.price.provider == "5yr" and long_use.headline.term_stated


def test_why_not_names_the_reason():
    p = book_of(row(**INSTANCE)).offers("rent_hour", "H800-SXM-80GB", "china")[0]
    assert p.why_not(16, 2) == "count"
    assert (
        book_of(row(**{**INSTANCE, "max_gpus": 64})).offers("rent_hour", "H800-SXM-80GB", "china")[0].why_not(16, 2)
        == "fabric"
    )
    assert p.why_not(8, 1) is None


def test_an_index_is_never_a_rentable_price():
    book = book_of(row(provider="market index (Silicon Data)", price=2.0, offer_kind="cluster", max_gpus=10000))
    assert book.offers("rent_hour", "H800-SXM-80GB", "china")[0].indicative  # the provider names an index
    assert book.best("rent_hour", "H800-SXM-80GB", "china", "CNY") is None
    assert rent.rent_plan(book, "H800-SXM-80GB", "china", "CNY", 8, 1, 14).headline is None


def test_no_cluster_offer_is_estimated_from_server_leases_never_from_a_single_card_listing():
    book = book_of(
        row(**{**INSTANCE, "price": 5.0}),
        row(
            gpu="H100-SXM5-80GB",
            kind="rent_month",
            unit="gpu-month",
            provider="lease",
            offer_kind="server",
            max_gpus=8,
            price=9000.0,
        ),
    )
    priced = rent.rent_plan(book, "H800-SXM-80GB", "china", "CNY", 32, 4, 14)
    assert priced.estimate_rule == {"rule": "sibling_server_leases", "basis_gpu": "H100-SXM5-80GB"}
    assert [q.price.provider for q in priced.range_pool] == ["lease"]
    # The lease states no term: 1 and 3 months side by side, both assumed; the headline the cheaper.
    assert [(q.term_months, q.months_paid, q.term_stated) for q in priced.options] == [(1, 1, False), (3, 3, False)]
    assert priced.headline.total == 9000.0 * 32 * 1


# ----------------------------------------------------------------------------------------
# Terms and the reserved-capacity rule


def test_a_14_day_job_on_a_3_month_minimum_pays_3_months():
    lease = row(kind="rent_month", unit="gpu-month", offer_kind="server", max_gpus=8, price=9000.0, min_term_months=3)
    priced = rent.rent_plan(book_of(lease), "H800-SXM-80GB", "china", "CNY", 8, 1, 14)
    q = priced.headline
    assert (q.months_paid, q.total, q.term_stated) == (3, 9000.0 * 8 * 3, True)
    assert [o.term_months for o in priced.options] == [3]  # no 1-month lease is on record


def test_an_hourly_rate_sold_on_a_term_bills_the_term_a_short_job_does_not_fill():
    """A reserved rate ('$2.10/GPU-hr, 1 year': a recorded quote keeps its minimum term) bills the
    year's hours however short the job; a buyer had seen a 3-day job priced at it by the hour."""
    reserved = row(**{**SERVER, "price": 2.1, "min_term_months": 12})
    q = rent.rent_plan(book_of(reserved), "H800-SXM-80GB", "china", "CNY", 8, 1, 3).headline
    assert q.total == pytest.approx(2.1 * 8 * 12 * rent.HOURS_PER_MONTH) and q.months_paid == 12
    # with an offer sold by the hour beside it, the 3-day job goes there
    both = rent.rent_plan(book_of(reserved, row(**INSTANCE)), "H800-SXM-80GB", "china", "CNY", 8, 1, 3)
    assert both.headline.price.provider == "marketplace"


def test_day_billing_rounds_up_to_whole_days():
    block = row(**{**CLUSTER, "billing": "day"})
    q = rent.rent_plan(book_of(block), "H800-SXM-80GB", "china", "CNY", 8, 1, 1.2).headline
    assert q.total == pytest.approx(14.0 * 8 * 48)


def test_a_long_job_with_only_on_demand_lists_is_leased_at_the_reserved_discount_in_both_markets():
    days = 100
    for market, cur in (("china", "CNY"), ("global", "USD")):
        book = book_of(row(**{**INSTANCE, "market": market, "currency": cur}))
        q = rent.rent_plan(book, "H800-SXM-80GB", market, cur, 8, 1, days).headline
        assert q.rule == "reserved_discount" and q.months_paid == 4 and not q.term_stated
        assert q.total == pytest.approx(8.0 * 730 * (1 - rent.RESERVED_DISCOUNT) * 8 * 4)
    with_monthly = book_of(
        row(**INSTANCE), row(kind="rent_month", unit="gpu-month", offer_kind="server", max_gpus=8, price=99999.0)
    )
    priced = rent.rent_plan(with_monthly, "H800-SXM-80GB", "china", "CNY", 8, 1, days)
    assert all(q.rule == "" for q in priced.options)


def test_a_plan_smaller_than_the_server_leases_on_record_says_they_rent_whole_servers():
    # 1 GPU for two days, on a 12-month lease: the lease is estimated from the instance list, and
    # the note had said "only on-demand lists are on record" beside two 8-GPU server leases; the
    # range's high end, a whole server, read as if it were one GPU's
    book = book_of(
        row(**INSTANCE),
        row(kind="rent_month", unit="gpu-month", offer_kind="server", max_gpus=8, provider="idc", price=6000.0),
    )
    priced = rent.rent_plan(book, "H800-SXM-80GB", "china", "CNY", 1, 1, 2.0, asked_term=12)
    assert priced.headline.rule == "reserved_discount" and priced.server_lease_gpus == 8
    plan = advise("13B lora 100M tokens 7d on 1xH800 12-month lease", book=book)
    text = render_text(plan)
    assert "Only on-demand lists" not in text
    assert "rent whole servers of 8 GPUs, more than this plan's 1" in text
    assert "the high end: idc at ¥6,000 per GPU-month for 12 months, a whole server of 8 GPUs" in text
    assert re.search(r"term: the job runs [\d.]+ (?:hours|days), within one month; the term makes it 12 months", text)


# ----------------------------------------------------------------------------------------
# Ranges, budget verdicts, the JSON


def _three_offer_book(**extra):
    return book_of(
        row(**{**INSTANCE, "provider": "low", "price": 5.0}),
        row(**{**INSTANCE, "provider": "mid", "price": 8.0}),
        row(**{**INSTANCE, "provider": "high", "price": 12.0}),
        **extra,
    )


def test_rent_is_a_range_with_the_likely_offer_in_the_headline():
    out = advise("13B full-finetune 200GB 7d on 8xH800", book=_three_offer_book()).to_json()
    cost = out["cost"]
    hours = out["training"]["gpu_hours"]
    r = cost["rent_range"]
    assert r["low"] == pytest.approx(5.0 * hours, rel=0.01) and r["high"] == pytest.approx(12.0 * hours, rel=0.01)
    assert r["likely"] == pytest.approx(8.0 * hours, rel=0.01) == pytest.approx(cost["rent_total"], rel=0.01)
    offer = cost["rent_offer"]
    assert offer["provider"] == "mid" and offer["offer"] == "instance" and offer["max_gpus"] == 8
    assert {
        "provider",
        "offer",
        "max_gpus",
        "interconnect",
        "min_term_months",
        "indicative",
        "estimated",
        "as_of",
        "source",
    } <= set(offer)
    assert offer["estimated"] is False


def test_budget_verdict_within_at_the_likely_price_over_at_the_high_one():
    probe = advise("13B full-finetune 200GB 7d on 8xH800", book=_three_offer_book()).to_json()["cost"]["rent_range"]
    budget = round((probe["likely"] + probe["high"]) / 2)
    out = advise(f"13B full-finetune 200GB 7d on 8xH800 budget ¥{budget}", book=_three_offer_book()).to_json()
    assert out["cost"]["budget_verdict"] == "within_likely_over_high"
    assert "budget_range" in [w["code"] for w in out["warning_codes"]]
    assert out["plan"]["within_budget"]


# ----------------------------------------------------------------------------------------
# Storage


@pytest.mark.parametrize("market", ["", " usd"])
def test_a_multi_server_plan_rents_a_parallel_file_system_sized_for_its_read_rate(book, market):
    out = advise("deepseek-v3 continued pretrain 100B tokens 30d" + market, book=book).to_json()
    cost, infra = out["cost"], out["infra"]
    assert out["plan"]["nodes"] > 1 and cost["storage_kind"] == "storage_pfs"
    # A 9.4 TB checkpoint lands on the servers' NVMe in 5 minutes and drains to shared storage in 30
    # (5.2 GB/s): at 125 MB/s per TiB about 46 TB, more than the data and two checkpoints (19 TB);
    # drained in 5 minutes it had sized 275 TB, a third of the rent
    why = infra["reasons"]["storage"]
    ckpt_gb = why["checkpoint_tb"] * 1000
    assert why["write_gb_s"] == pytest.approx(ckpt_gb / 1800) and why["write_s"] == 1800
    assert why["local_write_gb_s"] == pytest.approx(ckpt_gb / out["plan"]["nodes"] / 300)
    rate = max(why["write_gb_s"], why["read_gb_s"])
    by_rate = rate * 1000 / costsmod.PFS_MB_S_PER_TIB * costsmod.TB_PER_TIB
    assert cost["storage_tb"] == pytest.approx(by_rate)
    pfs = [s for s in cost["price_sources"] if s["role"] == "storage_pfs"]
    assert len(pfs) == 1 and pfs[0]["currency"] == ("USD" if market else "CNY")
    # Billed for the job and a day either side: by the hour, or whole months for a monthly package
    months = (out["training"]["days"] + costsmod.STORAGE_EXTRA_DAYS) * 24 / 730
    billed = [pfs[0]["price"] * by_rate * m for m in (months, math.ceil(months))]
    assert any(cost["storage_total"] == pytest.approx(b, rel=0.01) for b in billed)


def test_the_parallel_file_system_gives_one_server_the_rate_its_fio_check_asks(book):
    # a 3B pre-training run on 8 servers had priced 8 TB (0.9 GB/s) against a 2 GB/s fio test per server
    out = advise("3B pretrain 2T tokens 3 months on 64xH800", book=book).to_json()
    cost, infra = out["cost"], out["infra"]
    why = infra["reasons"]["storage"]
    assert cost["storage_kind"] == "storage_pfs" and max(why["write_gb_s"], why["read_gb_s"]) < 1
    fio = next(c for c in out["checklist"] if c["code"] == "fio_read")
    delivered_gb_s = cost["storage_tb"] / costsmod.TB_PER_TIB * costsmod.PFS_MB_S_PER_TIB / 1000
    assert fio["params"]["gb_s"] == infra["storage_read_gb_per_s"] == 2
    assert delivered_gb_s == pytest.approx(2)


def test_one_server_keeps_data_in_object_storage_sized_by_what_it_stores(book):
    out = advise("7b lora 20GB 3d", book=book).to_json()
    assert out["plan"]["nodes"] == 1 and out["cost"]["storage_kind"] == "storage"
    assert out["cost"]["storage_tb"] < 0.1  # 20 GB of data and two LoRA checkpoints


# ----------------------------------------------------------------------------------------
# Rent or buy


def test_buy_is_scaled_to_the_plan(book):
    small = advise("7b lora 20GB 3d on 2x4090 buy", book=book).to_json()["cost"]
    assert (small["buy_kind"], small["buy_gpus"]) == ("workstation", 2)
    big = advise("70B full-finetune 200GB 30d on 16xH100", book=book).to_json()["cost"]
    assert (big["buy_kind"], big["buy_servers"], big["buy_gpus"]) == ("servers", 2, 16)
    one = advise("70B full-finetune 200GB 30d on 8xH100", book=book).to_json()["cost"]
    # Two servers cost twice one, plus the cluster extras (switches, optics, storage); the one
    # server offloads its optimizer and buys the memory for it on top
    assert big["buy_host_ram_cost"] is None and one["buy_host_ram_cost"] > 0
    servers = one["buy_capex"] - one["buy_host_ram_cost"]
    assert big["buy_capex"] == pytest.approx(2 * servers * (1 + costsmod.CLUSTER_EXTRA))


def test_a_break_even_past_the_useful_life_is_warned(book):
    out = advise("70B full-finetune 1TB 14d on H100", book=book).to_json()
    months = out["cost"]["breakeven_months"]
    assert months and months > costsmod.USEFUL_LIFE_MONTHS[0]
    assert "breakeven_past_life" in [w["code"] for w in out["warning_codes"]]
    assert out["cost"]["residual_value"] == pytest.approx(out["cost"]["buy_capex"] * costsmod.RESIDUAL_SHARE)


def test_grey_channel_is_flagged_for_export_controlled_parts_in_china(book):
    out = advise("13B full-finetune 200GB 7d on 8xH100 buy", book=book).to_json()
    assert out["cost"]["buy_channel"] == "grey"
    assert "grey_channel" in [w["code"] for w in out["warning_codes"]]


def test_the_teams_own_use_changes_the_comparison(book):
    for text in (
        "13B full-finetune 200GB 7d on 8xH100 buy keep it busy 24 months 60% use",
        "13B 全量微调 200GB 7天 8xH100 买 用两年 利用率60%",
        # had been refused as two deadlines beside "by Q2"
        "13B full-finetune 200GB by Q2 on 8xH100 buy, we'd keep the cluster busy 24 months at 60% use",
    ):
        req = parse(text)
        assert (req.own_use_months, req.own_utilisation) == (24, 0.6)
    out = advise("13B full-finetune 200GB 7d on 8xH100 buy keep it busy 24 months 60% use", book=book).to_json()
    own = out["cost"]["own_use"]
    assert own["months"] == 24 and own["utilisation"] == 0.6
    assert out["cost"]["decision_reason"] == "own_use"
    assert out["cost"]["decision"] == ("buy" if own["own_cost"] < own["rent_cost"] else "rent")


# ----------------------------------------------------------------------------------------
# Checklists built from the plan


def _codes(out) -> list[str]:
    return [c["code"] for c in out["checklist"]]


def test_checklists_follow_interconnect_vendor_scale_duration_and_purchase(book):
    nvlink = advise("13B full-finetune 200GB 7d on 8xH100", book=book).to_json()
    assert "topo_nvlink" in _codes(nvlink) and "dcgm_diag" in _codes(nvlink)
    assert "nccl_allreduce" not in _codes(nvlink) and "buy_delivery" not in _codes(nvlink)
    consumer = advise("7b lora 20GB 3d on 2x4090", book=book).to_json()
    assert "topo_pcie" in _codes(consumer) and "topo_nvlink" not in _codes(consumer)
    assert "dcgm_diag" not in _codes(consumer)  # DCGM is for data-centre GPUs
    amd = advise("13B full-finetune 200GB 7d on 8xMI300X usd", book=book).to_json()
    assert "topo_xgmi" in _codes(amd) and "rvs_stress" in _codes(amd)
    assert not any("nvidia-smi" in c["text"] or "dcgmi" in c["text"] for c in amd["checklist"])
    cluster = advise("70B full-finetune 1TB 14d on 32xH100", book=book).to_json()
    assert {"nccl_allreduce", "ib_write_bw", "oversubscription"} <= set(_codes(cluster))
    # the all-reduce's bus bandwidth is held to the server's NICs together (a ring per NIC), not
    # one GPU's: 8 x 100 Gb/s at 80% is 80 GB/s, where one NIC's 10 GB/s would pass a broken fabric
    nccl = next(c for c in cluster["checklist"] if c["code"] == "nccl_allreduce")["params"]
    assert nccl["rails"] == 8 and nccl["busbw"] == pytest.approx(nccl["gbps"] * 8 / 8 * 0.8)
    pilot = next(c for c in cluster["checklist"] if c["code"] == "pilot")
    assert pilot["params"]["hours"] <= cluster["training"]["days"] * 24 / 10 + 0.05
    bought = advise("13B full-finetune 200GB 7d on 8xH100 buy", book=book).to_json()
    assert {"buy_delivery", "buy_warranty", "buy_compliance"} <= set(_codes(bought))
    zh = advise("13B 全量微调 200GB 7天 8xH100", book=book).to_json()
    assert all(c["text"] and c["text"] != c["code"] for c in zh["checklist"])


# ----------------------------------------------------------------------------------------
# The reference file and imports


def test_every_reference_rental_row_says_what_it_is_an_offer_of():
    with open(data_dir() / "reference_prices.toml", "rb") as fh:
        prices = tomllib.load(fh)["price"]
    rentals = [p for p in prices if p["kind"].startswith(("rent", "offpeak"))]
    assert rentals and all(p.get("offer") in layouts.OFFER_KINDS for p in rentals)
    assert all(p.get("interconnect", "none") in layouts.FABRICS for p in rentals)
    assert all(p.get("billing", "hour") in layouts.BILLINGS for p in rentals)
    # 910B4 (32 GB) is not priced as the catalog's 64 GB 910B.
    assert not any(
        "910B4" in p.get("note", "") and p["gpu"] == "Ascend-910B-64GB" and "910B2" not in p.get("note", "")
        for p in rentals
    )
    rows = reference.rows()
    assert any(r["offer_kind"] == "cluster" and r["max_gpus"] >= 64 for r in rows)
    assert all(r["indicative"] for r in rows if "index" in r["provider"].lower())


QUOTE_HEADER = (
    "date,vendor,gpu,gpus,kind,price,currency,unit,offer_kind,max_gpus,interconnect,interconnect_gbps,billing\n"
)


@pytest.mark.parametrize(
    "bad,message",
    [
        ("cluster,64,infiniband,400,month", "interconnect 'infiniband'"),
        ("rack,64,ib,400,month", "offer_kind 'rack'"),
        ("cluster,4,ib,400,month", "max_gpus"),
        ("cluster,64,ib,400,fortnight", "billing 'fortnight'"),
        ("cluster,64,ib,-5,month", "interconnect_gbps"),
    ],
)
def test_bad_offer_terms_are_refused_with_file_and_line_writing_nothing(tmp_path, bad, message):
    path = tmp_path / "quotes.csv"
    path.write_text(
        QUOTE_HEADER
        + "2026-11-01,idc-a,H800,8,rent_month,90000,CNY,server-month,cluster,64,ib,400,month\n"
        + f"2026-11-01,idc-b,H800,8,rent_month,95000,CNY,server-month,{bad}\n"
    )
    with closing(store.open_store(str(tmp_path / "p.db"))) as db:
        before = db["observations"].count
        with pytest.raises(ImportProblem) as err:
            import_file(db, path)
        assert f"{path}, line 3" in str(err.value) and message in str(err.value)
        assert db["observations"].count == before


def test_imported_offer_terms_are_stored_and_defaulted(tmp_path):
    path = tmp_path / "quotes.csv"
    path.write_text(
        "date,vendor,gpu,gpus,kind,price,currency,unit,offer_kind,max_gpus,interconnect,billing\n"
        "2026-11-01,idc-a,H800,8,rent_month,90000,CNY,server-month,cluster,256,roce,month\n"
        "2026-11-01,idc-b,H800,8,rent_hour,70,CNY,server-hour,,,,\n"
    )
    with closing(store.open_store(str(tmp_path / "p.db"))) as db:
        import_file(db, path)
        got = {r["provider"]: r for r in db["observations"].rows_where("source = 'quote'")}
    assert (got["idc-a"]["offer_kind"], got["idc-a"]["max_gpus"], got["idc-a"]["fabric"]) == ("cluster", 256, "roce")
    # Left out: one order gets the GPUs quoted, a server for 8, billed by the hour, not an index.
    b = got["idc-b"]
    assert (b["offer_kind"], b["max_gpus"], b["fabric"], b["billing"], b["indicative"]) == ("server", 8, "", "hour", 0)


def test_prices_show_prints_what_each_price_is_an_offer_of(cli):
    out = cli("prices", "show", "H100").stdout
    assert "offer: whole server, up to 8 GPUs per order" in out and "minimum term not stated" in out
    assert "earlier (history, not used to plan)" in out and "2024-12" in out  # the 2024 lease, as history
    # --json lists every current offer (CONTRACT section 6), with the terms each is sold on.
    [h100] = json.loads(cli("prices", "show", "H100", "--json").stdout)
    offers = h100["offers"]
    assert len(offers) > 5
    assert {"kind", "price", "currency", "unit", "provider", "region", "market", "offer_kind", "max_gpus"} <= set(
        offers[0]
    ) and {"interconnect", "min_term_months", "billing", "as_of", "source", "estimate", "terms"} <= set(offers[0])
    cluster = next(o for o in offers if o["provider"] == "Voltage Park")
    assert (cluster["offer_kind"], cluster["max_gpus"], cluster["interconnect"]) == ("cluster", 1016, "ib")
    assert any(o["indicative"] for o in offers) and any(o["min_term_months"] == 36 for o in offers)
    assert any(o["terms"] == ["12m"] for o in offers)


def test_migration_16_gives_old_reference_rows_the_files_terms(tmp_path):
    """A database seeded before migration 16: its reference rows take the terms the file states,
    the withdrawn rows (leases divided by 730 as hourly prices) go, and old rows of other sources
    take the stated defaults."""
    path = str(tmp_path / "old.db")
    with closing(store.open_store(path)) as db:
        db.execute("UPDATE observations SET offer_kind = '', max_gpus = 0, fabric = '', billing = '', indicative = 0")
        db.execute(
            "INSERT INTO observations (source, kind, gpu, gpus, market, provider, price, as_of) VALUES "
            "('reference', 'rent_hour', 'H100-SXM5-80GB', 1, 'china', 'channel lease (market)', 15.41, '2026-09')"
        )
        db.execute(
            "INSERT INTO observations (source, kind, gpu, gpus, market, provider, price, as_of) VALUES "
            "('feed-x', 'rent_hour', 'H100-SXM5-80GB', 8, 'global', 'cloud', 3.0, '2026-09-01')"
        )
        db.execute("DELETE FROM schema_versions WHERE component = 'prices' AND version = 16")
        db.conn.commit()
    with closing(store.open_store(path)) as db:
        cb = next(db["observations"].rows_where("provider = 'AWS Capacity Blocks' AND gpu = 'H100-SXM5-80GB'"))
        assert (cb["offer_kind"], cb["max_gpus"], cb["fabric"], cb["billing"]) == ("cluster", 512, "efa", "day")
        assert not db["observations"].count_where("provider = 'channel lease (market)' AND kind = 'rent_hour'")
        feed = next(db["observations"].rows_where("source = 'feed-x'"))
        assert (feed["offer_kind"], feed["max_gpus"], feed["billing"]) == ("server", 8, "hour")
        assert all(r["indicative"] for r in db["observations"].rows_where("provider LIKE '%index%'"))


def test_a_fixed_gpu_type_that_costs_over_twice_the_best_plan_names_the_other_type(book):
    """Issue 15: the same job on the GPU type an open request would use, when it costs at most
    half the rent of the type the user fixed (or when the fixed type misses the deadline)."""
    from advisor.planning.advice import advise

    best = advise("7b lora 20GB 3d", book=book)
    fixed = advise(f"7b lora 20GB 3d on {'H100' if best.plan.gpu != 'H100-SXM5-80GB' else 'H800'}", book=book)
    assert fixed.plan.gpu != best.plan.gpu
    others = [s for s in fixed.result.suggestions if s.change == "other_gpu"]
    if best.plan.rent * 2 <= fixed.plan.rent:
        assert others and others[0].plan.gpu == best.plan.gpu
        assert others[0].value == round(best.plan.rent / fixed.plan.rent, 4)
        assert any("Another GPU type does this job for" in w for w in fixed.to_json()["warnings"])
    else:
        assert not others
    same = advise(f"7b lora 20GB 3d on {best.plan.gpu}", book=book)
    assert not [s for s in same.result.suggestions if s.change == "other_gpu"]  # never itself


def test_buying_says_its_delivery_time_and_when_it_comes_after_the_deadline(book):
    out = advise("13B full-finetune 200GB 14d on 16xH100 buy usd", book=book).to_json()
    assert out["cost"]["buy_lead_weeks"] == [8, 20] and out["cost"]["buy_lead_as_of"] == "2024-04"
    late = [w for w in out["warning_codes"] if w["code"] == "buy_after_deadline"]
    assert len(late) == 1 and late[0]["params"]["low"] == 8 and late[0]["params"]["deadline"] == 14
    assert any("Buying cannot meet the 14-day deadline" in w for w in out["warnings"])
    # a deadline past the longest published lead time: no warning; a GPU with no figure: none either
    calm = advise("13B full-finetune 200GB 200d on 16xH100 buy usd", book=book).to_json()
    assert "buy_after_deadline" not in [w["code"] for w in calm["warning_codes"]]
    unknown = advise("13B full-finetune 200GB 14d on 16xH800 buy", book=book).to_json()
    assert unknown["cost"]["buy_lead_weeks"] is None
    assert "buy_after_deadline" not in [w["code"] for w in unknown["warning_codes"]]


def test_a_buyers_budget_is_held_against_what_the_servers_cost(book):
    # A GPU with a purchase price and no rental price is still a plan for a buyer, and the
    # budget conflict names the capex, never an unknown rent.
    out = advise("70b full-finetune 2TB 30d budget ¥10M buy", book=book).to_json()
    conflict = next(w for w in out["warning_codes"] if w["code"] == "budget_vs_deadline")
    assert conflict["params"]["d_cost"] is not None and conflict["params"]["d_cost"] > 10_000_000
    assert conflict["params"]["b_cost"] <= 10_000_000
    # ¥2M buys only a plan of over two years for a 30-day job: no fallback, the overrun said
    tight = advise("70b full-finetune 2TB 30d budget ¥2M buy", book=book).to_json()
    assert "budget_vs_deadline" not in [w["code"] for w in tight["warning_codes"]]
    assert next(w for w in tight["warning_codes"] if w["code"] == "budget")["params"]["cost"] > 2_000_000
    roomy = advise("70b full-finetune 2TB 30d budget ¥100M buy", book=book).to_json()
    assert roomy["cost"]["buy_capex"] <= 100_000_000
    assert "budget_vs_deadline" not in [w["code"] for w in roomy["warning_codes"]]


def test_a_job_that_uses_a_sliver_of_the_lease_says_the_far_cheaper_gpu_under_its_headline(book):
    """A 3-minute LoRA on H100, leased in China only by the month, headlines a month of a whole
    server: the GPU type that does it for a tenth of that or less is said on the next line."""
    from advisor.planning.advice import advise, render_text

    fixed = advise("7b lora 10k samples on H100", book=book)
    others = [s for s in fixed.result.suggestions if s.change == "other_gpu"]
    lines = render_text(fixed).splitlines()
    # the reference seed leases H100 in China only by the month (an H800 rents by the hour)
    assert others and others[0].value is not None and others[0].value <= 0.1
    assert lines[1].startswith("  ! ") and others[0].plan.gpu in lines[1], lines[:3]
    assert render_text(fixed).count(lines[1].strip()) == 1  # not again among the warnings
    cheap = advise("7b lora 20GB 3d", book=book)  # nothing far cheaper: the headline stands alone
    assert not render_text(cheap).splitlines()[1].strip()


def test_buying_counts_the_training_after_delivery_against_the_deadline(book):
    # 8 weeks of delivery (H100's shortest published lead time) fits 60 days, the training after it does not
    out = advise("13B full-finetune 200GB 60d on 16xH100 buy usd", book=book).to_json()
    days = out["training"]["days"]
    assert 56 <= 60 < 56 + days
    late = next(w["params"] for w in out["warning_codes"] if w["code"] == "buy_after_deadline")
    assert late["training"] == pytest.approx(days) and late["low"] == 8
    assert any("and the job then trains for" in w for w in out["warnings"])
    # no lead time on record for H800: the shortest published (8 weeks) and the training after it
    unknown = advise("3B pretrain 2T tokens 90d on 16xH800 buy", book=book).to_json()
    note = next(w["params"] for w in unknown["warning_codes"] if w["code"] == "buy_lead_unknown")
    assert note["weeks"] * 7 <= 90 < note["weeks"] * 7 + note["training"]


@pytest.mark.parametrize(
    "fabric,gbps,name",
    [("ib", 400, "InfiniBand"), ("roce", 100, "RoCE"), ("efa", 400, "EFA"), ("ib", 12.5, "InfiniBand")],
)
def test_the_network_named_and_tested_is_the_priced_offers(fabric, gbps, name):
    # a plan priced on an InfiniBand 400 cluster had named RoCE at 100 Gb/s and asked ib_write_bw for 100
    book = book_of(row(provider="fabric-co", offer_kind="cluster", max_gpus=512, fabric=fabric, fabric_gbps=gbps))
    out = advise("70B full-finetune 1TB 14d on 32xH800", book=book).to_json()
    inter = out["infra"]["network"]["inter_node"]
    need = inter["gbps_per_gpu"]
    assert out["cost"]["rent_offer"]["interconnect"] == fabric and need > 0
    assert inter["offer"] == {"fabric": fabric, "gbps": gbps, "provider": "fabric-co"}
    text = out["infra"]["network"]["inter_node_text"]
    assert text.startswith(f"{name}, {need} Gb/s per GPU")
    if gbps > need:
        assert f"the offer priced comes with {gbps:g} Gb/s per GPU, more than this job needs" in text
    elif gbps < need:
        assert f"the offer priced has only {gbps:g} Gb/s per GPU" in text
    checks = {c["code"]: c for c in out["checklist"]}
    assert checks["nccl_allreduce"]["params"]["gbps"] == gbps  # the vendor held to what it offers
    assert ("ib_write_bw" in checks) == (fabric != "efa")  # RDMA verbs; EFA is proved by nccl-tests
    assert ("roce_pfc_ecn" in checks) == (fabric == "roce")


def test_a_job_at_the_edge_of_its_last_billed_month_says_what_a_slip_costs(book):
    # a 30.1-day job on a 30.4-day month had been priced one month with no word on the margin
    out = advise("3B pretrain 2T tokens 45 days on 128x910B", book=book).to_json()
    term = out["cost"]["rent_term"]
    edge = next(w for w in out["warning_codes"] if w["code"] == "lease_edge")["params"]
    spare = term["months_paid"] * 730 / 24 - term["job_days"]
    assert term["months_paid"] == term["job_months"] and 0 <= spare < 0.1 * term["job_days"]
    assert edge["spare"] == pytest.approx(spare) and edge["months"] == term["months_paid"]
    text = next(w for w in out["warnings"] if "another month is billed" in w)
    assert f"slower than planned, another month is billed, about ¥{round(edge['extra']):,}" in text
    roomy = advise("3B pretrain 2T tokens 45 days on 256x910B", book=book).to_json()
    assert "lease_edge" not in [w["code"] for w in roomy["warning_codes"]]


def test_break_even_weighs_owning_against_the_cheapest_steady_rent(book):
    # Owning at 70% use against renting the same GPUs as busy: by the hour for the hours in use,
    # a one-month lease for the months in use, a longer lease every month of its term, whichever
    # costs least; not the plan's own rent option (a month's lease what-if had said 51.2 months
    # beside its plan's 104)
    rented = rent.rent_plan(book, "H800-SXM-80GB", "china", "CNY", 8, 1, 1.0)
    hour = rented.hourly.per_gpu_hour
    u = costsmod.OWNED_UTILISATION
    steady = costsmod._steady_rent(rented, rented.headline, 8, u)
    month = min(o.per_gpu_hour * costsmod.HOURS_PER_MONTH for o in rented.options if o.term_months == 1)
    assert hour * costsmod.HOURS_PER_MONTH < month  # on record: by the hour is the cheaper
    assert steady["basis"] == "hourly" and steady["per_month"] == pytest.approx(hour * 8 * 730 * u)
    assert steady["hourly_dearer"] is False
    # the same figure whatever the plan leads with (a lease headline)
    lease = next(o for o in rented.options if o.term_months == 1)
    assert costsmod._steady_rent(rented, lease, 8, u) == steady
    # a year's lease below 70% of the hourly rent: billed every month, busy or idle
    cheap = dataclasses.replace(lease, per_gpu_hour=0.6 * hour, term_months=12)
    year = dataclasses.replace(rented, options=[lease, cheap])
    got = costsmod._steady_rent(year, rented.headline, 8, u)
    assert (got["basis"], got["term_months"], got["hourly_dearer"]) == ("lease", 12, True)
    assert got["per_month"] == pytest.approx(0.6 * hour * 730 * 8)
    # a month's lease under the hourly rate is paid only for the months in use
    near = dataclasses.replace(lease, per_gpu_hour=0.9 * hour)
    got = costsmod._steady_rent(dataclasses.replace(rented, options=[near]), rented.headline, 8, u)
    assert (got["basis"], got["per_month"]) == ("month_by_month", pytest.approx(0.9 * hour * 730 * 8 * u))


def test_a_threads_lease_what_if_says_its_plans_break_even(book):
    text = "7B 全参微调 20GB数据 3天"
    first = advise(text, book=book)
    assert first.plan.costs.rent_option == "hourly"
    reply = follow_up(text, plan_context(first), "一个月多少钱", book=book)
    assert reply.advice.plan.costs.rent_option == "monthly"
    assert reply.advice.plan.costs.breakeven_months == pytest.approx(first.plan.costs.breakeven_months)
    rate = money(first.plan.costs.breakeven_rent["rate"], "CNY")
    assert f"与按小时租用（每卡时 {rate}，70% 的时间在用）相比，回本：约 " in render_text(first)
    shown = {round(first.plan.costs.breakeven_months, 1)}
    # a payback the reply says is the plan's (the lease's own had been said as a new warning)
    said = {float(x) for x in re.findall(r"购买要 ([\d.]+) 个月才能回本", reply.text)}
    assert said <= shown


def test_a_lease_break_even_says_its_term_in_the_text_and_on_the_card(book):
    from bot.blocks import details

    result = advise("qwen3-235b pretrain 1T tokens 90d on 910C", book=book)
    basis = result.plan.costs.breakeven_rent
    assert basis["basis"] == "lease" and basis["term_months"] > 1
    line = next(x for x in render_text(result).splitlines() if "break-even" in x)
    assert f"against a {basis['term_months']}-month lease at {money(basis['rate'], 'CNY')} a GPU-month" in line
    assert "billed busy or idle" in line
    card = json.dumps(details(result, "costs"), ensure_ascii=False)
    assert f"months against a {basis['term_months']}-month lease" in card


@pytest.mark.parametrize(
    "text,cloud",
    [
        ("70B lora 50k samples 3d on aws", "AWS"),
        ("70b cpt 300B tokens 30d on coreweave", "CoreWeave"),
        ("7b lora 10k samples on autodl", "AutoDL"),
        ("70B lora 50k samples 3d on lambda", "Lambda"),
    ],
)
def test_a_cloud_named_prices_the_plan_on_its_own_offers_and_gpus(book, text, cloud):
    # `on aws` had been planned on the global market's cheapest, 1 x MI300X that AWS does not rent
    out = advise(text, book=book).to_json()
    rented = book.rented_by(cloud, out["request"]["market"])
    assert out["plan"]["gpu"] in rented
    assert cloud.lower() in out["cost"]["rent_offer"]["provider"].lower()
    assert out["request"]["cloud"] == cloud
    assert any("priced on that cloud's own offers on record alone" in a for a in out["request"]["assumptions"])


def test_a_cloud_that_rents_no_plan_gives_way_to_its_market_saying_so(book):
    # GCP's offers on record are one-GPU instances and year-long commitments: a 14-day job of 70B
    # needs more, priced on the market's offers with GCP's GPUs said (not left unpriced)
    out = advise("70B full-finetune 1TB 14d on gcp", book=book)
    notes = {n.code: n.params for n in out.request.assumptions}
    assert notes["cloud_undelivered"] == {"provider": "GCP", "gpus": book.rented_by("GCP", "global")}
    assert "cloud_named" not in notes
    assert out.plan.priced(out.request)
    assert "no offer from GCP on record rents this plan" in render_text(out)


def test_a_cloud_with_no_offer_on_record_is_said_and_its_market_priced(book):
    out = advise("13b full finetune 200GB 7d on huawei cloud", book=book)
    notes = {n.code: n.params for n in out.request.assumptions}
    assert notes["cloud_unpriced"] == {"provider": "华为云"} and out.request.market == "china"
    assert out.plan.priced(out.request)


def test_how_much_on_another_cloud_re_plans_on_that_clouds_offers(book):
    # under an AWS plan, "how much on coreweave?" is the plan from CoreWeave's offers, not AWS's
    # price beside the other's
    text = "70B lora 50k samples 3d on aws"
    reply = follow_up(text, plan_context(advise(text, book=book)), "how much on coreweave?", book=book)
    assert reply.kind == "market" and reply.advice.request.cloud == "CoreWeave"
    assert reply.advice.plan.costs.rent_offer["provider"] == "CoreWeave"
    assert "The plan is made from the offers of CoreWeave alone" in reply.text


def test_how_much_on_the_plans_own_cloud_says_the_plans_rent(book):
    # "how much on lambda?" under a plan leased from Lambda server by server had been one sentence
    # naming Lambda, with no figure
    text = "70b cpt 100B tokens 30d on lambda"
    first = advise(text, book=book)
    reply = follow_up(text, plan_context(first), "how much on lambda?", book=book)
    c = first.plan.costs
    assert money(c.rent_total, c.currency) in reply.text


# ----------------------------------------------------------------------------------------
# What a sum buys ("100万能买几台H20"): both probes had met the GPU's export-control timeline


def test_a_sum_short_of_a_server_says_so_with_the_servers_price(book):
    from advisor import catalog
    from advisor.market.owning import owning
    from advisor.planning.followup import gpu_prices

    reply = gpu_prices("100万能买几台H20", "zh", book)
    one = owning(book, catalog.get_gpu("H20-96GB"), 8, "china", "CNY")
    assert reply.kind == "budget_buys" and one.capex > 1_000_000
    assert "买不起一台" in reply.text and money(one.capex, "CNY") in reply.text


def test_a_sum_buys_whole_servers_with_the_network_past_one(book):
    from advisor import catalog
    from advisor.market.owning import CLUSTER_EXTRA, owning
    from advisor.planning.followup import gpu_prices

    reply = gpu_prices("how many H100 servers can $2M buy?", "en", book)
    each = owning(book, catalog.get_gpu("H100-SXM5-80GB"), 8, "global", "USD").capex
    n = int(2_000_000 // (each * (1 + CLUSTER_EXTRA)))
    assert n > 1 and f"buys {n} servers of 8 x H100-SXM5-80GB ({8 * n} GPUs)" in reply.text
    assert money(2_000_000 - n * each * (1 + CLUSTER_EXTRA), "USD") + " left" in reply.text
    # under a plan too, in its thread
    text = "70B full-finetune 1TB 14d usd"
    assert follow_up(
        text, plan_context(advise(text, book=book)), "how many H100 servers can $2M buy?", book=book
    ).kind == ("budget_buys")


def test_a_sum_with_no_gpu_named_lists_what_it_buys_of_each(cli):
    out = json.loads(cli("ask", "300万能买几台", "--json").stdout)["faq"]
    assert out["topic"] == "budget_buys"
    # (the GPUs' rows; a line after them names those whose prices on record are over two years old)
    lines = [line for line in out["answer"].splitlines() if line.startswith("  ") and "未列出" not in line]
    assert len(lines) >= 3 and all("台" in line for line in lines)


@pytest.mark.parametrize(
    "question",
    [
        "our budget is 2 million RMB for the year, what cluster should we build?",
        "200万预算搭一个什么样的集群",
        "we want to build a 64-GPU cluster with $2M, what should we buy?",  # the rent-or-buy topic had answered
    ],
)
def test_a_cluster_to_build_with_a_sum_is_what_the_sum_buys(cli, question):
    # it had drawn the FAQ's compute-voucher topic
    out = json.loads(cli("ask", question, "--json").stdout)["faq"]
    assert out["topic"] == "budget_buys" and "2,000,000" in out["answer"]


def test_a_cluster_of_a_count_with_a_sum_prices_that_count_of_each_type(cli):
    # the 64 cards had been unread: what the sum buys of each type alone
    out = json.loads(cli("ask", "我们要搭一个64卡的训练集群，预算1000万，买什么卡", "--json").stdout)["faq"]
    assert out["topic"] == "budget_buys"
    rows = [line for line in out["answer"].splitlines() if "64 张卡共" in line]
    assert len(rows) >= 3
    within = ["在预算内" in line for line in rows]
    assert within == sorted(within, reverse=True) and any(within) and not all(within)  # those it pays for first
    for line in rows:  # each: 8 servers at its price, the network's 15% past one
        each = float(line.split("每台约 ¥")[1].split("，")[0].replace(",", ""))
        cost = float(line.split("64 张卡共 ¥")[1].split("，")[0].replace(",", ""))
        assert cost == pytest.approx(each * 8 * 1.15, rel=1e-6)


@pytest.mark.parametrize(
    "question,weeks",
    [
        ("how long is the lead time for B200 servers?", "17-43 weeks"),
        ("H20现在下单多久到货", "8 周"),
        # the verb and the question word first had been the rental's setup days
        ("how long does it take to deliver B200 servers in China?", "17-43 weeks"),
        ("B200多久能交付", "17-43 周"),
    ],
)
def test_a_purchases_delivery_asked_is_the_lead_time_on_record(cli, question, weeks):
    # "lead time for B200 servers?" had been answered with a rental's setup days
    out = json.loads(cli("faq", question, "--json").stdout)
    assert out["topic"] == "lead_time" and weeks in out["answer"]


def test_a_servers_power_draw_asked_is_the_faqs_not_its_prices(cli):
    # "how much power does a DGX H100 draw?" had been the H100's price list ("how much")
    out = json.loads(cli("faq", "how much power does a DGX H100 draw?", "--json").stdout)
    assert out["topic"] == "rack_power" and "10.2 kW" in out["answer"]


def test_how_much_on_the_plans_own_cloud_under_a_term_says_the_terms_rent(book):
    # under `1yr reserved on aws` (a 12-month lease, $254,872) the reply had said the plan's GPU-hours
    # at AWS's hourly price ($122,112), against the headline
    text = "70b cpt 100B tokens 1yr reserved on aws"
    first = advise(text, book=book)
    c = first.plan.costs
    assert c.rent_option == "monthly" and c.rent_term["months_paid"] == 12
    reply = follow_up(text, plan_context(first), "how much on aws?", book=book)
    assert f"{money(c.rent_total, c.currency)} on a 12-month lease" in reply.text and "GPU-hours cost" not in reply.text


def test_a_count_and_a_term_asked_of_a_gpus_price_are_worked_out(cli, book):
    # "租一年8卡H20多少钱" had listed the offers alone
    out = json.loads(cli("faq", "租一年8卡H20多少钱", "--json").stdout)
    assert out["topic"] == "prices"
    lease = next(o for g in out["prices"] for o in g["offers"] if o["kind"] == "rent_month")
    assert out["answer"].startswith("8 张卡租 12 个月：")
    assert money(lease["price"] * 8 * 12, lease["currency"]) in out["answer"].splitlines()[0]
    # in Slack the same line leads the price blocks
    from advisor.planning.followup import gpu_prices
    from bot import blocks

    priced = gpu_prices("租一年8卡H20多少钱", "zh", book)
    first = blocks.prices(priced.rows, priced.part, priced.lang, priced.lead)["blocks"][0]
    assert first["text"]["text"].startswith("8 张卡租 12 个月：")


def _worked(out: dict, gpus: int, months: int) -> tuple[float | None, float | None]:
    """The lease and the hours around the clock a price answer's first line works out, from the
    offers on record it names (each found by its price and date), checked against their terms:
    a lease signable on the months asked, priced server by server where one order takes fewer
    GPUs, its term said to be assumed where no source states it; hours only from an offer that
    takes every GPU in one order."""
    first = out["answer"].splitlines()[0]
    offers = [o for g in out["prices"] for o in g["offers"] if not o["indicative"]]

    def named(o, unit):
        return f"{money(o['price'], o['currency'])}{unit}" in first and o["as_of"] in first

    lease = hour = None
    for o in offers:
        if o["kind"] == "rent_month" and named(o, ""):
            assert o["min_term_months"] <= months, o  # a 12-month lease is no price for 3 months
            assert ("server by server" in first or "逐台" in first) is (o["max_gpus"] < gpus)
            assert ("term assumed" in first or "租期为假设" in first) is (o["min_term_months"] == 0)
            lease = o["price"] * gpus * months
        if o["kind"] == "rent_hour" and named(o, ""):
            if "hourly lists at 30% off" in first or "按小时价下浮 30%" in first:
                lease = o["price"] * rent.HOURS_PER_MONTH * (1 - rent.RESERVED_DISCOUNT) * gpus * months
            assert o["max_gpus"] >= gpus, o  # instances of 8 do not rent 64 GPUs by the hour
            hour = o["price"] * rent.HOURS_PER_MONTH * gpus * months
    # (the hours as the offer bills them: whole days where it bills by the day)
    amounts = [float(x.replace(",", "")) for x in re.findall(r"[$¥]([\d,]+(?:\.\d+)?)", first)]
    for total in (lease, hour):
        assert total is None or any(abs(a - total) <= 0.01 * total for a in amounts), (total, first)
    if hour is None and gpus > 8:
        assert f"takes {gpus} GPUs in one order" in first or f"一单能租到 {gpus} 张卡" in first
    return lease, hour


@pytest.mark.parametrize(
    "question,gpus,months",
    [
        # 租用 is renting, not "using" the GPUs for a job (a model's size had been asked)
        ("租用8卡A100一个月多少钱", 8, 1),
        # servers counted are their GPUs, and the months read without a lease word before them
        ("need a quote for 4 nodes of H100 for 3 months", 32, 3),
        ("租两台8卡H800半年多少钱", 16, 6),
        # "we" with GPUs counted for a term is no job (the price-trend topic had answered)
        ("we need 8xH100 for 6 months, what's a fair monthly price?", 8, 6),
        # no price word: GPUs counted for a term in words are the price asked (the price-trend topic before)
        ("8x H100 for a year?", 8, 12),
        ("8张H100用半年多少钱", 8, 6),
        # months in Chinese numerals far from 租 (the offers had been listed alone), priced on a lease
        # the term and the count can sign: the cheapest listed, a 12-month lease of up to 16 GPUs, and
        # instances of up to 8 by the hour had priced it
        ("租 64 张 H800 三个月多少钱", 64, 3),
        ("how much to rent 64 H800 for 3 months?", 64, 3),
    ],
)
def test_gpus_and_servers_counted_for_a_term_are_worked_out_on_a_lease_that_delivers_them(cli, question, gpus, months):
    out = json.loads(cli("faq", question, "--json").stdout)
    assert out["topic"] == "prices"
    assert out["answer"].startswith((f"{gpus} GPUs for {months} month", f"{gpus} 张卡租 {months} 个月"))
    lease, _ = _worked(out, gpus, months)
    assert lease is not None


@pytest.mark.parametrize(
    "question,lang,first",
    [
        ("how much does an 8x H100 server cost to buy?", "en", True),
        ("买一台8卡H800服务器多少钱", "zh", True),
        ("how much is an H100 per hour?", "en", False),
        # a DGX is a system sold whole, a price a unit is a server's (the rents had led)
        ("how much does a DGX H200 cost?", "en", True),
        ("H800现在多少钱一台", "zh", True),
    ],
)
def test_a_price_asked_to_buy_leads_with_the_purchase_in_text_and_in_slack(cli, book, question, lang, first):
    # Slack's price blocks had shown the rents alone, and the text put the purchase last even when
    # the question asked what a server costs to buy
    from advisor.planning.followup import gpu_prices
    from bot import blocks

    priced = gpu_prices(question, lang, book)
    assert priced.bought and priced.buy_first is first
    buy = "购买" if lang == "zh" else "To buy"
    text = cli("faq", question).stdout
    assert (text.index(buy) < text.index("已记录的价格" if lang == "zh" else "Prices on record")) is first
    laid = [b["text"]["text"] for b in blocks.prices(priced.rows, priced.part, lang, priced.lead, priced.bought, first)[
        "blocks"
    ] if b["type"] == "section"]  # fmt: skip
    at = laid.index(f"*{buy}*")
    assert (at == 0) is first and (at == len(laid) - 1) is not first
    server = next(b for b in priced.bought if b["kind"] == "buy_server")
    section = blocks.prices(priced.rows, priced.part, lang, priced.lead, priced.bought, first)["blocks"]
    fields = next(b["fields"] for b in section if b["type"] == "section" and b["text"]["text"] == f"*{buy}*")
    assert any(money(server["price"], server["currency"]) in f["text"] for f in fields)


def test_a_servers_purchase_price_asked_in_a_thread_is_the_price_not_a_buy_whatif(cli):
    # "how much is an H100 server to buy?" had read "100 server" as a count to buy for the job and drawn the menu
    out = json.loads(
        cli("ask", "7b lora 20k samples 2d", "--follow-up", "how much is an H100 server to buy?", "--json").stdout
    )
    (reply,) = out["follow_ups"]
    assert reply["kind"] == "prices" and reply["part"] == "H100-SXM5-80GB" and reply["text"].startswith("To buy")


@pytest.mark.parametrize(
    "question,named",
    [
        ("is it cheaper to rent H100s on RunPod or Lambda?", ("runpod", "lambda")),
        ("AutoDL和阿里云租4090哪个便宜", ("autodl", "alibaba")),
    ],
)
def test_providers_named_as_a_choice_list_their_offers_of_the_gpu(cli, question, named):
    # the price-trend topic (and the cloud-or-own-room topic) had answered
    out = json.loads(cli("faq", question, "--json").stdout)
    assert out["topic"] == "prices"
    offers = [o for g in out["prices"] for o in g["offers"]]
    said = {n for o in offers for n in named if n in o["provider"].lower()}
    assert offers and said == set(named)
    assert all(any(n in o["provider"].lower() for n in named) for o in offers)


@pytest.mark.parametrize(
    "question,amount,currency,enough",
    [
        # "80万" had been refused as a word not understood; the 30万 question had drawn the H20 topic
        ("租4台8卡A800，一年，预算够不够80万", 800_000, "CNY", False),
        ("租8卡H20半年，30万够吗", 300_000, "CNY", True),
        ("is $500k enough for 64 H100 for 6 months?", 500_000, "USD", None),
    ],
)
def test_a_sum_asked_to_cover_gpus_for_a_term_is_set_against_the_cheaper_way(
    cli, book, question, amount, currency, enough
):
    out = json.loads(cli("faq", question, "--json").stdout)
    assert out["topic"] == "prices"
    first = out["answer"].splitlines()[0]
    gpus, months = (32, 12) if "A800" in question else (8, 6) if "H20" in question else (64, 6)
    offers = [o for g in out["prices"] for o in g["offers"]]
    # (each total is checked in the line by `_worked`)
    cheaper = min(t for t in _worked(out, gpus, months) if t is not None)
    assert money(amount, currency) in first
    # a sum in dollars is weighed on the global clouds' offers, one in yuan on the mainland's
    assert {o["market"] for o in offers} == {"global" if currency == "USD" else "china"}
    covers = "to spare" in first or "还剩" in first
    assert covers is (amount >= cheaper) and (enough is None or covers is enough)


def test_a_provider_named_with_no_offer_of_the_gpu_is_said(cli):
    # Lambda lists no A800: its absence had gone unsaid beside AutoDL's offers
    out = json.loads(cli("faq", "A800 on AutoDL or Lambda, which is cheaper?", "--json").stdout)
    assert out["topic"] == "prices"
    assert out["answer"].startswith("No A800-SXM4-80GB offer from Lambda is on record.")
    assert all("autodl" in o["provider"].lower() for g in out["prices"] for o in g["offers"])


@pytest.mark.parametrize(
    "question,gpu,ratio",
    [
        ("8卡H20服务器 120万 合理吗", "H20-96GB", 1_200_000 / 1_090_000),
        ("is $300k for an 8x H100 server fair?", "H100-SXM5-80GB", 300_000 / 317_000),
        ("vendor quoted 1.2M RMB for an 8x H20 server, fair?", "H20-96GB", 1_200_000 / 1_090_000),
    ],
)
def test_a_servers_purchase_price_asked_about_is_judged_against_the_price_on_record(cli, question, gpu, ratio):
    # "8卡H20服务器 120万 合理吗" had drawn the rack-power topic; the English ones were refused for the model's size
    out = json.loads(cli("faq", question, "--json").stdout)
    assert out["topic"] == "purchase_quote" and out["gpu"] == gpu
    said = re.search(r"(\d+\.\d\d) ?(?:x|倍)", out["answer"])
    assert said and float(said[1]) == pytest.approx(ratio, abs=0.006)
    # handed over without a question it is no question answered here, and a request is still a request
    assert json.loads(cli("faq", "8卡H20服务器 120万", "--json").stdout)["topic"] != "purchase_quote"
