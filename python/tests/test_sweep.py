"""ssdlab.sweep on a distributed.LocalCluster of two worker processes: 24 drives x a test
give what running them one by one gives, also when a worker is killed mid-sweep."""

import os
import signal

import pytest
from distributed import Client, LocalCluster

import ssdlab
from ssdlab.sweeps import configurations, one_by_one

# 4 spare areas x 3 GC styles x 2 victim policies of a 2 GiB drive: 24 drives.
GRID = {
    "preset": "default",
    "capacity": "2G",
    "op": ["7%", "15%", "25%", "40%"],
    "gc_style": ["bursty", "paced", "latency-first"],
    "gc": ["greedy", "fifo"],
}
# Two minutes (virtual) of 4 KiB random writes at QD32 after a fill: into the steady state.
TESTS = {"consistency": {"duration": 120}}


@pytest.fixture(scope="module")
def cluster():
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as c:
        yield c


@pytest.fixture(scope="module")
def expected():
    return one_by_one(GRID, TESTS, seed=3)


def test_the_grid_has_24_drives():
    configs = configurations(GRID)
    assert len(configs) == 24
    assert configs[0] == ("default,capacity=2G,op=7%,gc_style=bursty,gc=greedy",
                          {"preset": "default", "capacity": "2G", "op": "7%",
                           "gc_style": "bursty", "gc": "greedy"})


def test_sweep_equals_one_by_one(cluster, expected):
    with Client(cluster) as client:
        got = ssdlab.sweep(GRID, TESTS, client=client, seed=3)
    assert len(got) == 24
    assert got.equals(expected)
    # The figures depend on the drive: the grid is not 24 copies of one result.
    assert got["write_amplification.steady_state"].nunique() > 12
    assert got["analysis.steady_state.mean"].nunique() > 12


def test_sweep_survives_a_killed_worker(cluster, expected):
    killed = []
    with Client(cluster) as client:
        pids = client.run(os.getpid)
        assert len(pids) == 2

        def kill_one(done, total):
            # After the first result, while the other tasks are queued or running.
            if not killed:
                worker, pid = sorted(pids.items())[0]
                killed.append(worker)
                os.kill(pid, signal.SIGKILL)

        got = ssdlab.sweep(GRID, TESTS, client=client, seed=3, on_progress=kill_one)
        assert killed
        # The nanny started a new worker process in place of the killed one.
        client.wait_for_workers(2, timeout=120)
        assert set(client.run(os.getpid).values()) != set(pids.values())
    assert got.equals(expected)


def test_a_bad_drive_fails_the_sweep(cluster):
    with Client(cluster) as client:
        with pytest.raises(ssdlab.SsdlabError, match="no-such-preset"):
            ssdlab.sweep(["no-such-preset"], "consistency", client=client)


def test_without_a_client_a_local_cluster_runs_it():
    grid = ["default,capacity=2G", "default,capacity=2G,op=25%"]
    tests = {"consistency": {"duration": 30}}
    seen = []
    got = ssdlab.sweep(grid, tests, on_progress=lambda done, total: seen.append((done, total)))
    assert seen == [(1, 2), (2, 2)]
    assert got.equals(one_by_one(grid, tests))
    assert list(got["preset"]) == grid
