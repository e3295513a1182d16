"""What the package's tests share: the `ssdlab` binary they compare with (SSDLAB_CLI, set by
tests/pytest/main.rs) and the repository's test data."""

import json
import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(os.environ.get("SSDLAB_REPO", Path(__file__).resolve().parents[2]))
FIXTURES = REPO / "crates" / "trace" / "tests" / "fixtures"


def cli(*args):
    """Run the ssdlab binary; its standard output, or a failed test with its error."""
    exe = os.environ.get("SSDLAB_CLI")
    if not exe:
        pytest.fail("SSDLAB_CLI is not set: run these tests through `cargo test -p ssdlab-python`")
    done = subprocess.run([exe, *map(str, args)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.fail(f"ssdlab {' '.join(map(str, args))} failed: {done.stderr}")
    return done.stdout


def cli_json(*args):
    return json.loads(cli(*args))
