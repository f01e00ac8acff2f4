"""The fuzzing tool (tests/fuzz_readers.py) for a second per target and engine: every engine really
fuzzes every target (make setup installs atheris where PyPI has its wheel), and nothing crashes."""
import json
import os
import platform
import subprocess
import sys

import pytest

from conftest import ROOT


@pytest.mark.slow
def test_every_engine_fuzzes_every_target_without_a_crash(tmp_path):
    out = tmp_path / "fuzz.json"
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "tests", "fuzz_readers.py"), "--seconds", "1",
                           "--out", str(out)], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    from fuzz_readers import targets
    results = json.loads(out.read_text())["results"]
    fuzzed = {(r["engine"], r["target"]) for r in results if r.get("cases")}
    atheris_wheel = (platform.system(), platform.machine()) == ("Linux", "x86_64")
    engines = {"hypothesis", "atheris"} if atheris_wheel else {"hypothesis"}
    assert fuzzed == {(e, t) for e in engines for t in targets()}, [
        {k: r.get(k) for k in ("engine", "target", "cases", "skipped")} for r in results]
    assert not [r for r in results if r.get("crash_count")], results


def test_the_committed_record_states_the_command_that_wrote_it():
    """tests/fuzz_results.json is what `make fuzz` writes: its command is the tool's own invocation (not a
    path it no longer has), and its results are that command's: every engine and target, for its seconds."""
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    from fuzz_readers import RESULTS, targets
    with open(RESULTS) as f:
        record = json.load(f)
    words = record["command"].split()
    assert words[:2] == ["python", "tests/fuzz_readers.py"] and "--out" not in words, record["command"]
    seconds = float(words[words.index("--seconds") + 1])
    engines = words[words.index("--engines") + 1].split(",") if "--engines" in words else ["hypothesis", "atheris"]
    results = record["results"]
    assert {(r["engine"], r["target"]) for r in results} == {(e, t) for e in engines for t in targets()}
    assert all(r["seconds"] == seconds and r["cases"] > 0 and r["crash_count"] == 0 for r in results), results
