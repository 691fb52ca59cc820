"""Quotes as vendors write them (probe43 items 3, 4, 5, 7): per-server prices and server counts,
terms beside the price (deposit, payment cadence, upfront share, off-peak discount, fabric) kept
out of the vendor's name and stated in the reply, a zero price refused for what it is, and the
cost of owning the same servers by the planner's purchase arithmetic."""

import json

import pytest

from advisor.market.quotes import EXAMPLE, parse_quote
from advisor.request.parser import RequestError


@pytest.mark.parametrize(
    "text,gpus,servers,price,per,per_gpu,whole,term,per_gpu_hour,vendor",
    [
        # item 3: refused before (exit 2)
        ("2台8卡H800 69000元/台/月 年租 SMM渠道", 16, 2, 69000, "month", False, True, 12, 69000 / 8 / 730, "SMM渠道"),
        ("8卡910B 1.4万/台/月 半年 华东某云", 8, None, 14000, "month", False, True, 6, 14000 / 8 / 730, "华东某云"),
        ("8卡910B 1.4万/台·月 半年 华东某云", 8, None, 14000, "month", False, True, 6, 14000 / 8 / 730, "华东某云"),
        (
            "8xH100 87000 CNY per server per month 2 year minimum deposit 2 months Bar",
            8,
            None,
            87000,
            "month",
            False,
            True,
            24,
            87000 / 8 / 730,
            "Bar",
        ),
        (
            "256xH100 $1.85/hr 3 years 25% upfront CoreWeave",
            256,
            None,
            1.85,
            "hour",
            False,
            False,
            36,
            1.85,
            "CoreWeave",
        ),
        # item 5: the servers counted
        (
            "4台 8卡A100-80GB 每台每月3.2万 12个月 IB组网 江苏某IDC",
            32,
            4,
            32000,
            "month",
            False,
            True,
            12,
            32000 / 8 / 730,
            "江苏某IDC",
        ),
        ("4机32卡H800 每台每月7万 某云", 32, 4, 70000, "month", False, True, None, 70000 / 8 / 730, "某云"),
    ],
)
def test_per_server_prices_server_counts_and_terms_are_read(
    cli, text, gpus, servers, price, per, per_gpu, whole, term, per_gpu_hour, vendor
):
    q = parse_quote(text)
    assert (q.gpus, q.servers, q.price, q.per, q.per_gpu, q.whole_said, q.term_months, q.vendor) == (
        gpus,
        servers,
        price,
        per,
        per_gpu,
        whole,
        term,
        vendor,
    )
    out = cli("quote", text, "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["per_gpu_hour"] == pytest.approx(per_gpu_hour)
    assert data["monthly_total"] == pytest.approx(per_gpu_hour * gpus * 730)
    assert data["recorded"] is True


@pytest.mark.parametrize(
    "text,vendor,terms",
    [
        ("8卡H200 每台每月14万 一年 押一付一 湖北某IDC", "湖北某IDC", {"deposit_months": 1, "pay_every_months": 1}),
        ("8卡H200 14万/月 押二付一 1年 某云", "某云", {"deposit_months": 2, "pay_every_months": 1}),
        ("8卡H200 14万/月 押一付三 1年 某云", "某云", {"deposit_months": 1, "pay_every_months": 3}),
        ("8卡A800 月租3.5万 按季付 云擎天下", "云擎天下", {"pay_every_months": 3}),
        ("8卡H800 单价8.5元/卡/时 包月 某云", "某云", {}),
        (
            "16xH100 $2.40/GPU-hour, min 3 months, 20% off-peak discount nights, Baz",
            "Baz",
            {"offpeak_discount": 0.2},
        ),
        ("8卡H800 8.5元/卡/时 闲时8折 某云", "某云", {"offpeak_discount": 0.2}),
        ("8xH100 87000 CNY per server per month 2 year minimum deposit 2 months Bar", "Bar", {"deposit_months": 2}),
        ("256xH100 $1.85/hr 3 years 25% upfront CoreWeave", "CoreWeave", {"upfront_share": 0.25}),
        ("4台 8卡A100-80GB 每台每月3.2万 12个月 IB组网 江苏某IDC", "江苏某IDC", {"fabric": "ib"}),
        (
            "16xH100 $2.2/GPU-hour 1 year RoCE paid quarterly Acme Cloud",
            "Acme Cloud",
            {"fabric": "roce", "pay_every_months": 3},
        ),
    ],
)
def test_terms_are_read_as_terms_and_kept_out_of_the_vendor_name(text, vendor, terms):
    q = parse_quote(text)
    assert q.vendor == vendor  # as written: not lower-cased, no term words in it
    read = {
        k: getattr(q, k) for k in ("deposit_months", "pay_every_months", "upfront_share", "offpeak_discount", "fabric")
    }
    assert read == dict.fromkeys(read) | terms


def test_the_reply_states_the_cash_the_terms_tie_up(cli):
    zh = cli("quote", "8卡H200 14万/月 押二付一 1年 某云").stdout
    assert "押金：          2 个月租金，¥280,000" in zh and "签约时连同首期付款共需 ¥420,000" in zh
    assert "付款：          按月预付，每次 ¥140,000" in zh
    assert "押二付一" not in zh.split("\n")[0]  # not in the vendor's name
    quarterly = cli("quote", "8卡A800 月租3.5万 按季付 云擎天下").stdout
    assert "每 3 个月预付一次，每次 ¥105,000" in quarterly and "云擎天下的报价" in quarterly
    en = cli("quote", "8xH100 87000 CNY per server per month 2 year minimum deposit 2 months Bar").stdout
    assert en.startswith("Quote from Bar: 8 x H100-SXM5-80GB at ¥87,000 per server-month, 24 months")
    assert "deposit:          2 months of rent, ¥174,000, held until the lease ends; signing takes ¥261,000" in en
    upfront = cli("quote", "256xH100 $1.85/hr 3 years 25% upfront CoreWeave").stdout
    # 25% of $1.85 x 256 GPUs x 730 h x 36 months
    assert "upfront:          25% of the 36-month contract, $3,111,552 at signing" in upfront
    offpeak = cli("quote", "16xH100 $2.40/GPU-hour, min 3 months, 20% off-peak discount nights, Baz").stdout
    assert "off-peak:         20% off, $1.92 per GPU-hour" in offpeak and "Quote from Baz:" in offpeak
    ib = cli("quote", "4台 8卡A100-80GB 每台每月3.2万 12个月 IB组网 江苏某IDC").stdout
    assert ib.startswith("江苏某IDC 的报价：32 × A100-SXM4-80GB，每台月 ¥32,000（共 4 台，每台 8 张卡），12 个月")
    assert "组网：          服务器之间用 InfiniBand" in ib
    # the stored row keeps the name as written and the terms in its note
    shown = json.loads(cli("prices", "show", "A100-80GB", "--json").stdout)
    assert "江苏某IDC" in json.dumps(shown, ensure_ascii=False) and "ib组网" not in json.dumps(
        shown, ensure_ascii=False
    )


def test_a_cluster_quote_on_a_fabric_is_compared_with_cluster_offers(cli):
    """Item 5: 4 servers of 8 A100 on IB at ¥32k a server-month against the cluster leases with a
    fabric (SMM's 32x8 A100 IB at about 3.15-3.8万 a server), not one bare-metal server."""
    data = json.loads(cli("quote", "4台 8卡A100-80GB 每台每月3.2万 12个月 IB组网 江苏某IDC", "--json").stdout)
    assert data["quote"]["gpus"] == 32 and data["quote"]["servers"] == 4 and data["quote"]["fabric"] == "ib"
    assert data["compared_with"] == "cluster_offers" and "cluster lease" in data["market_source"]
    assert data["verdict"] == "fair" and 0.8 < data["market_ratio"] < 1.1
    # the same servers without a fabric stated: the server leases, as before
    bare = json.loads(cli("quote", "4台 8卡A100-80GB 每台每月3.2万 12个月 某IDC", "--json").stdout)
    assert bare["compared_with"] == "month_leases"
    # a fabric stated where no cluster offer is on record: said, and compared with what there is
    none = json.loads(cli("quote", "4台 8卡H20 每台每月4.8万 IB组网 某IDC", "--json").stdout)
    assert "no_cluster_offer" in none["signs"] and none["compared_with"] == "month_leases"
    # recorded as a cluster on that fabric, so a multi-server plan can use it
    from contextlib import closing

    from advisor.market.store import open_store

    with closing(open_store("test.db")) as db:
        row = next(
            db.query("SELECT offer_kind, fabric, max_gpus, price FROM observations WHERE provider = '江苏某IDC'")
        )
    assert (row["offer_kind"], row["fabric"], row["max_gpus"], row["price"]) == ("cluster", "ib", 32, 4000)


@pytest.mark.parametrize("text", ["8xH100 ¥0/month 1 year Foo", "8卡H800 0元/台/月 某云", "H100 $0.00/hr acme"])
def test_a_zero_price_is_refused_for_what_it_is_with_an_example_that_works(cli, text):
    with pytest.raises(RequestError) as info:
        parse_quote(text)
    assert info.value.kind == "quote_price"
    en, zh = info.value.message("en"), info.value.message("zh")
    assert en.startswith("A price of nothing is not a quote") and f"`/gpu quote {EXAMPLE}`" in en
    assert zh.startswith("价格为零不是报价")
    parse_quote(EXAMPLE)  # the example reads
    out = cli("quote", text)
    assert out.returncode == 2 and ("A price of nothing" in out.stderr or "价格为零" in out.stderr)


def test_an_absurd_price_is_refused_as_a_price():
    with pytest.raises(RequestError) as info:
        parse_quote("8xH100 $90000/gpu/hour acme")
    assert info.value.kind == "quote_price" and "no price a GPU rents for" in info.value.message("en")


# -- item 7: owning the same servers, by the planner's purchase arithmetic --------------------------


@pytest.mark.parametrize(
    "quote,ask",
    [
        # a module price (H200: the 8-GPU board / 0.76), one server
        ("8卡H200 每台每月14万 一年 押一付一 湖北某IDC", "13B full-finetune 200GB 7d on 8xH200 buy"),
        # a server price, four servers (+15% for the cluster)
        ("4台 8卡A100-80GB 每台每月3.2万 12个月 IB组网 江苏某IDC", "13B full-finetune 200GB 7d on 32xA100-80GB buy"),
        # a card price (A800: card / 0.5)
        ("8卡A800 月租3.5万 按季付 云擎天下", "13B full-finetune 200GB 7d on 8xA800 buy"),
    ],
)
def test_owning_the_same_servers_is_the_planners_cost_of_owning(cli, quote, ask):
    """The quote's owning figure is the plan's cost of owning the same servers over 36 months
    (capex less its resale value then, power at 70% use, hosting per kW-month, upkeep), a month."""
    data = json.loads(cli("quote", quote, "--json").stdout)
    plan = json.loads(cli("ask", ask, "--json").stdout)["cost"]
    o = data["owning"]
    assert o["capex"] == pytest.approx(plan["buy_capex"])
    assert o["power_month"] * 12 == pytest.approx(plan["power_cost_year"])
    assert o["hosting_month"] * 12 == pytest.approx(plan["hosting_cost_year"])
    assert data["owning_per_month"] == pytest.approx(plan["ownership_cost"] / 36)


def test_the_h200_module_is_not_taken_for_the_whole_server(cli):
    """Probe item 7: ¥1.4M is the H200's 8-GPU module; the server is 1.4M / 0.76 = ¥1,842,105, and
    hosting (570 ¥/kW-month x 10.2 kW) is part of owning it."""
    data = json.loads(cli("quote", "8卡H200 每台每月14万 一年 押一付一 湖北某IDC", "--json").stdout)
    o = data["owning"]
    assert o["basis"] == "module" and o["capex"] == pytest.approx(1_400_000 / 0.76)
    assert o["hosting_month"] == pytest.approx(10.2 * 570)
    assert data["owning_per_month"] > 1_400_000 / 36  # had been ¥42,631: the module over 36 months plus power
    text = cli("quote", "8卡H200 每台每月14万 一年 押一付一 湖北某IDC").stdout
    assert "8 卡模组 ¥1,400,000，除以 0.76 计入整机其余部分" in text and "托管费（每月 ¥5,814）" in text
    en = cli("quote", "8xH200 ¥140000/month 1 year acme", "--lang", "en").stdout
    assert "owning them:      ¥1,842,105 for 1 server (the 8-GPU board at ¥1,400,000, divided by 0.76" in en
    assert "hosting (¥5,814 a month)" in en
