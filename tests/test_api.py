"""hvdkit.torch and hvdkit.tensorflow: one API. The same public names with the same signatures, except the
differences docs/eight-steps.md lists with their reasons (section "Where the two modules differ"); nothing
exported beyond __all__; the listed differences are exactly the real ones (a stale row fails too)."""
import json
import os
import re
import subprocess
import sys

import pytest

from conftest import ROOT

DOC = os.path.join(ROOT, "docs", "eight-steps.md")
SECTION = "## Where the two modules differ"
# Run in a fresh interpreter per framework: each module must import without the other framework.
PROBE = """
import inspect, json, sys, types
mod = __import__(sys.argv[1], fromlist=["*"])
api, leaked = {}, []
for name in mod.__all__:
    obj = getattr(mod, name)
    try:
        sig = str(inspect.signature(obj))
    except (TypeError, ValueError):  # exception classes
        sig = None
    api[name] = ["class" if isinstance(obj, type) else "function", sig]
for name, obj in vars(mod).items():
    if not name.startswith("_") and name not in mod.__all__ and not isinstance(obj, types.ModuleType) \\
            and (getattr(obj, "__module__", None) or "").startswith("hvdkit"):
        leaked.append(name)
print("API", json.dumps({"api": api, "leaked": leaked}))
"""


def _api(module):
    proc = subprocess.run([sys.executable, "-c", PROBE, module], capture_output=True, text=True, timeout=180,
                          env=dict(os.environ, PYTHONPATH=ROOT))
    assert proc.returncode == 0, proc.stderr[-3000:]
    line = [ln for ln in proc.stdout.splitlines() if ln.startswith("API ")][-1]
    return json.loads(line[4:])


def _listed():
    """{name: (torch cell, tensorflow cell, why)} from the documented table."""
    with open(DOC) as f:
        text = f.read()
    assert SECTION in text, f"{DOC} lacks the section {SECTION!r}"
    section = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        m = re.fullmatch(r"`(\w+)`", cells[0]) if len(cells) == 4 else None
        if m:
            rows[m.group(1)] = tuple(cells[1:])
    return rows


def _cells(name, torch_entry, tf_entry):
    if torch_entry and tf_entry:
        return tuple(f"`{name}{e[1]}`" if e[1] is not None else f"`{name}` ({e[0]})" for e in (torch_entry, tf_entry))
    return tuple(f"`{name}`" if e else "—" for e in (torch_entry, tf_entry))


@pytest.mark.torch
@pytest.mark.tensorflow
@pytest.mark.horovod
def test_both_modules_have_the_same_api_but_the_documented_differences():
    torch_api, tf_api = _api("hvdkit.torch"), _api("hvdkit.tensorflow")
    assert torch_api["leaked"] == [] and tf_api["leaked"] == [], "public names outside __all__"
    differences = {}
    for name in sorted(set(torch_api["api"]) | set(tf_api["api"])):
        t, f = torch_api["api"].get(name), tf_api["api"].get(name)
        if t != f:
            differences[name] = _cells(name, t, f)
    # The core of the eight steps is shared: a refactoring that drops one from either side fails here.
    for name in ("init", "shard", "shard_eval", "scale_lr", "warmup", "distributed_optimizer", "broadcast_state",
                 "Checkpointer", "average_metrics", "check_consistent", "print0", "progress", "timeline_window"):
        assert name in torch_api["api"] and name in tf_api["api"], name
    listed = _listed()
    assert not set(differences) - set(listed), f"differences not listed in {DOC}: " + "; ".join(
        f"{n}: {differences[n]}" for n in sorted(set(differences) - set(listed)))
    assert not set(listed) - set(differences), \
        f"listed in {DOC} but not different: {sorted(set(listed) - set(differences))}"
    for name, (torch_cell, tf_cell) in differences.items():
        doc_torch, doc_tf, why = listed[name]
        assert (doc_torch, doc_tf) == (torch_cell, tf_cell), f"{name}: the doc says {(doc_torch, doc_tf)}"
        assert len(why) >= 20, f"{name}: say why the two differ"


FAILING = """
import atexit, sys
import {module} as hk
atexit.register(lambda: print("ATEXIT RAN", flush=True))
hk.init(fail_fast={fail_fast})
print("HOOK", "python's" if sys.excepthook is sys.__excepthook__ else "hvdkit's", flush=True)
raise RuntimeError("boom")
"""


@pytest.mark.horovod
@pytest.mark.parametrize("module,fail_fast", [  # the default's hook is the same code in both: torch shows it
    pytest.param("hvdkit.torch", True, marks=pytest.mark.torch),
    pytest.param("hvdkit.torch", False, marks=pytest.mark.torch),
    pytest.param("hvdkit.tensorflow", False, marks=pytest.mark.tensorflow)])
def test_fail_fast_false_installs_no_hook_and_atexit_handlers_run(module, fail_fast):
    """init() (fail_fast=True) ends a failing rank with os._exit, naming it: atexit handlers do not run.
    init(fail_fast=False) leaves Python's exception handling alone: the traceback, and the handlers run."""
    proc = subprocess.run([sys.executable, "-c", FAILING.format(module=module, fail_fast=fail_fast)],
                          capture_output=True, text=True, timeout=180, env=dict(os.environ, PYTHONPATH=ROOT))
    assert proc.returncode == 1
    assert ("HOOK hvdkit's" if fail_fast else "HOOK python's") in proc.stdout
    assert ("ATEXIT RAN" in proc.stdout) is (not fail_fast), proc.stdout
    first = proc.stderr.strip().splitlines()
    if fail_fast:
        assert any(ln.startswith("hvdkit: rank 0 of 1 failed") and "RuntimeError: boom" in ln for ln in first), \
            proc.stderr
    else:
        assert "hvdkit: rank" not in proc.stderr and first[-1] == "RuntimeError: boom", proc.stderr
