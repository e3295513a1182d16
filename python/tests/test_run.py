"""ssdlab.run and Drive.run against `ssdlab run --json`: the same result, but for the host's
CPU time and the run's identity; with out= the same files, report and Bench row."""

import json
import os
import signal
import subprocess
import sys

import pytest

import ssdlab
from ssdlab.sim import Drive
from conftest import cli

ARGS = dict(access="random", bs="4K", qd=8, read_pct=20, ios=50000, seed=5)
FLAGS = ["--access", "random", "--bs", "4K", "--qd", "8", "--read-pct", "20",
         "--ios", "50000", "--seed", "5"]
TARGET = "sim:default,capacity=2G"

# What differs between two runs of one test: the host's CPU time, the run's identity and
# the second it started.
RUN_OWN = {"cpu", "run_id", "started_at"}


def comparable(v):
    if isinstance(v, dict):
        return {k: comparable(x) for k, x in v.items() if k not in RUN_OWN}
    if isinstance(v, list):
        return [comparable(x) for x in v]
    return v


@pytest.fixture(scope="module")
def cli_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("cli")
    cli("run", "custom", "--target", TARGET, *FLAGS, "--db", d / "bench.db", "--quiet",
        "--out", d / "out", "--json", d / "r.json")
    return d


@pytest.fixture(scope="module")
def cli_result(cli_dir):
    return json.loads((cli_dir / "r.json").read_text())


# What differs between two Benches' rows of one run, besides the run's own: where it came
# from and when it was stored.
STORED_OWN = {"source", "stored_at", "uuid"}


def bench_row(db):
    """The one run a Bench holds, and its results, but for what is the run's own."""
    b = ssdlab.bench.open(str(db))
    runs = records(b.runs())
    assert len(runs) == 1, runs
    results = records(b.results())
    row = {k: v for k, v in runs[0].items() if k not in STORED_OWN}
    return comparable(row), [comparable(r) for r in results]


def records(frame):
    return json.loads(frame.to_json(orient="records"))


def test_run_equals_the_cli(cli_dir, cli_result, tmp_path):
    results = ssdlab.run("custom", TARGET, out=tmp_path / "out", db=tmp_path / "bench.db",
                         json=tmp_path / "r.json", **ARGS)
    assert [r.test for r in results] == ["custom"]
    r = results[0]
    assert r.complete and r.label == cli_result["label"]
    got = r.to_dict()
    assert got["summary"]["ios"] == 50000
    assert comparable(got) == comparable(cli_result)
    # out= writes the files the CLI writes, the report among them, and stores the run as the
    # CLI does.
    out, cli_out = tmp_path / "out", cli_dir / "out"
    assert sorted(os.listdir(out)) == sorted(os.listdir(cli_out))
    assert "report.html" in os.listdir(out)
    assert json.loads((out / "custom.json").read_text()) == got
    assert json.loads((tmp_path / "r.json").read_text()) == got
    assert bench_row(tmp_path / "bench.db") == bench_row(cli_dir / "bench.db")
    per_second = r.per_second()
    assert len(per_second) == len(cli_result["per_second"])
    assert list(per_second["ios"]) == [p["ios"] for p in cli_result["per_second"]]


def test_every_flag_of_the_cli_is_a_keyword(tmp_path):
    """The CLI's notations and flags as keywords: Q32T16, a size, switches on and off."""
    got = ssdlab.run("custom", TARGET, qd="Q4T2", bs="8K", ios=2000, seed=5,
                     read_pct=30, verify=False, no_prefill=True)[0].to_dict()
    flags = ["--qd", "Q4T2", "--bs", "8K", "--ios", "2000", "--seed", "5",
             "--read-pct", "30", "--no-prefill"]
    cli("run", "custom", "--target", TARGET, *flags, "--no-store", "--quiet",
        "--out", tmp_path / "cli", "--json", tmp_path / "r.json")
    assert comparable(got) == comparable(json.loads((tmp_path / "r.json").read_text()))
    assert got["parameters"]["threads"] == 2
    # Without out= nothing is written or stored.
    assert sorted(os.listdir(tmp_path)) == ["cli", "r.json"]


def test_a_fio_job_file_runs_as_on_the_cli(tmp_path):
    """fio= is the CLI's --fio: each job one result, the same as the command line's."""
    job = tmp_path / "two.fio"
    job.write_text("[global]\nioengine=io_uring\ndirect=1\nnorandommap\nstonewall\n"
                   "size=64m\nnumber_ios=2000\nrandseed=5\n[w]\nrw=randwrite\niodepth=8\n"
                   "[r]\nrw=randread\n")
    got = [r.to_dict() for r in ssdlab.run("custom", TARGET, fio=str(job))]
    cli("run", "custom", "--target", TARGET, "--fio", job, "--no-store", "--quiet",
        "--out", tmp_path / "cli", "--json", tmp_path / "r.json")
    want = json.loads((tmp_path / "r.json").read_text())
    assert [comparable(g) for g in got] == [comparable(w) for w in want]
    assert [g["label"].split(":")[0] for g in got] == ["fio job 'w'", "fio job 'r'"]
    with pytest.raises(ssdlab.SsdlabError, match=r"fio=.*line 2: option 'verify'"):
        (tmp_path / "bad.fio").write_text("[j]\nverify=md5\n")
        ssdlab.run("custom", TARGET, fio=str(tmp_path / "bad.fio"))


def test_drive_run_equals_the_cli(cli_result):
    drive = Drive("default", capacity="2G")
    got = drive.run("custom", **ARGS)[0].to_dict()
    assert comparable(got) == comparable(cli_result)
    # The drive stays usable, in the state the test left it.
    assert drive.counters.host_write_pages == got["device_counters"]["end"]["host_write_pages"]
    t = drive.submit("read", 0, 4096)
    assert t > drive.now_ns


@pytest.mark.parametrize("call, message", [
    (lambda: ssdlab.run("no-such-test", TARGET), "unknown test 'no-such-test'"),
    (lambda: ssdlab.run("custom", TARGET, speed=3), 'unknown keyword argument "speed"'),
    (lambda: ssdlab.run("custom", TARGET, bs="4Q"), 'bs="4Q": '),
    (lambda: ssdlab.run("custom", TARGET, qd=0), 'qd="0": queue depth 0 is out of range'),
    (lambda: ssdlab.run("custom", TARGET, verify="yes"), "verify= is a switch"),
    (lambda: ssdlab.run("custom", TARGET, access="diagonal"), "unknown access 'diagonal'"),
    (lambda: ssdlab.run("custom", "sim:no-such-drive"), "no-such-drive"),
    (lambda: ssdlab.run("custom", "nowhere:x"), "nowhere:x"),
    # The methodology's refusals name the keywords too, not the CLI's flags.
    (lambda: ssdlab.run("consistency", TARGET, offset="1G"),
     r"^offset=: consistency tests from LBA 0 as the methodology says; drop offset=, "),
])
def test_errors_are_ssdlab_errors(call, message):
    with pytest.raises(ssdlab.SsdlabError, match=message):
        call()


def test_a_file_target_it_created_is_removed_when_the_run_fails(tmp_path):
    image = tmp_path / "t.img"
    # Opened (so created), then refused: a block larger than the file.
    with pytest.raises(ssdlab.SsdlabError, match="smaller than one block"):
        ssdlab.run("custom", f"file:{image}:16M", bs="32M", ios=1)
    assert not image.exists()
    # One that runs keeps its file.
    ssdlab.run("custom", f"file:{image}:16M", bs="4K", ios=10)
    assert image.exists()


def test_tests_are_listed():
    assert {"custom", "consistency", "wsat"} <= set(ssdlab.tests())


def test_ctrl_c_stops_a_run_as_the_cli_does(tmp_path):
    """SIGINT during a run sets the run's stop flag: it ends cleanly, writing what it measured
    with "complete": false as the CLI's Ctrl-C does, and raises KeyboardInterrupt."""
    out = tmp_path / "out"
    # As an interactive Python has it, whatever the test runner's own disposition of SIGINT
    # (a shell's background job inherits it ignored).
    script = (
        "import signal, sys, ssdlab\n"
        "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
        "try:\n"
        "    ssdlab.run('custom', 'sim:840-evo-250', read_pct=0, ios=10**10, "
        "out=sys.argv[1], no_store=True)\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted')\n"
    )
    # 10^10 random writes (hours; a custom workload starts measuring at once): the signal
    # comes mid-run.
    p = subprocess.Popen([sys.executable, "-c", script, str(out)], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    try:
        # The run has started once its directory holds its identity.
        while not (out / "run-id").exists():
            assert p.poll() is None, "the run ended before it was interrupted"
            os.sched_yield()
        p.send_signal(signal.SIGINT)
        try:
            stdout, stderr = p.communicate(timeout=300)
        except subprocess.TimeoutExpired:
            p.kill()
            stdout, stderr = p.communicate()
            pytest.fail(f"the run went on after SIGINT; it wrote {sorted(os.listdir(out))}, "
                        f"stdout {stdout!r}, stderr {stderr!r}")
    finally:
        p.kill()
    assert p.returncode == 0, stderr
    assert stdout == "interrupted\n"
    result = json.loads((out / "custom.json").read_text())
    assert result["complete"] is False
    assert result["stopped"]["reason"] == "interrupted"


SUITE = dict(quick=True, only=["seq-incompressible", "transfer-sweep"])
SUITE_FLAGS = ["--quick", "--only", "seq-incompressible", "--only", "transfer-sweep"]
# Besides the run's own, what differs between two suites' records: when they ran, and the
# host they probed.
SUITE_OWN = RUN_OWN | {"updated_at", "system"}


def comparable_suite(d):
    return {k: comparable(v) for k, v in d.items() if k not in SUITE_OWN}


def test_suite_equals_the_cli(tmp_path):
    """ssdlab.suite makes the CLI's review: the same files, results, report and Bench row."""
    cli("suite", "--target", TARGET, *SUITE_FLAGS, "--db", tmp_path / "cli.db", "--quiet",
        "--out", tmp_path / "cli")
    [review] = ssdlab.suite(TARGET, out=tmp_path / "py", db=tmp_path / "py.db", **SUITE)
    assert review.complete and review.unfinished == [] and review.target == TARGET
    assert review.dir == str(tmp_path / "py") and review.report.endswith("report.html")
    py, cli_out = tmp_path / "py", tmp_path / "cli"
    assert sorted(os.listdir(py)) == sorted(os.listdir(cli_out))
    for name in os.listdir(cli_out):
        if name.endswith(".json"):
            got, want = (json.loads((d / name).read_text()) for d in (py, cli_out))
            assert comparable_suite(got) == comparable_suite(want), name
    # In the suite's order: its record's steps and each step's results.
    record = json.loads((py / "suite.json").read_text())
    stems = [stem for step in record["steps"] for stem in step["results"]]
    assert [json.loads((py / f"{s}.json").read_text()) for s in stems] == \
        [r.to_dict() for r in review.results]
    assert {r.test for r in review.results} == {"seq-incompressible", "transfer-sweep"}
    assert review.results[0].to_dict()["run_id"] == review.run_id
    assert bench_row(tmp_path / "py.db") == bench_row(tmp_path / "cli.db")


def test_suite_refusals_name_the_keyword(tmp_path):
    with pytest.raises(ssdlab.SsdlabError, match="methodology=\"review-2022\": unknown methodology"):
        ssdlab.suite(TARGET, methodology="review-2022", out=tmp_path / "x")
    with pytest.raises(ssdlab.SsdlabError, match="^pts_scale= shortens the SNIA PTS tests"):
        ssdlab.suite(TARGET, pts_scale=0.5, out=tmp_path / "x")
    with pytest.raises(ssdlab.SsdlabError, match="no suite step named 'trmi'"):
        ssdlab.suite(TARGET, only=["trmi"], out=tmp_path / "x")
    # Refused before anything is written.
    assert not (tmp_path / "x").exists()
    # Several drives side by side: one review each, in a directory each.
    reviews = ssdlab.suite([TARGET, TARGET + ",op=25"], out=tmp_path / "two", no_store=True,
                           **SUITE)
    assert [r.target for r in reviews] == [TARGET, TARGET + ",op=25"]
    assert all(r.complete for r in reviews) and reviews[0].dir != reviews[1].dir
