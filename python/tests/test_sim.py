"""ssdlab.sim.Drive against the CLI: IOs submitted at the times `ssdlab run` submitted them
complete when they completed in that run (its per-IO log), and the drive's counters and
energy end as the run's result says."""

import json

import numpy as np
import pandas as pd
import pytest

import ssdlab
from ssdlab.sim import Drive
from conftest import cli

SPEC = "default,capacity=2G"


@pytest.fixture(scope="module")
def cli_run(tmp_path_factory):
    """4 KiB random IOs, 80% writes, QD8 on a 2 GiB drive: 1.1 drive writes, so GC runs."""
    d = tmp_path_factory.mktemp("run")
    log = d / "io.log"
    cli("run", "custom", "--target", f"sim:{SPEC}", "--access", "random", "--bs", "4K",
        "--qd", "8", "--read-pct", "20", "--ios", "700000", "--seed", "5", "--no-prefill",
        "--iolog", log, "--no-store", "--out", d / "out")
    (d / "io.csv").write_text(cli("log", "csv", log))
    ios = pd.read_csv(d / "io.csv").sort_values("submit_ns", kind="stable")
    result = json.loads((d / "out" / "custom.json").read_text())
    return ios, result


def test_stepped_drive_completes_as_the_cli_run(cli_run):
    ios, result = cli_run
    drive = Drive("default", capacity="2G", queue_depth=8)
    done = drive.submit_many(ios["op"].tolist(), ios["offset"].to_numpy(),
                             ios["len"].to_numpy(), ios["submit_ns"].to_numpy())
    assert isinstance(done, np.ndarray) and done.dtype == np.uint64
    assert len(done) == len(ios)
    np.testing.assert_array_equal(done, ios["complete_ns"].to_numpy())
    drive.wait()
    end = result["device_counters"]["end"]
    c = drive.counters
    assert end["gc_invocations"] > 0  # the comparison covers garbage collection
    for name in ("host_write_pages", "host_read_pages", "nand_write_pages", "nand_read_ops",
                 "gc_invocations", "gc_relocated_pages", "failed_ios"):
        assert getattr(c, name) == end[name], name
    # Every counter a result holds is the drive's, by the same name.
    assert c.to_dict() == end
    assert c.write_amplification == result["write_amplification"]["cumulative"]
    assert drive.energy_j == pytest.approx(result["power"]["energy_j"], rel=1e-12)
    assert drive.now_ns == end["virtual_time_ns"]
    assert drive.in_flight == 0


def test_one_io_at_a_time():
    drive = Drive("840-evo-250", op="25%")
    assert drive.spec == "840-evo-250,op=25%"
    assert drive.counters.write_amplification is None
    t = drive.submit("write", 0, 4096)
    assert t > 0 and drive.in_flight == 1 and drive.now_ns == 0
    drive.wait()
    assert drive.now_ns == t and drive.in_flight == 0
    r = drive.submit("read", 0, 4096, at_ns=t + 1_000_000)
    assert r > t + 1_000_000
    assert drive.counters.host_write_pages == 1 and drive.counters.host_read_pages == 1
    drive.wait(until_ns=r + 10**9)
    assert drive.now_ns == r + 10**9
    assert drive.energy_j > 0


def test_a_full_queue_waits_for_a_completion():
    drive = Drive("default", queue_depth=2)
    first = [drive.submit("write", i * 4096, 4096) for i in range(2)]
    third = drive.submit("write", 8192, 4096)
    # The third waited for the first completion: the clock reached it.
    assert drive.now_ns == min(first) and third > min(first)


@pytest.mark.parametrize("call, message", [
    (lambda: Drive("no-such-drive"), "no-such-drive"),
    (lambda: Drive("default", bogus_key=1), "bogus_key"),
    (lambda: Drive("default", queue_depth=0), "queue_depth must be 1 to 1024"),
    (lambda: Drive().submit("erase", 0, 4096), 'unknown op "erase"'),
    (lambda: Drive().submit("write", 100, 4096), "write of 4096 bytes at byte 100 failed"),
    (lambda: Drive().submit_many(["read"], [0, 1], [4096]), "as long as each other"),
])
def test_errors_are_ssdlab_errors(call, message):
    with pytest.raises(ssdlab.SsdlabError, match=message):
        call()


def test_presets_are_listed():
    assert "840-evo-250" in ssdlab.sim.presets()
