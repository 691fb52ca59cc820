"""The command line as users and outside checks drive it (CONTRACT sections 1 and 4)."""

import json
import os
import re
import shutil
import subprocess
import sys

import pytest
from conftest import ROOT

CONTRACT_EXAMPLES = [
    "70B full-finetune 1TB 14d budget",
    "7b lora 20GB 3d",
    "13B 全量微调 200GB数据 7天 预算10万",
    "65B pretrain 1.4T tokens on 2048xA100-80GB",
    "70B qlora r=8 seq 2048 mbs 2 on 2xA100-40GB zero3 recompute full",
]


def test_every_contract_example_answers_in_json(cli):
    for text in CONTRACT_EXAMPLES:
        out = cli("ask", text, "--json")
        assert out.returncode == 0, out.stderr
        data = json.loads(out.stdout)
        req = data["request"]
        for key in (
            "params_b",
            "active_params_b",
            "model",
            "method",
            "lora_rank",
            "tokens",
            "epochs",
            "deadline_days",
            "budget",
            "cost_first",
            "gpu",
            "gpu_count",
            "precision",
            "optimizer",
            "seq_len",
            "micro_batch",
            "global_batch",
            "zero_stage",
            "offload",
            "recompute",
            "lang",
            "assumptions",
        ):
            assert key in req, (text, key)
        assert isinstance(req["assumptions"], list) and req["assumptions"]


def test_hardware_given_request_reports_plan_memory_and_time(cli):
    data = json.loads(cli("ask", "65B pretrain 1.4T tokens seq 2048 on 2048xA100-80GB", "--json").stdout)
    plan, mem, train = data["plan"], data["memory_gib_per_gpu"], data["training"]
    assert plan["gpu"] == "A100-SXM4-80GB" and plan["gpu_count"] == 2048
    assert plan["tp"] * plan["pp"] * plan["dp"] == 2048 and plan["nodes"] * plan["gpus_per_node"] == 2048
    parts = sum(mem[k] for k in ("weights", "gradients", "optimizer", "activations", "other"))
    assert abs(parts - mem["total"]) < 1e-6 and mem["total"] <= 80
    # published: 1,022,362 GPU-hours over 21 days (Touvron et al. 2023)
    assert 0.85 < train["gpu_hours"] / 1_022_362 < 1.3
    assert 0.3 < train["mfu"] < 0.6 and train["flops"] > 5e23


def test_no_data_gives_plan_and_memory_but_no_time(cli):
    data = json.loads(cli("ask", "70B qlora r=8 seq 2048 mbs 2 on 2xA100-40GB zero3 recompute full", "--json").stdout)
    assert data["plan"]["gpu_count"] == 2 and data["memory_gib_per_gpu"]["total"] < 40
    assert all(data["training"][k] is None for k in ("tokens", "flops", "gpu_hours", "days", "mfu"))


def test_missed_deadline_and_no_fit_are_warned_in_words(cli):
    data = json.loads(cli("ask", "70B full-finetune 1TB 3d on 8xH100", "--json").stdout)
    assert any("deadline" in w for w in data["warnings"])
    zh = json.loads(cli("ask", "70B 全量微调 1TB 3天 用8xH100", "--json").stdout)
    assert any("截止" in w for w in zh["warnings"])
    tight = json.loads(cli("ask", "70B full-finetune seq 4096 on 1xRTX4090 offload", "--json").stdout)
    assert tight["plan"]["fits"] is False and tight["warnings"]


def test_terminal_answer_shows_understanding_and_arithmetic(cli):
    out = cli("ask", "7b", "lora", "20GB", "3d", "on", "1x4090")
    assert out.returncode == 0
    assert "What I understood" in out.stdout and "Memory per GPU" in out.stdout
    assert "bytes of cleaned English text per token" in out.stdout
    zh = cli("ask", "7b lora 20GB 3天 用1x4090")
    assert "我理解的需求" in zh.stdout and "每卡显存" in zh.stdout
    assert "What I understood" in cli("ask", "7b lora 20GB 3天", "--lang", "en").stdout


def test_bad_input_exits_2_with_a_short_explanation(cli):
    for text in ("frobnicate 14d", "70B on 8xH300", "70B 14d 30d", "", "70B budget -5"):
        out = cli("ask", text, "--json")
        assert out.returncode == 2, text
        assert out.stdout == ""
        assert "Traceback" not in out.stderr and 0 < len(out.stderr) < 600
        assert "/gpu" in out.stderr or "`" in out.stderr


def test_faq_command_follows_the_contract(cli):
    out = cli("faq", "why NVLink?", "--json")
    assert out.returncode == 0
    data = json.loads(out.stdout)
    assert set(data) >= {"topic", "answer", "score", "confident"}
    assert data["topic"] == "nvlink_vs_pcie" and data["confident"] is True
    assert isinstance(data["score"], float) and "NVLink" in data["answer"]
    zh = json.loads(cli("faq", "服务器内存要配多少", "--json").stdout)
    assert zh["topic"] == "ram_sizing" and "内存" in zh["answer"]
    en = json.loads(cli("faq", "服务器内存要配多少", "--json", "--lang", "en").stdout)
    assert "RAM" in en["answer"] or "memory" in en["answer"]
    odd = json.loads(cli("faq", "asdf qwer", "--json").stdout)
    assert odd["confident"] is False and odd["topic"]


def test_ask_json_has_every_contract_key(cli):
    data = json.loads(cli("ask", "70B full-finetune 1TB 14d budget", "--json").stdout)
    required = {
        "plan": [
            "gpu",
            "gpu_count",
            "nodes",
            "gpus_per_node",
            "tp",
            "pp",
            "dp",
            "zero_stage",
            "offload",
            "recompute",
            "micro_batch",
        ],
        "memory_gib_per_gpu": ["weights", "gradients", "optimizer", "activations", "other", "total"],
        "training": ["tokens", "flops", "mfu", "gpu_hours", "days"],
        "infra": ["cpu_cores_per_node", "ram_gib_per_node", "nvme_tb_per_node", "storage_read_gb_per_s", "network"],
        "cost": ["currency", "rent_total", "buy_capex", "buy_tco_first_year", "decision", "price_sources"],
    }
    for section, keys in required.items():
        for key in keys:
            assert data[section][key] is not None, (section, key)
    assert data["plan"]["offload"] in ("none", "optimizer", "all")
    assert data["plan"]["recompute"] in ("none", "selective", "full")
    assert data["cost"]["currency"] in ("CNY", "USD") and data["cost"]["decision"] in ("rent", "buy")
    assert isinstance(data["cost"]["rent_total"], float)
    for alt in data["alternatives"]:
        assert {"gpu", "gpu_count", "days", "cost"} <= set(alt)
    assert isinstance(data["warnings"], list)


def test_ask_takes_the_leading_command_words(cli):
    assert "Type what you want to train" in cli("ask", "help").stdout
    assert "在 `/gpu` 后面写上" in cli("ask", "帮助").stdout
    prices = json.loads(cli("ask", "prices H800", "--json").stdout)
    assert prices[0]["gpu"] == "H800-SXM-80GB"
    quote = json.loads(cli("ask", "quote 8xH800 ¥75000/month vendorY", "--json").stdout)
    assert quote["quote"]["vendor"] == "vendorY" and quote["verdict"] == "fair"  # like with like (issue 15)
    digest = json.loads(cli("ask", "digest", "--json").stdout)
    assert {"date", "previous", "changes", "added", "removed"} <= set(digest)
    assert cli("ask", "prices H300").returncode == 2
    # the billing named beside the GPU, as `prices show` reads it (the words had been passed as one name)
    monthly = json.loads(cli("ask", "prices H800 monthly", "--json").stdout)
    assert monthly[0]["gpu"] == "H800-SXM-80GB" and {o["kind"] for o in monthly[0]["offers"]} == {"rent_month"}


# --- the entry point in a real process (every other test calls main() in this process) -------


def _real(command, *args, tmp_path):
    env = dict(os.environ, GPU_ADVISOR_DB=str(tmp_path / "smoke.db"), PYTHONPATH=str(ROOT))
    env.pop("GPU_ADVISOR_DEBUG", None)
    return subprocess.run([*command, *args], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120)


ENTRY_POINTS = [
    pytest.param([sys.executable, "-m", "advisor.cli"], id="python -m advisor.cli"),
    pytest.param(
        ["gpu-advisor"],
        id="gpu-advisor",
        marks=pytest.mark.skipif(shutil.which("gpu-advisor") is None, reason="not installed (pip install .)"),
    ),
]


@pytest.mark.parametrize("command", ENTRY_POINTS)
def test_entry_point_answers_and_exits_0(command, tmp_path):
    out = _real(command, "ask", "7b lora 20GB 3d", "--json", tmp_path=tmp_path)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["plan"]["gpu_count"] >= 1
    assert (tmp_path / "smoke.db").exists()


def test_entry_point_exits_2_on_bad_input_without_a_traceback(tmp_path):
    command = [sys.executable, "-m", "advisor.cli"]
    refused = _real(command, "ask", "frobnicate 14d", tmp_path=tmp_path)
    assert refused.returncode == 2 and refused.stdout == ""
    assert "frobnicate" in refused.stderr and "Traceback" not in refused.stderr
    unknown = _real(command, "frobnicate", tmp_path=tmp_path)  # argparse's own refusal
    assert unknown.returncode == 2 and "Traceback" not in unknown.stderr


def test_an_ascend_plan_names_its_own_runtime_and_collectives(cli):
    out = cli("ask", "70B full-finetune 100GB on 64x910B")
    assert out.returncode == 0
    assert "CANN runtime context and HCCL buffers" in out.stdout and "CUDA context" not in out.stdout


@pytest.mark.parametrize(
    "text,line",
    [
        ("32B 全量微调 50GB 两周 IB组网", "由我选择，机间 InfiniBand"),
        ("32B full-finetune 50GB 14d roce", "RoCE between servers"),
    ],
)
def test_the_fabric_asked_for_is_read_back(cli, text, line):
    out = cli("ask", text)
    assert out.returncode == 0 and line in out.stdout.split("\n\n")[1]


@pytest.mark.parametrize(
    "text,says",
    [
        ("你好", "为训练任务规划 GPU 服务器"),
        ("hello!", "plans the GPU servers"),
        ("怎么用？", "为训练任务规划"),
        # thanks alone had been "please tell me the model size" ("thanks") or "did not understand"
        ("thanks", "plans the GPU servers"),
        ("thank you!", "plans the GPU servers"),
        ("谢谢", "为训练任务规划"),
    ],
)
def test_a_greeting_alone_gets_the_help(cli, text, says):
    out = cli("ask", text)
    assert out.returncode == 0 and says in out.stdout
    # inside a request a greeting is one more word read past
    assert "GPU-hours" in cli("ask", "hello 7b lora 1GB 1d").stdout


@pytest.mark.parametrize("text", ["", "   "])
def test_an_empty_question_is_input_it_cannot_use(cli, text):
    out = cli("faq", text)
    assert out.returncode == 2 and "gpu-advisor faq" in out.stderr and "Traceback" not in out.stderr


def test_an_offloading_plan_says_why_no_hourly_offer_rents_it_and_what_does_not_fit(cli):
    """8 H800 for a 70B full fine-tune on DeepSpeed offload about 122 GB a GPU to the host (its
    gradients too), more than the cloud instances on record give a GPU: the monthly lease's
    warning says so. A plan that the cards hold but the servers' RAM does not says which of the
    two is short."""
    out = cli("ask", "70B full-finetune 0.1B tokens on 8xH800 deepspeed")
    assert out.returncode == 0
    assert re.search(r"at most 120 GB of host memory a GPU, and this plan offloads about 1\d\d GB", out.stdout)
    short = cli("ask", "qwen3-235b-a22b full-finetune 50k samples on 8xH20")
    head = short.stdout.splitlines()[0]
    assert "(DOES NOT FIT in the servers' RAM)" in head
    assert "what is offloaded does not fit in the servers' RAM" in short.stdout
    assert "more than a plan may use" not in short.stdout


def test_a_purchase_priced_from_the_other_market_says_so(cli):
    # a US buyer's 4090 purchase came from a Chinese retail listing without a word (no US 4090
    # purchase price is on record)
    out = cli("ask", "gemma-2-27b sft 100k samples 5d usd on 4x4090", "--json")
    data = json.loads(out.stdout)
    assert data["plan"]["gpu"] and data["cost"]["buy_capex"]
    sources = [s for s in data["cost"]["price_sources"] if s["role"].startswith("buy")]
    other = [s for s in sources if s["currency"] == "CNY"]
    said = [w for w in data["warnings"] if "No purchase price of" in w and "mainland China, converted" in w]
    assert other and said  # the plan's purchase is a Chinese listing on record, so the warning is due


def test_a_lease_the_job_hardly_uses_is_said_in_the_headline(cli):
    """A 5-hour job on one H100 in China can only be rented as a month of a whole server: the
    headline's rent says it is that lease, and how much of it the job uses (a user read the
    bare ¥75,000 as a bug)."""
    head = cli("ask", "llama 3.3 70b qlora on a single H100, 20k samples").stdout.splitlines()[0]
    assert re.search(r"rent about ¥[\d,]+ \(a 1-month lease, of which the job uses [\d.]+ hours\)(;|$)", head)
    hourly = cli("ask", "7b lora 20GB 3d").stdout.splitlines()[0]
    assert "lease" not in hourly


def test_a_gpu_without_bf16_says_fp16_in_what_was_understood(cli):
    out = cli("ask", "kimi-k2 qlora 2万条 预算10万 用V100").stdout
    assert "数值设置：  fp16" in out and "bf16 计算" not in out


def test_the_break_even_says_the_use_the_team_gave(cli):
    out = cli("ask", "70B full 300B tokens 45d buy 60% use usd").stdout
    line = next(x for x in out.splitlines() if "break-even" in x)
    assert "60% use" in line and "70%" not in out


def test_over_budget_names_an_alternative_within_both(cli):
    """A buyer over budget had been told only the cheapest full fine-tune's cost, while LoRA shown
    below it met both the deadline and the budget."""
    out = cli("ask", "qwen2.5-72b full 50B tokens 21d usd rent budget $20k").stdout
    line = next(x for x in out.splitlines() if "Over budget" in x)
    assert "LoRA instead of full fine-tuning comes within both" in line
    assert re.search(r"\$[\d,]+\.$", line)


def test_ask_answers_follow_ups_in_the_plans_thread(cli):
    # the bot's thread replies without Slack: each message against the plan the thread stores
    out = cli("ask", "70B full-finetune 1TB 14d", "--follow-up", "what if we had 30 days?", "--follow-up", "thanks")
    assert out.returncode == 0, out.stderr
    plan, whatif, thanks = out.stdout.split("\n> ")
    assert "What if: deadline 14 days -> 30 days" in whatif and "(no reply" in thanks
    data = json.loads(
        cli("ask", "70B full-finetune 1TB 14d", "--json", "--follow-up", "what if we had 30 days?").stdout
    )
    first, (reply,) = data["plan"], data["follow_ups"]
    assert reply["kind"] == "whatif" and {"name": "deadline_days", "before": "14 days", "after": "30 days"} in [
        {k: c[k] for k in ("name", "before", "after")} for c in reply["changes"]
    ]
    assert reply["plan"]["request"]["deadline_days"] == 30 and first["request"]["deadline_days"] == 14
    assert reply["plan"]["cost"]["rent_total"] < first["cost"]["rent_total"]


# ----------------------------------------------------------------------------------------
# Configuration the processes cannot work with: said as such (exit 2), never "internal error"


def _closed_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed again: nothing listens there


def test_a_closed_database_port_is_a_configuration_error_that_names_where(cli):
    port = _closed_port()
    done = cli("migrate", env={"DATABASE_URL": f"postgresql://advisor:s3cr3t-pw@127.0.0.1:{port}/gpuadv"})
    assert done.returncode == 2, done.stderr
    err = done.stderr
    assert "could not reach the database" in err and "internal error" not in err
    assert f"server 127.0.0.1, port {port}, database gpuadv, user advisor" in err
    assert "Connection refused" in err and "is running on 127.0.0.1 port" in err
    assert "s3cr3t-pw" not in done.stdout + err and "Traceback" not in err


@pytest.mark.parametrize(
    "user,database,said,hint",
    [
        ("postgres", "no_such_db", 'database "no_such_db" does not exist', "createdb -h 127.0.0.1"),
        ("no_such_role", "postgres", 'role "no_such_role" does not exist', "refused the login"),
    ],
)
def test_a_missing_database_or_login_on_a_real_postgres_says_what_to_check(
    cli, tmp_path_factory, user, database, said, hint
):
    from urllib.parse import urlsplit

    from conftest import _postgres_server

    try:
        server = urlsplit(_postgres_server(tmp_path_factory))
    except RuntimeError as err:
        pytest.skip(f"Postgres could not be started: {err}")
    url = f"postgresql://{user}:pa55-w0rd@{server.hostname}:{server.port}/{database}"
    done = cli("migrate", env={"DATABASE_URL": url})
    assert done.returncode == 2, done.stderr
    assert said in done.stderr and hint in done.stderr
    assert f"port {server.port}, database {database}, user {user}" in done.stderr
    assert "pa55-w0rd" not in done.stdout + done.stderr and "internal error" not in done.stderr


def test_a_sqlite_file_that_cannot_be_opened_names_the_file(cli, tmp_path):
    where = tmp_path / "no-such-folder" / "store.db"
    done = cli("prices", "show", env={"GPU_ADVISOR_DB": str(where)})
    assert done.returncode == 2, done.stderr
    assert f"could not open the SQLite database {where}" in done.stderr and "folder exists" in done.stderr


def test_port_0_is_a_port_for_every_command(cli):
    # a process manager may set PORT for every process it starts (tests/test_multihost.py: 0 for `work`)
    done = cli("prices", "show", "H100", env={"PORT": "0"})
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize(
    "words,kinds,markets",
    [
        (["H800", "monthly"], {"rent_month"}, {"china", "global"}),
        (["H100", "hourly", "global"], {"rent_hour", "offpeak_hour"}, {"global"}),
        (["H800", "按月"], {"rent_month"}, {"china", "global"}),
        (["a100", "80gb"], {"rent_hour", "rent_month", "offpeak_hour"}, {"china", "global"}),
    ],
)
def test_prices_show_reads_the_billing_and_the_market_beside_the_gpu(cli, words, kinds, markets):
    # "prices show H800 monthly" had been argparse's usage error
    done = cli("prices", "show", *words, "--json")
    assert done.returncode == 0, done.stderr
    (group,) = json.loads(done.stdout)
    assert group["offers"] and {o["kind"] for o in group["offers"]} <= kinds
    assert {o["market"] for o in group["offers"]} <= markets
    assert len(json.loads(cli("prices", "show", words[0], "--json").stdout)[0]["offers"]) >= len(group["offers"])


def test_slacks_prices_command_reads_the_billing_beside_the_gpu(cli):
    # `/gpu prices H800 按月` had been "unknown GPU 'H800 按月'" (the `cli` fixture's store, as the bot reads it)
    from bot.listeners.commands import prices_command

    monthly = _texts_of(prices_command("prices H800 按月", "zh", "T1"))
    assert "H800-SXM-80GB" in monthly and "按月" in monthly and "按小时" not in monthly
    assert "按小时" in _texts_of(prices_command("prices H800", "zh", "T1"))


def _texts_of(message: dict) -> str:
    return json.dumps(message, ensure_ascii=False)


def test_prices_show_of_an_unknown_gpu_with_a_period_names_the_gpu(cli):
    done = cli("prices", "show", "H300", "monthly")
    assert done.returncode == 2 and "I do not know the GPU 'H300'" in done.stderr


@pytest.mark.parametrize(
    "name,value,said",
    [
        ("PORT", "5552B", "PORT must be a port number (0 to 65535), such as PORT=3000, not '5552B'"),
        ("PORT", "70000", "such as PORT=3000, not '70000'"),
        ("WEB_THREADS", "eight", "WEB_THREADS must be a whole number above zero, such as WEB_THREADS=8"),
        ("GPU_ADVISOR_JOB_LEASE_S", "30s", "GPU_ADVISOR_JOB_LEASE_S must be a number above zero, such as"),
        ("GPU_ADVISOR_CLOCK_INTERVAL_S", "0", "GPU_ADVISOR_CLOCK_INTERVAL_S must be a number above zero"),
        ("LOG_LEVEL", "loud", "LOG_LEVEL must be DEBUG, INFO, WARNING or ERROR"),
        ("GPU_ADVISOR_PLAN_PRIORITY", "high", "GPU_ADVISOR_PLAN_PRIORITY must be idle"),
        # operator probe: these had given "internal error", a traceback or been read as on
        ("GPU_ADVISOR_CLOCK_GRACE_S", "abc", "GPU_ADVISOR_CLOCK_GRACE_S must be a number above zero"),
        ("GPU_ADVISOR_TZ", "Mars/Base", "GPU_ADVISOR_TZ must be a time zone name the zone database knows"),
        ("GPU_ADVISOR_PLAN", "maybe", "GPU_ADVISOR_PLAN must be 1"),
        ("GPU_ADVISOR_BIND", "myhost", "GPU_ADVISOR_BIND must be an IP address for `serve` to listen on"),
    ],
)
def test_a_bad_number_in_the_environment_is_named_with_an_example(tmp_path, name, value, said):
    # as deployed: the entry point in a process of its own, with the Slack settings serve needs
    env = dict(os.environ, PYTHONPATH=str(ROOT), GPU_ADVISOR_DB=str(tmp_path / "db.sqlite"))
    env |= {"SLACK_BOT_TOKEN": "xoxb-1-2", "SLACK_SIGNING_SECRET": "not-a-real-secret", name: value}
    env.pop("DATABASE_URL", None)
    done = subprocess.run(
        [sys.executable, "-m", "advisor.cli", "serve"],
        env=env,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    assert said in done.stderr and "internal error" not in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "db.sqlite").exists()  # refused before anything started


@pytest.mark.parametrize("command", ["serve", "work", "clock"])
def test_the_long_running_processes_stop_at_start_on_a_store_they_cannot_reach(tmp_path, command):
    # a clock had started anyway and logged "digest run: database OperationalError" every round
    env = dict(os.environ, PYTHONPATH=str(ROOT), SLACK_BOT_TOKEN="xoxb-1-2", SLACK_SIGNING_SECRET="not-a-secret-x")
    env |= {"DATABASE_URL": f"postgresql://advisor:s3cr3t-pw@127.0.0.1:{_closed_port()}/gpuadv", "PORT": "3999"}
    env["SLACK_API_URL"] = f"http://127.0.0.1:{_closed_port()}/api/"  # the token check reaches no real Slack
    done = subprocess.run(
        [sys.executable, "-m", "advisor.cli", command],
        env=env,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr[-2000:]
    assert "could not reach the database" in done.stderr and "s3cr3t-pw" not in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    "question,topic",
    [
        ("what's MFU and what number should I expect on H100s?", "mfu_meaning"),
        ("is fp8 safe for fine-tuning?", "precision_fp8_bf16"),
        ("do I need InfiniBand for 16 GPUs?", "internode_network"),
        ("can I mix A100 and H100 in one training job?", "mixed_gpu_generations"),
        ("H20现在还能买到吗？910B交货期多久？", "export_controls_china"),
    ],
)
def test_a_first_question_with_no_plan_in_it_is_answered_from_the_faq(cli, question, topic):
    # each had been refused with exit 2 ("I did not understand 'mfu'", "I plan one GPU type at a time")
    out = cli("ask", question, "--json")
    assert out.returncode == 0, out.stderr
    found = json.loads(out.stdout)["faq"]
    assert found["topic"] == topic and found["confident"]
    text = cli("ask", question)
    assert text.returncode == 0 and re.search(r"`/gpu 70B (full-finetune|全参微调) 1TB 14", text.stdout)


@pytest.mark.parametrize(
    "question",
    [
        "is A800 still worth renting in 2026?",
        "A800现在还值得租吗",
        "are A100s still good for training?",
        "A100还值得买吗",
    ],
)
def test_an_older_gpu_still_worth_it_is_answered_with_its_cost_against_the_newer_one(cli, question):
    # "is A800 still worth renting in 2026?" had been refused ('I did not understand "still"')
    out = cli("ask", question, "--json")
    assert out.returncode == 0, out.stderr
    found = json.loads(out.stdout)["faq"]
    assert found["topic"] == "h20_vs_h800_vs_h100" and found["confident"]
    assert re.search(r"56%.*(9 against 16|9元对16元)", found["answer"])


def test_a_question_the_faq_is_unsure_of_gets_its_closest_topics_not_a_refusal(cli):
    # a word the request language does not know, with no spelling to suggest: the FAQ's closest
    # topics, named as a guess, and how to ask for a plan (had been 'I did not understand "hpe"')
    question = "is it worth going with hpe servers?"
    out = cli("ask", question, "--json")
    assert out.returncode == 0, out.stderr
    found = json.loads(out.stdout)["faq"]
    assert not found["confident"] and found["alternatives"]
    text = cli("ask", question).stdout
    assert text.startswith("I'm not sure I understood the question.") and "`/gpu 70B full-finetune 1TB 14d`" in text


@pytest.mark.parametrize("question", ["what about 70b lroa?", "70B on 8xH300?"])
def test_a_question_whose_refusal_says_what_is_wrong_keeps_it(cli, question):
    out = cli("ask", question)
    assert out.returncode == 2 and ("did you mean `lora`" in out.stderr or '"h300"' in out.stderr)


@pytest.mark.parametrize(
    "question,topic,said,asked_for",
    [
        (
            "我们在上海，买8台H20服务器做70B微调，一年电费多少",
            "electricity_cost",
            "（一年约 ¥",
            "`/gpu 70B 微调 365天 购买 8台服务器 H20 上海`",
        ),
        (
            "how much power do 8 H800 servers draw for 70b full finetune 1TB 14d?",
            "rack_power",
            "81.6 kW for 8 node(s)",
            "`/gpu 70B full-finetune 1TB 14d 8 nodes of H800`",
        ),
    ],
)
def test_a_question_on_a_word_beside_a_plan_is_the_faqs_worked_out_on_that_plan(cli, question, topic, said, asked_for):
    # each had been refused over its one word ('我没看懂"电费"', 'I did not understand "power"'); the plain
    # FAQ had answered the second on why 70B needs 8 GPUs (its "70b" and "8 H800")
    out = cli("ask", question, "--json")
    assert out.returncode == 0, out.stderr
    found = json.loads(out.stdout)["faq"]
    assert found["topic"] == topic and found["confident"] and found["used_plan"] and not found["second"]
    text = cli("ask", question).stdout
    assert said in text and asked_for in text


def test_a_word_beside_a_request_that_is_no_plan_is_still_refused(cli):
    # without "power" the rest names a GPU that does not exist: no plan to work the answer out on
    out = cli("ask", "how much power do 8 H300 servers draw for 70b full finetune 1TB 14d?")
    assert out.returncode == 2 and '"power"' in out.stderr


def test_a_request_that_names_a_layout_without_its_degree_is_still_asked_for_it(cli):
    out = cli("ask", "70b full-finetune 1TB 14d tensor parallelism")
    assert out.returncode == 2 and "not a usable parallel degree" in out.stderr


@pytest.mark.parametrize(
    "question,gpu", [("租H800一个月多少钱", "H800-SXM-80GB"), ("how much is an H100 per hour?", "H100-SXM5-80GB")]
)
def test_a_first_question_for_a_gpus_price_gets_the_offers_on_record(cli, question, gpu):
    # `ask` had answered with the FAQ's essay on hourly against monthly billing; `faq` gave the prices
    out = cli("ask", question, "--json")
    assert out.returncode == 0, out.stderr
    found = json.loads(out.stdout)["faq"]
    assert found["topic"] == "prices" and found["gpu"] == gpu and found["prices"]
    assert found == json.loads(cli("faq", question, "--json").stdout)  # the same answer either way


@pytest.mark.parametrize(
    "question,topic",
    [
        ("what global batch size should I use for a 7B finetune?", "batch_size"),
        ("should I use flash attention for a 7b pretrain?", "attention_kernels"),
        ("what lora rank for qwen2.5-7b?", "hyperparameters"),  # the LoRA topic before the 76th topic
        # a layout named without a degree (each had been '"expert parallelism" is not a usable parallel degree')
        ("what is expert parallelism", "expert_parallelism"),
        ("explain pipeline parallelism", "parallelism_strategies"),
        ("张量并行是什么", "parallelism_strategies"),
        ("how does context parallelism work?", "context_parallelism"),
    ],
)
def test_a_question_about_a_jobs_setting_the_request_language_lacks_is_the_faqs(cli, question, topic):
    # each had been refused ('I did not understand "batch"', "attention", "rank"): a model and a
    # method with a word the requests do not use, asked as a question
    out = cli("ask", question, "--json")
    assert out.returncode == 0, out.stderr
    found = json.loads(out.stdout)["faq"]
    assert found["topic"] == topic and found["confident"]


@pytest.mark.parametrize(
    "question",
    [
        "how much does electricity cost for 8 H100s per month?",
        "8卡H100一个月电费多少",
        "what's the power bill for a 4090 server?",
    ],
)
def test_the_electricity_of_named_gpus_is_the_faqs_not_their_rent(cli, question):
    # "how much does electricity cost for 8 H100s per month?" had listed H100 rents
    found = json.loads(cli("ask", question, "--json").stdout)["faq"]
    assert found["topic"] == "electricity_cost" and found["confident"]


@pytest.mark.parametrize(
    "question,topic,plan",
    [
        ("is fp8 safe for finetuning a 70b model?", "precision_fp8_bf16", "`/gpu 70B sft fp8 50k samples`"),
        ("is lora good enough for a 70b model?", "lora_vs_full_finetune", "`/gpu 70B lora 50k samples`"),
    ],
)
def test_a_question_that_names_a_model_but_asks_no_plan_is_answered_from_the_faq(cli, question, topic, plan):
    # "is fp8 safe for finetuning a 70b model?" had been planned as a 70B fp8 full fine-tune, the
    # question dropped (skipped "safe")
    out = cli("ask", question, "--json")
    assert out.returncode == 0, out.stderr
    found = json.loads(out.stdout)["faq"]
    assert found["topic"] == topic and found["confident"]
    assert plan in found["answer"]  # how to get the plan of the job it names


@pytest.mark.parametrize(
    "text",
    [
        "is fp8 safe for finetuning a 70b model on 20GB of data?",  # data: a plan
        "how many GPUs to finetune a 70b model in fp8?",  # what only a plan answers
        "is fp8 safe for a 70b full finetune on 8xH100?",  # the GPUs counted
        "70b全量微调用fp8，预算10万够吗？",  # a budget
    ],
)
def test_a_plan_request_asked_as_a_question_is_still_planned(cli, text):
    out = cli("ask", text, "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["plan"] is not None


@pytest.mark.parametrize("text", ["lora on 4090 for 2 weeks", "what's the weather in paris?", "70B on 8xH300?"])
def test_a_request_without_a_size_or_a_question_the_faq_is_unsure_of_is_still_refused(cli, text):
    out = cli("ask", text)
    assert out.returncode == 2 and out.stdout == "" and "/gpu" in out.stderr


@pytest.mark.parametrize(
    "text,said",
    [
        ("7B sft 1B tokens, 8 H100s", True),
        ("7B sft 1B tokens, 8 H100s usd", False),
        ("7B sft 1B tokens, 8 H100s city shenzhen", False),
        ("7B 全参微调 1B tokens 8张H100", False),
        ("7B sft 1B tokens, we have 8 H100s", False),  # the team's own GPUs: no rent to price
    ],
)
def test_an_english_request_without_a_currency_says_its_cny_market_and_usd_on_the_first_line(cli, text, said):
    # an English request had been priced in yuan on mainland leases with nothing on the first line saying so
    first = cli("ask", text).stdout.splitlines()[0]
    assert ("add `usd`" in first) is said
    assert ("加上 `usd`" in cli("ask", text, "--lang", "zh").stdout.splitlines()[0]) is said


@pytest.mark.parametrize(
    "text, gpus",
    [
        (
            "H200 vs B200 for a 70B model, which should we rent? full finetune 50B tokens within 30 days, usd",
            ("H200", "B200"),
        ),
        ("grant 20万人民币 增量预训练 3B 模型 100亿token 用A800还是4090划算 3个月内", ("A800", "RTX4090")),
        ("13B lora 2亿token H800或H20 包年", ("H800", "H20")),
    ],
)
def test_two_gpu_types_named_as_a_choice_are_each_planned_side_by_side(cli, text, gpus):
    """A comparison had been refused: 'I plan one GPU type at a time'."""
    out = cli("ask", text, "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)["comparison"]
    planned = [o["plan"]["gpu"] for o in data["options"]]
    assert [g.split("-")[0] for g in planned] == list(gpus)
    spends = {o["plan"]["gpu"]: o["cost"]["rent_total"] for o in data["options"]}
    cheaper = data["verdict"]["cheaper"]
    assert cheaper["gpu"] == min(spends, key=spends.get)
    assert cheaper["saves"] == pytest.approx(max(spends.values()) - min(spends.values()))
    days = {o["plan"]["gpu"]: o["training"]["days"] for o in data["options"]}
    assert data["verdict"]["faster"]["gpu"] == min(days, key=days.get)
    text_out = cli("ask", text, "--lang", "en")
    assert text_out.returncode == 0 and f"cheaper: {cheaper['gpu']}" in text_out.stdout
    assert all(g in text_out.stdout.splitlines()[0] for g in planned)


def test_three_gpu_types_are_compared_side_by_side_and_five_are_refused_saying_up_to_four(cli):
    # "H800 vs H20 vs A800" had been refused: "I plan one GPU type at a time"
    out = cli("ask", "13b sft 20GB H800 vs H20 vs A800", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)["comparison"]
    planned = [o["plan"]["gpu"].split("-")[0] for o in data["options"]]
    assert planned == ["H800", "H20", "A800"]
    spends = sorted((o["cost"]["rent_total"], o["plan"]["gpu"]) for o in data["options"])
    cheaper = data["verdict"]["cheaper"]
    # the saving is against the next cheapest, and says which that is
    assert (cheaper["gpu"], cheaper["against"]) == (spends[0][1], spends[1][1])
    assert cheaper["saves"] == pytest.approx(spends[1][0] - spends[0][0])
    days = sorted((o["training"]["days"], o["plan"]["gpu"]) for o in data["options"])
    assert (data["verdict"]["faster"]["gpu"], data["verdict"]["faster"]["against"]) == (days[0][1], days[1][1])
    text = cli("ask", "13b sft 20GB H800、H20还是A800", "--lang", "en").stdout
    assert f"cheapest: {spends[0][1]}" in text and "The 3 plans:" in text
    assert "3 种卡" in cli("ask", "13b sft 20GB H800、H20还是A800").stdout
    five = cli("ask", "13b sft 20GB H800, H20, A800, 4090 or H100")
    assert five.returncode == 2 and "up to 4" in five.stderr


def test_a_speed_up_under_twice_is_shown_to_two_decimals(cli):
    # 17 days against 16 had read "(1x)", as if neither were faster
    out = cli("ask", "13b sft 20GB H100 vs H200 usd", "--json")
    faster = json.loads(out.stdout)["comparison"]["verdict"]["faster"]
    assert 1 < faster["times"] < 2
    assert f"({faster['times']:.2f}x)" in cli("ask", "13b sft 20GB H100 vs H200 usd").stdout


@pytest.mark.parametrize(
    "text, owned, count",
    [
        ("7b lora 1万条 用A800还是4090划算，我们实验室有4张4090", "RTX4090", 4),
        ("we have 8 4090s, should we use them or rent H100 for 13b lora 50k samples?", "RTX4090", 8),
    ],
)
def test_the_teams_own_gpus_are_compared_with_renting_others(cli, text, owned, count):
    # each had been refused: "I plan one GPU type at a time" (quoting "用a800"), or the two read
    # as a contradiction
    out = cli("ask", text, "--json")
    assert out.returncode == 0, out.stderr
    options = json.loads(out.stdout)["comparison"]["options"]
    own = [o for o in options if o["request"]["owned"]]
    assert [o["plan"]["gpu"].split("-")[0] for o in own] == [owned] and own[0]["plan"]["gpu_count"] == count
    rented = [o for o in options if not o["request"]["owned"]]
    assert len(rented) == 1 and rented[0]["request"]["gpu_count"] is None  # the owned count stays theirs
    said = cli("ask", text, "--lang", "en").stdout
    assert "your own: no rent, about" in said and "electricity" in said


def test_renting_one_gpu_type_or_buying_another_is_compared_as_asked(cli):
    out = cli("ask", "是租H800还是买A800 70b 全参微调 1TB 14天", "--json")
    assert out.returncode == 0, out.stderr
    options = json.loads(out.stdout)["comparison"]["options"]
    assert [o["request"]["rent_or_buy"] for o in options] == ["rent", "buy"]
    said = cli("ask", "70b full-finetune 1TB 14d rent H800 or buy A800").stdout
    rent, buy = [line for line in said.splitlines() if line.startswith("  ") and "GPU-hours)" in line][:2]
    # the rent's rate as leased (a month's lease: per GPU-month, not its rate over 730 hours)
    assert "to rent; " in rent and ("per GPU-hour" in rent or "per GPU-month" in rent)
    # a buyer pays for the servers, not a rate an hour
    assert "to buy; " in buy and "per GPU-hour" not in buy and "per GPU-month" not in buy


def test_a_contradiction_that_is_no_choice_is_still_refused(cli):
    out = cli("ask", "70B full-finetune 1TB on 8xH800 on 8xH20")
    assert out.returncode == 2


def test_a_follow_up_under_a_comparison_is_answered_on_the_option_it_names_else_the_cheaper(cli):
    # follow-ups after a comparison had been dropped (a comparison kept no thread; probe, thirtieth
    # session: "那就选4090，要几台" got no reply in Slack)
    text = "H200 vs B200 for llama3-70b sft on 2B tokens usd"
    data = json.loads(
        cli("ask", text, "--json", "--follow-up", "faster?", "--follow-up", "how many H200 nodes?").stdout
    )
    cheaper = data["comparison"]["verdict"]["cheaper"]["gpu"]
    faster, h200 = data["follow_ups"]
    assert faster["kind"] == "whatif" and faster["plan"]["plan"]["gpu"] == cheaper
    assert faster["on"].startswith(f"On the comparison's cheaper plan, {cheaper}")
    assert h200["on"] == "On the comparison's H200-SXM-141GB plan:" and "H200-SXM-141GB" in h200["text"]
    out = cli("ask", text, "--follow-up", "faster?").stdout
    assert "> faster?\n\nOn the comparison's cheaper plan" in out


def test_a_follow_up_under_a_method_comparison_reads_the_method_named(cli):
    data = json.loads(
        cli("ask", "7b 用LoRA还是全参微调 10万条", "--json", "--lang", "zh", "--follow-up", "全参的话要多久").stdout
    )
    reply = data["follow_ups"][0]
    assert reply["on"] == "以下按对比中的全量微调方案回答：" and reply["kind"] == "explain"


@pytest.mark.parametrize(
    "text,methods",
    [
        ("13b lora vs full finetune 50k samples", ["lora", "full-finetune"]),
        ("70b qlora or lora 20GB", ["qlora", "lora"]),
        ("7b 用LoRA还是全参微调 10万条", ["lora", "full-finetune"]),
        ("lora or full fine-tune for qwen3-8b on 1B tokens?", ["lora", "full-finetune"]),
        ("full finetune or lora 13b 50k samples", ["full-finetune", "lora"]),
    ],
)
def test_two_training_methods_are_compared_side_by_side(cli, text, methods):
    # each had been refused: "lora" and "full" contradict each other
    out = cli("ask", text, "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)["comparison"]
    assert data["by"] == "method"
    assert [o["request"]["method"] for o in data["options"]] == methods
    spends = sorted((o["cost"]["rent_total"], o["request"]["method"]) for o in data["options"])
    cheaper = data["verdict"]["cheaper"]
    assert (cheaper["option"], cheaper["against"]) == (spends[0][1], spends[1][1])
    assert cheaper["saves"] == pytest.approx(spends[1][0] - spends[0][0])
    lines = cli("ask", text, "--lang", "en").stdout.splitlines()
    assert lines[0].startswith(f"{methods[0]} or {methods[1]}:")
    gpus = [o["plan"]["gpu"] for o in data["options"]]
    assert lines[1].startswith(f"  {methods[0]} on {gpus[0]}:") and lines[2].startswith(f"  {methods[1]} on {gpus[1]}:")
    assert f"cheaper: {cheaper['option']}, by" in "\n".join(lines)
    # the plans listed below name their method too (they had shown the GPUs alone)
    listed = [line for line in lines if line.startswith("  - ")]
    assert [line.split(":", 1)[0] for line in listed] == [f"  - {m}" for m in methods]


@pytest.mark.parametrize(
    "text", ["13b lora vs full finetune 50k samples H100 vs H200", "13b H800还是H20 5万条 LoRA还是全参微调"]
)
def test_a_gpu_choice_and_a_method_choice_together_are_refused_one_at_a_time(cli, text):
    out = cli("ask", text, "--lang", "en")
    assert out.returncode == 2 and "one choice at a time" in out.stderr
    assert "lora" in out.stderr and ("h100" in out.stderr or "h800" in out.stderr)


@pytest.mark.parametrize("command", ["serve", "clock"])
def test_a_token_slack_refuses_stops_the_start_with_what_to_do(tmp_path, fake_slack, command):
    """Operator probe: a revoked SLACK_BOT_TOKEN had let `serve` start and its workers die with
    BoltError tracebacks (exit 3). Now auth.test's refusal is said before anything starts."""
    fake_slack.fail("auth.test", status=200, body={"ok": False, "error": "token_revoked"})
    env = dict(os.environ, PYTHONPATH=str(ROOT), GPU_ADVISOR_DB=str(tmp_path / "db.sqlite"))
    env |= {"SLACK_BOT_TOKEN": "xoxb-revoked", "SLACK_SIGNING_SECRET": "s", "SLACK_API_URL": fake_slack.url}
    env.pop("DATABASE_URL", None)
    done = subprocess.run(
        [sys.executable, "-m", "advisor.cli", command],
        env=env,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    assert "Slack refused SLACK_BOT_TOKEN (token_revoked)" in done.stderr and "Traceback" not in done.stderr
    assert "xoxb-revoked" not in done.stderr + done.stdout
    assert not (tmp_path / "db.sqlite").exists()


def test_a_file_that_is_no_sqlite_database_is_said_as_such(cli, tmp_path):
    # operator probe: "internal error: DatabaseError: (sqlite3.DatabaseError) file is not a database"
    bad = tmp_path / "corrupt.db"
    bad.write_text("not a database")
    done = cli("ask", "7B lora 1GB", env={"GPU_ADVISOR_DB": str(bad)})
    assert done.returncode == 2 and "could not open the SQLite database" in done.stderr
    assert "file is not a database" in done.stderr and "internal error" not in done.stderr
    assert bad.read_text() == "not a database"


@pytest.mark.parametrize(
    "url,said",
    [
        ("mysql://u:pw-s3cret@h/db", "it must start with postgresql://"),
        ("postgresql+psycopg2://u:pw-s3cret@h/db", "not 'postgresql+psycopg2'"),
        ("notaurl", "it must start with postgresql://"),
        ("postgresql://u:pw-s3cret@h:notaport/db", "its port is not a number"),
    ],
)
def test_a_database_url_that_cannot_work_is_refused_before_anything_starts(cli, url, said):
    # operator probe: these had been "internal error: ModuleNotFoundError" and the like
    done = cli("ask", "7B lora 1GB", env={"DATABASE_URL": url})
    assert done.returncode == 2 and said in done.stderr and "postgresql://user:password@host" in done.stderr
    assert "s3cret" not in done.stderr and "internal error" not in done.stderr


@pytest.mark.parametrize(
    "command,needs",
    [
        ("serve", "SLACK_SIGNING_SECRET"),
        ("work", "SLACK_BOT_TOKEN"),
        ("clock", "GPU_ADVISOR_PRICE_FEEDS"),
        ("migrate", "DATABASE_URL"),
        ("health", "--need"),
        ("socket", "SLACK_APP_TOKEN"),
    ],
)
def test_each_process_says_what_it_does_and_needs_in_its_help(cli, command, needs):
    # operator probe: `clock --help` and `migrate --help` had shown nothing but -h
    out = cli(command, "--help")
    assert out.returncode == 0 and needs in out.stdout
    assert len(out.stdout.split("options:")[0].split()) > 15  # a description, not the usage line alone


def test_a_digest_of_a_day_still_to_come_is_refused(cli):
    # operator probe: `digest --date 2030-01-01` had printed an empty digest, exit 0
    out = cli("digest", "--date", "2030-01-01")
    assert out.returncode == 2 and "in the future" in out.stderr and out.stdout == ""


@pytest.mark.parametrize(
    "text, words",
    [
        ("how many tokens is 1TB of text?", "250-330B tokens"),
        ("一个机柜能放几台8卡服务器", "每柜20-40kW"),
        # the disk a dataset takes: the bytes a token (it had been asked for a model size)
        ("How much disk do I need for a 1T token dataset?", "250-330B tokens"),
    ],
)
def test_a_first_question_with_a_size_but_no_model_is_the_faqs(cli, text, words):
    # both had been refused with exit 2 ("give the model size", "我没看懂“机柜放”")
    out = cli("ask", text)
    assert out.returncode == 0 and words in out.stdout


def test_a_cost_asked_with_no_data_leads_with_the_usual_scale(cli):
    # "how much does it cost to train a 7B model from scratch?" had led with memory and a day's rent, the
    # Chinchilla scale below the warnings; the card had no word of it
    text = cli("ask", "how much does it cost to train a 7B model from scratch?").stdout
    first = text.splitlines()[:3]
    assert any(line.startswith("  ! No data size, so no training time: for scale, a 7B model") for line in first)
    from contextlib import closing

    from advisor.market.prices import price_book
    from advisor.market.store import open_store
    from advisor.planning.advice import advise
    from bot import blocks

    with closing(open_store()) as db:
        book = price_book(db, None)
    card = json.dumps(blocks.card(advise("7B pretrain", book=book)), ensure_ascii=False)
    assert "140B tokens" in card and "Chinchilla" in card
