"""`hvdkit check --run`'s judging, without a launch: a crash is a verdict on the step whose code crashed
(blame.py), and a run never ends without a verdict. The launches themselves: test_check_run.py."""
import textwrap

from hvdkit.check.run import dynamic
from hvdkit.check.run.blame import script_line_in_log, statement_at, step_of_crash
from hvdkit.check.run.observer import RankRecord

SCRIPT = textwrap.dedent("""\
    import torch
    import horovod.torch as hvd
    data = load_my_data(path)
    hvd.init()
    loader = torch.utils.data.DataLoader(
        data, batch_size=32,
        sampler=torch.utils.data.distributed.DistributedSampler(data), shuffle=True)
    opt = hvd.DistributedOptimizer(
        torch.optim.SGD(model.parameters(), lr=0.1),
        named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    for x, y in loader:
        loss = helper(x, y)
    print("lr", args.lr)
    if hvd.rank() == 0:
        torch.save(model.state_dict(), "ckpt.pt")
    """)


def test_the_whole_statement_is_read_and_charged_to_its_step():
    # Line 6 is inside the DataLoader call that starts on line 5.
    assert statement_at(SCRIPT, 6).startswith("loader = torch.utils.data.DataLoader(")
    assert step_of_crash(SCRIPT, 6, init_ran=True, steps_done=0).step == 3
    assert step_of_crash(SCRIPT, 9, init_ran=True, steps_done=0).step == 5      # DistributedOptimizer(...)
    assert step_of_crash(SCRIPT, 11, init_ran=True, steps_done=0).step == 6
    assert step_of_crash(SCRIPT, 14, init_ran=True, steps_done=2).step == 4     # args.lr never declared
    assert step_of_crash(SCRIPT, 16, init_ran=True, steps_done=3).step == 7
    # A line that names no step: charged by how far the run got.
    assert step_of_crash(SCRIPT, 3, init_ran=False, steps_done=0) == (1, "data = load_my_data(path)",
                                                                      "hvd.init() had not run yet")
    assert step_of_crash(SCRIPT, 13, init_ran=True, steps_done=0).step == 5
    assert step_of_crash(SCRIPT, 15, init_ran=True, steps_done=3).statement == "if hvd.rank() == 0:"


def _records(crash_line=None, crash_error="", steps=(3, 3), init=True):
    recs = {}
    for r, n in enumerate(steps):
        rec = RankRecord(rank=r, size_env=len(steps), init=init, hvd_size=len(steps) if init else None, steps=n)
        rec.hash_before = {"1": "same", "2": "same"} if n else {}
        rec.hash_after = {str(k): "same" for k in range(1, n + 1)}
        recs[r] = rec
    if crash_line:
        recs[1].crash = {"error": crash_error, "line": crash_line, "code": SCRIPT.splitlines()[crash_line - 1]}
    return recs


def test_a_crash_is_a_flagged_verdict_with_its_error_line_and_step():
    result = dynamic.judge(_records(14, "AttributeError: 'Namespace' object has no attribute 'lr'", steps=(2, 2)),
                           2, 3, SCRIPT)
    finding = result.findings[4]
    assert finding.verdict == "wrong" and finding.line == 14 and finding.source == "run"
    assert finding.crash  # charged by where it crashed: report.merge() may find it explained by a static fault
    assert "rank 1 crashed (line 14: AttributeError" in finding.evidence
    assert result.crash.step == 4 and result.crash.rank == 1
    # What the ranks did before the crash is still judged: equal weights after steps 1 and 2.
    assert result.findings[6].verdict == "ok" and result.findings[5].verdict == "ok"
    assert result.as_dict()["crash"]["line"] == 14 and "findings" not in result.as_dict()


def test_a_launch_that_left_no_record_is_charged_from_its_traceback():
    log = 'Traceback (most recent call last):\n  File "/tmp/x/train.py", line 11, in <module>\nRuntimeError: boom\n'
    assert script_line_in_log(log, "/elsewhere/train.py") == 11
    result = dynamic.judge({}, 2, 3, SCRIPT, log=log, status=1, script="/tmp/x/train.py")
    assert result.crash.step == 6 and result.findings[6].verdict == "wrong"
    assert "the launch crashed (line 11: the launch ended with status 1)" in result.findings[6].evidence


def test_a_script_that_ends_without_a_step_is_flagged_on_the_optimizer():
    result = dynamic.judge(_records(steps=(0, 0)), 2, 3, SCRIPT)
    assert result.crash is None and result.findings[5].verdict == "missing"
    assert "without taking an optimizer step" in result.findings[5].evidence


def test_a_hang_is_charged_to_the_line_the_ranks_were_stuck_at():
    recs = _records(11, "TimeLimit: stopped at the time limit (--timeout) while running this line", steps=(0, 0))
    result = dynamic.judge(recs, 2, 3, SCRIPT, timed_out=True)
    assert result.crash.step == 6 and result.findings[6].verdict == "wrong"


def test_corpus_run_record_has_a_verdict_for_every_script_run():
    """benchmarks/results/check_run.json (python -m benchmarks.check_run_bench): every corpus script whose
    imports are installed ended with observed steps or a crash verdict on a step; the rest say why not."""
    import json
    import os
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks", "results",
                        "check_run.json")
    with open(path) as f:
        record = json.load(f)
    assert record["no_verdict"] == [] and len(record["scripts"]) + len(record["skipped"]) == 38
    for name, row in record["scripts"].items():
        crashed = row["crash"] is not None
        assert row["ended_with"].startswith("crash verdict on step" if crashed else "observed steps"), name
        if crashed:  # the crash is a flag on its step, never an empty list
            assert row["crash_flags"] == [row["crash"]["step"]], name
            assert row["verdict_on_crash"] in ("wrong", "missing"), name
    assert all("not installed" in why or "No module named" in why for why in record["skipped"].values())


def test_corpus_scorer_skips_only_unguarded_missing_imports(tmp_path):
    from benchmarks.check_run_bench import required_imports
    script = tmp_path / "s.py"
    script.write_text("import os\nimport numpy as np\nfrom horovod import torch as hvd\n"
                      "try:\n    import apex\nexcept ImportError:\n    apex = None\nfrom . import sibling\n")
    assert required_imports(str(script)) == ["horovod", "numpy", "os"]


def test_horovod_used_before_init_is_step_1_whatever_the_line_does():
    """The sampler line (step 3's words) raised only because hvd.init() had not run: mutants removing init read
    1 and 3 flagged under --run before."""
    blame = step_of_crash(SCRIPT, 6, init_ran=False, steps_done=0,
                          error="ValueError: Horovod has not been initialized; use hvd.init().")
    assert blame.step == 1
    assert step_of_crash(SCRIPT, 6, init_ran=True, steps_done=0, error="ValueError: bad batch").step == 3


def test_a_crash_in_the_training_call_explained_by_a_static_fault_is_not_step_5():
    """Every rank writing one checkpoint file (static step 7 wrong) crashes inside fit(): step 5 stays what the
    static pass said, with the crash beside it; with no static fault to explain it, the crash is step 5's."""
    from hvdkit.check import OK, WRONG, Finding
    from hvdkit.check.report import merge
    static = {n: Finding(OK, "seen") for n in range(1, 9)}
    static[7] = Finding(WRONG, "every rank writes the checkpoint")
    crash = Finding(WRONG, "rank 1 crashed (line 40: BlockingIOError: unable to lock file)", 40, source="run")
    crash.crash = True
    merged = merge(static, {5: crash})
    assert merged[5].verdict == OK and "BlockingIOError" in merged[5].evidence and merged[7].verdict == WRONG
    static[7] = Finding(OK, "rank 0 writes")
    crash = Finding(WRONG, "rank 1 crashed (line 40: RuntimeError)", 40, source="run")
    crash.crash = True
    assert merge(static, {5: crash})[5].verdict == WRONG
