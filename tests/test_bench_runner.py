"""`make bench`'s runner, as a smoke run: every benchmark runs at tiny size and writes its record.
No assertion on speed: targets live in the benchmarks' own results."""
import json
import os
import platform
import subprocess
import sys

import pytest

from conftest import ROOT


@pytest.mark.horovod
def test_quick_run_writes_every_record(tmp_path):
    out = subprocess.run([sys.executable, "-m", "benchmarks.run", "--quick", "--out-dir", str(tmp_path)],
                         cwd=ROOT, capture_output=True, text=True, timeout=600,
                         env=dict(os.environ, PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"]))
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    from benchmarks.fuzz_readers import targets
    from benchmarks.run import BENCHMARKS
    for name in BENCHMARKS:
        with open(tmp_path / f"{name}.json") as f:
            record = json.load(f)
        assert record, name
    assert json.load(open(tmp_path / "pi.json"))["loop_vs_vectorized"]["speedup"] > 0
    # make setup installs atheris where PyPI has its wheel, so both engines must really fuzz every target there.
    results = json.load(open(tmp_path / "fuzz.json"))["results"]
    fuzzed = {(r["engine"], r["target"]) for r in results if r.get("cases")}
    engines = {"hypothesis", "atheris"} if (platform.system(), platform.machine()) == ("Linux", "x86_64") else {"hypothesis"}
    assert fuzzed == {(e, t) for e in engines for t in targets()}, [
        {k: r.get(k) for k in ("engine", "target", "cases", "skipped")} for r in results]
