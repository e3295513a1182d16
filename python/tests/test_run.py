"""ssdlab.run and Drive.run against `ssdlab run --json`: the same result, but for the host's
CPU time and the run's identity."""

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
def cli_result(tmp_path_factory):
    d = tmp_path_factory.mktemp("cli")
    cli("run", "custom", "--target", TARGET, *FLAGS, "--no-store", "--quiet",
        "--out", d / "out", "--json", d / "r.json")
    return json.loads((d / "r.json").read_text())


def test_run_equals_the_cli(cli_result, tmp_path):
    results = ssdlab.run("custom", TARGET, out=tmp_path / "out", **ARGS)
    assert [r.test for r in results] == ["custom"]
    r = results[0]
    assert r.complete and r.label == cli_result["label"]
    got = r.to_dict()
    assert got["summary"]["ios"] == 50000
    assert comparable(got) == comparable(cli_result)
    # out= writes the file the CLI writes.
    assert json.loads((tmp_path / "out" / "custom.json").read_text()) == got
    per_second = r.per_second()
    assert len(per_second) == len(cli_result["per_second"])
    assert list(per_second["ios"]) == [p["ios"] for p in cli_result["per_second"]]


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
    (lambda: ssdlab.run("custom", TARGET, speed=3), 'unknown override "speed"'),
    (lambda: ssdlab.run("custom", TARGET, bs="4Q"), "bs: "),
    (lambda: ssdlab.run("custom", TARGET, access="diagonal"), "unknown access 'diagonal'"),
    (lambda: ssdlab.run("custom", "sim:no-such-drive"), "no-such-drive"),
    (lambda: ssdlab.run("custom", "nowhere:x"), "nowhere:x"),
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
        "out=sys.argv[1])\n"
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
