"""ssdlab.bench against `ssdlab bench export --format json`: drives, runs and results read
through the package equal the export's, on SQLite and on PostgreSQL."""

import json
import os

import pytest

import ssdlab
from conftest import cli


@pytest.fixture(scope="module")
def sqlite_bench(tmp_path_factory):
    """A Bench of two runs on two simulated drives."""
    d = tmp_path_factory.mktemp("bench")
    db = d / "bench.db"
    for spec in ("default,capacity=2G", "default,capacity=2G,op=25%"):
        cli("run", "custom", "--target", f"sim:{spec}", "--ios", "20000", "--db", db,
            "--out", d / spec.replace(",", "_"), "--quiet")
    return str(db)


@pytest.fixture(scope="module")
def postgres_bench(sqlite_bench):
    url = os.environ.get("SSDLAB_TEST_POSTGRES")
    if not url:
        pytest.fail("SSDLAB_TEST_POSTGRES is not set: tests/pytest/main.rs starts PostgreSQL")
    cli("bench", "copy", "--from", sqlite_bench, "--to", url)
    return url


def records(frame):
    """A DataFrame's rows as the JSON the export writes them in (NaN is null)."""
    return json.loads(frame.to_json(orient="records"))


def check_equals_export(location):
    export = json.loads(cli("bench", "export", "--db", location, "--format", "json"))
    b = ssdlab.bench.open(location)
    assert records(b.drives()) == export["drives"]
    assert records(b.runs()) == [r["run"] for r in export["runs"]]
    assert len(export["runs"]) == 2
    every = b.results()
    assert len(every) == sum(len(r["results"]) for r in export["runs"])
    for run in export["runs"]:
        got = b.results(run=run["run"]["id"])
        assert got["result"].tolist() == run["results"]
        assert got["test"].tolist() == [r["test"] for r in run["results"]]
        assert (got["run_id"] == run["run"]["id"]).all()


def test_sqlite_equals_the_export(sqlite_bench):
    check_equals_export(sqlite_bench)


def test_postgres_equals_the_export(postgres_bench):
    check_equals_export(postgres_bench)
    assert "postgres" in ssdlab.bench.open(postgres_bench).location


@pytest.mark.parametrize("location, message", [
    ("/nonexistent/bench.db", "/nonexistent/bench.db"),
    ("ftp://lab/bench", "ftp://"),
])
def test_errors_are_ssdlab_errors(location, message):
    with pytest.raises(ssdlab.SsdlabError, match=message):
        ssdlab.bench.open(location)


def test_a_file_that_is_no_bench(tmp_path):
    p = tmp_path / "notes.db"
    p.write_text("not a database\n" * 100)
    with pytest.raises(ssdlab.SsdlabError):
        ssdlab.bench.open(str(p))
