"""ssdlab.trace against the CLI: statistics equal `trace stats --json`, tables equal what
`trace convert` writes, batches and synthetic traces equal whole reads and `trace gen`."""

import pyarrow as pa
import pytest

import ssdlab
import ssdlab.trace as st
from conftest import FIXTURES, REPO, cli, cli_json

# Every format of the test data, by file (fio v2 records no times at all).
TEXT_FIXTURES = [
    "blkparse.txt",
    "msr.csv",
    "fio_v3.log",
    "fio_v2.log",
    "umass.spc",
    "disksim.trace",
    "alibaba.csv",
    "tencent.csv",
]


@pytest.fixture(scope="module")
def native(tmp_path_factory):
    """A native trace with queue, issue and completion times, written by `trace gen`."""
    path = tmp_path_factory.mktemp("gen") / "light.ssdt"
    cli("trace", "gen", "light-2011", "--scale", "0.002", "--seed", "7", "-o", path)
    return path


def traces(native):
    # The CLI's own blkparse fixture too: IOs years apart.
    idle = REPO / "crates" / "cli" / "tests" / "fixtures" / "idle-1e8s.blkparse.txt"
    return [FIXTURES / f for f in TEXT_FIXTURES] + [idle, native]


def stats_fields(s):
    """A Stats object as the CLI's JSON spells it (None where the JSON leaves a figure out)."""
    names = [
        "ios", "reads", "writes", "discards", "flushes", "bytes_read", "bytes_written",
        "bytes_discarded", "sequential_share", "untimed_ios", "duration_s", "requests_timed",
        "avg_queue_depth", "avg_queue_depth_span", "max_queue_depth", "qd1_share",
        "busy_time_s", "busy_time_read_s", "busy_time_write_s", "avg_data_rate_mbps",
        "avg_read_rate_mbps", "avg_write_rate_mbps", "d2c_mean_us", "q2c_mean_us",
        "out_of_order", "lowest_byte", "highest_byte",
    ]
    out = {n: getattr(s, n) for n in names}
    b = s.size_breakdown
    out["size_breakdown"] = {
        "4k": b.k4, "8k": b.k8, "16k": b.k16, "32k": b.k32, "64k": b.k64, "128k": b.k128,
        "other": b.other,
    }
    for lat in ("d2c", "q2c"):
        v = getattr(s, lat)
        out[lat] = None if v is None else {
            k: getattr(v, k)
            for k in ("count", "mean_us", "p50_us", "p90_us", "p99_us", "p999_us", "max_us")
        }
    out["skipped_lines"] = s.skipped_lines
    return out


def test_stats_equal_the_cli(native):
    for path in traces(native):
        want = cli_json("trace", "stats", path, "--json")
        del want["file"]
        got = stats_fields(st.stats(path))
        # The JSON leaves out what the trace cannot give; the object says None.
        assert {k: v for k, v in got.items() if v is not None} == want, path
        assert isinstance(got["ios"], int) and got["ios"] > 0, path


def disksim_rows(text):
    """`trace convert --to disksim` output: (start ns, stream, byte offset, bytes, op)."""
    rows = []
    for line in text.splitlines():
        t, dev, lba, sectors, flag = line.split()
        rows.append((int(t), int(dev), int(lba) * 512, int(sectors) * 512,
                     "read" if flag == "1" else "write"))
    return rows


def test_tables_equal_the_cli_conversion(native, tmp_path):
    for path in traces(native):
        table = st.read(path)
        assert table.schema == st.read(path).schema
        native_copy = tmp_path / (path.name + ".ssdt")
        cli("trace", "convert", path, native_copy)
        # Native keeps every field: the CLI's copy reads back as the same table.
        assert st.read(native_copy).equals(table), path

        out = tmp_path / (path.name + ".trace")
        cli("trace", "convert", path, out, "--to", "disksim")
        want = disksim_rows(out.read_text())
        d = table.to_pydict()
        got = []
        for i, op in enumerate(d["op"]):
            if op not in ("read", "write"):
                continue  # DiskSim has no discards or flushes
            start = next((d[c][i] for c in ("queue_ns", "issue_ns", "complete_ns")
                          if d[c][i] is not None), 0)
            off = d["offset_bytes"][i]
            end = off + d["len_bytes"][i]
            got.append((start, d["stream"][i], off // 512 * 512,
                        (-(-end // 512) - off // 512) * 512, op))
        assert got == want, path
        assert len(want) > 0, path


def test_to_pandas_has_the_columns():
    df = st.read(FIXTURES / "blkparse.txt").to_pandas()
    assert list(df.columns) == ["op", "offset_bytes", "len_bytes", "queue_ns", "issue_ns",
                                "complete_ns", "stream", "merged"]
    assert str(df["op"].dtype) == "category"
    assert set(df["op"]) == {"read", "write", "flush", "discard"}


def test_batches_stream_the_same_rows(native):
    whole = st.read(native)
    reader = st.batches(native, batch_size=100)
    assert isinstance(reader, pa.RecordBatchReader)
    sizes = []
    batches = []
    for b in reader:
        sizes.append(b.num_rows)
        batches.append(b)
    assert all(n == 100 for n in sizes[:-1]) and 0 < sizes[-1] <= 100
    assert len(sizes) > 2
    assert pa.Table.from_batches(batches, schema=reader.schema).equals(whole)


def test_gen_equals_the_cli(tmp_path):
    path = tmp_path / "d.ssdt"
    cli("trace", "gen", "destroyer-2013", "--scale", "0.001", "--seed", "3", "-o", path)
    table = st.gen("destroyer-2013", scale=0.001, seed=3)
    assert table.num_rows > 1000
    assert table.equals(st.read(path))
    assert not table.equals(st.gen("destroyer-2013", scale=0.001, seed=4))


def test_format_can_be_named(native):
    assert st.read(FIXTURES / "msr.csv", format="msr").equals(st.read(FIXTURES / "msr.csv"))
    assert "blkparse" in st.formats() and "heavy-2011" in st.profiles()


@pytest.mark.parametrize("call, message", [
    (lambda: st.read("/nonexistent/trace.csv"), "no such file"),
    (lambda: st.read(FIXTURES / "msr.csv", format="bogus"), 'unknown trace format "bogus"'),
    (lambda: st.read(FIXTURES / "blkparse.txt", format="msr"), "blkparse.txt:1"),
    (lambda: st.stats(FIXTURES / "blkparse.txt", format="msr"), "blkparse.txt:1"),
    (lambda: st.batches(FIXTURES / "msr.csv", batch_size=0), "batch_size"),
    (lambda: st.gen("heavy-2099"), 'unknown trace profile "heavy-2099"'),
    (lambda: st.gen("heavy-2011", scale=-1), "scale must be a positive number"),
])
def test_errors_are_ssdlab_errors(call, message):
    with pytest.raises(ssdlab.SsdlabError, match=message):
        call()


def test_a_bad_line_mid_stream_stops_the_batches(tmp_path):
    path = tmp_path / "bad.csv"
    good = (FIXTURES / "msr.csv").read_text().splitlines()
    path.write_text("\n".join(good[:2] + ["not,a,record"] + good[2:]) + "\n")
    with pytest.raises(ssdlab.SsdlabError, match=r"bad.csv:3"):
        st.read(path, format="msr")
    reader = st.batches(path, format="msr", batch_size=1)
    assert reader.read_next_batch().num_rows == 1
    with pytest.raises(ssdlab.SsdlabError, match=r"bad.csv:3: expected"):
        reader.read_all()
    # skip_bad counts it instead
    assert st.read(path, format="msr", skip_bad=True).num_rows == len(good)
    assert st.stats(path, format="msr", skip_bad=True).skipped_lines == 1
