"""ssdlab.sim.fit: a twin fitted here and one fitted on a distributed.LocalCluster of two
worker processes, one of them killed mid-fit, are the same twin, and the CLI's for the seed."""

import json
import os
import signal

import pytest
from distributed import Client, LocalCluster

import ssdlab
from conftest import cli

# The hidden drive: a small default drive with slower NAND channels and programs; its
# transfer-size sweep (the cheapest test that tells the two apart) is the target.
HIDDEN = "sim:default,capacity=2GiB,channel_mbps=90,t_prog=900us/2700us"
FIT = dict(start="default,capacity=2GiB", params=["channel_mbps", "t_prog"], evals=18, seed=3)


@pytest.fixture(scope="module")
def hidden(tmp_path_factory):
    out = tmp_path_factory.mktemp("hidden")
    cli("run", "transfer-sweep", "--target", HIDDEN, "-q", "--no-store", "--out", out)
    return out


@pytest.fixture(scope="module")
def here(hidden, tmp_path_factory):
    out = tmp_path_factory.mktemp("here") / "twin.toml"
    return ssdlab.sim.fit(hidden, out, jobs=2, **FIT)


def test_a_fit_here_moves_toward_the_hidden_drive(here):
    assert isinstance(here, ssdlab.sim.Twin)
    assert here.loss_twin < here.loss_start
    assert here.evaluations >= FIT["evals"]
    report = here.to_dict()
    assert report["seed"] == 3
    assert {p["key"] for p in report["params"]} == {"channel_mbps", "t_prog"}
    # The keys not searched, each moved on the twin: the drives tried and their losses.
    tried = {a["drive"]: a for a in report["alternatives"]}
    assert "planes=1" in tried and tried["planes=1"]["loss"] > 0, tried
    assert os.path.exists(here.report)
    # The twin runs like any preset.
    results = ssdlab.run("transfer-sweep", "sim:" + here.path)
    assert results and all(r.complete for r in results)


def test_the_cli_fits_the_same_twin(hidden, here, tmp_path):
    out = tmp_path / "cli.toml"
    cli("sim", "fit", hidden, "--from", FIT["start"], "--params", ",".join(FIT["params"]),
        "--evals", FIT["evals"], "--seed", FIT["seed"], "--jobs", 2, "-o", out)
    assert out.read_text() == open(here.path).read().replace("twin.fit.md", "cli.fit.md")


def test_two_seeds_keep_the_lower_loss_and_give_each_figure_its_spread(hidden, here, tmp_path):
    twin = ssdlab.sim.fit(hidden, tmp_path / "two.toml", jobs=2, seeds=2, **FIT)
    report = twin.to_dict()
    assert [s["seed"] for s in report["seeds"]] == [3, 4]
    # The first seed's search is the one a fit at that seed alone runs.
    assert report["seeds"][0]["loss"] == here.loss_twin
    assert twin.loss_twin == min(s["loss"] for s in report["seeds"])
    assert all(row["spread"] >= 0 for row in report["fitted"])
    assert here.to_dict()["fitted"][0]["spread"] is None


def test_a_fit_on_dask_survives_a_killed_worker_and_finds_the_same_twin(hidden, here,
                                                                       tmp_path):
    killed = []
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        pids = client.run(os.getpid)

        def kill_one(evaluated, budget, best_loss, eta_s):
            # After the first generation, while the next one's drives are not measured yet.
            if not killed:
                worker, pid = sorted(pids.items())[0]
                killed.append(worker)
                os.kill(pid, signal.SIGKILL)

        twin = ssdlab.sim.fit(hidden, tmp_path / "dask.toml", client=client,
                              on_progress=kill_one, **FIT)
        assert killed
        client.wait_for_workers(2, timeout=120)
        assert set(client.run(os.getpid).values()) != set(pids.values())
    assert twin.spec == here.spec
    assert (twin.loss_twin, twin.evaluations) == (here.loss_twin, here.evaluations)
    assert open(twin.path).read() == open(here.path).read().replace("twin.fit.md", "dask.fit.md")


def test_a_drive_the_simulator_refuses_is_an_error_not_a_lost_fit(hidden, tmp_path):
    with pytest.raises(ssdlab.SsdlabError, match="no-such-preset"):
        ssdlab.sim.fit(hidden, tmp_path / "t.toml", start="no-such-preset", evals=4)
    with pytest.raises(ssdlab.SsdlabError, match="toml"):
        ssdlab.sim.fit(hidden, tmp_path / "t.json", evals=4)
    with pytest.raises(ssdlab.SsdlabError, match="output= is needed"):
        ssdlab.sim.fit(hidden, evals=4)


def test_a_refusal_names_the_keywords_not_the_command_lines_flags(hidden, tmp_path):
    with pytest.raises(ssdlab.SsdlabError, match=r"^evals=1: .* give evals=\d+ or more") as e:
        ssdlab.sim.fit(hidden, tmp_path / "t.toml", evals=1)
    assert "--" not in str(e.value)
    with pytest.raises(ssdlab.SsdlabError, match="^known=channels: give KEY=VALUE") as e:
        ssdlab.sim.fit(hidden, tmp_path / "t.toml", known="channels")
    assert "--" not in str(e.value)


def test_known_hardware_is_set_in_the_start_and_never_searched(hidden, tmp_path):
    twin = ssdlab.sim.fit(hidden, tmp_path / "known.toml", start=FIT["start"],
                          params=["channel_mbps"], known={"page_size": "8KiB"}, evals=6, seed=3)
    report = twin.to_dict()
    assert report["from"] == FIT["start"] + ",page_size=8KiB"
    assert [p["key"] for p in report["params"]] == ["channel_mbps"]
    with pytest.raises(ssdlab.SsdlabError, match="both known and in params"):
        ssdlab.sim.fit(hidden, tmp_path / "t.toml", params=["channels"], known=["channels=4"])
    with pytest.raises(ssdlab.SsdlabError, match="give KEY=VALUE"):
        ssdlab.sim.fit(hidden, tmp_path / "t.toml", known="channels")


@pytest.fixture
def ctrl_c():
    """Ctrl-C's KeyboardInterrupt, as an interactive session has it: Python installs it only
    when it starts with SIGINT's default action, and a background job of a shell without job
    control (as CI may be) inherits SIGINT ignored."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def test_ctrl_c_stops_the_fit_and_the_same_call_resumes_it(hidden, here, tmp_path, ctrl_c):
    out = tmp_path / "stopped.toml"
    generations = []

    def interrupt(evaluated, budget, best_loss, eta_s):
        generations.append(evaluated)
        if len(generations) == 1:
            os.kill(os.getpid(), signal.SIGINT)

    with pytest.raises(KeyboardInterrupt):
        ssdlab.sim.fit(hidden, out, jobs=2, on_progress=interrupt, **FIT)
    assert len(generations) == 1, "the fit went on after Ctrl-C"
    assert not out.exists()
    kept = (tmp_path / "stopped.evals.jsonl").read_text().splitlines()
    assert len(kept) >= generations[0]
    # Run again: the drives kept are not measured again, and the twin is the same.
    twin = ssdlab.sim.fit(hidden, out, jobs=2, **FIT)
    assert twin.spec == here.spec and twin.evaluations == here.evaluations
    lines = [json.loads(l) for l in (tmp_path / "stopped.evals.jsonl").read_text().splitlines()]
    measured = [(l["spec"], l["measure"], l.get("screen", 1)) for l in lines]
    assert len(measured) > len(kept) and len(set(measured)) == len(measured)
