"""`--against` without launching anything: step 3's judgement of the ranks' batches (from records written
here), the report's lines and exit status, and bad input. The launched runs: tests/test_check_against.py."""
import json
import os
import random
import subprocess
import sys

from hvdkit.check import OK, STEPS, Finding
from hvdkit.check import report
from hvdkit.check.against import samples
from hvdkit.check.against.recorded import HorovodRun

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def write_run(tmp_path, batches, per_pass=None, universe=2048):
    """A Horovod run as record.py leaves it: batches[rank][step] is the list of sample ids of that step."""
    for rank, steps in enumerate(batches):
        os.makedirs(tmp_path / f"rank-{rank}", exist_ok=True)
        yields = {str(k): [{"iter": 1, "index": None, "n": len(ids), "rows": ids, "sig": "s", "universe": universe,
                            "per_pass": per_pass[rank] if per_pass else None}]
                  for k, ids in enumerate(steps, start=1)}
        (tmp_path / f"rank-{rank}" / "record.json").write_text(json.dumps({"yields": yields}))
    return HorovodRun(str(tmp_path), len(batches))


def seq_own(per_pass, universe=2048):
    return {"1": [{"n": 64, "per_pass": per_pass, "universe": universe}]}


def test_the_same_batches_on_every_rank_are_step_3(tmp_path):
    steps = [[f"s{i}" for i in range(64 * k, 64 * (k + 1))] for k in range(4)]
    [fault] = samples.judge(write_run(tmp_path, [steps, steps]), 4, seq_own(2048))
    assert fault.kind == "overlap" and "the same batches at every step" in fault.what
    assert "would share about 32" in fault.what  # 256 x 256 / 2048 for independent draws


def test_independent_random_draws_are_horovods_idiom_not_a_fault(tmp_path):
    rng = random.Random(3)
    draws = [[[f"s{i}" for i in rng.sample(range(2048), 64)] for _ in range(4)] for _ in range(2)]
    hvd = write_run(tmp_path, draws)
    assert samples.judge(hvd, 4, seq_own(2048)) == []
    shared = set(sum(draws[0], [])) & set(sum(draws[1], []))
    assert 10 < len(shared) < 60  # they do share samples: about 256 x 256 / 2048 = 32


def test_disjoint_parts_of_one_pass_are_fine_and_twice_the_pass_is_not(tmp_path):
    parts = [[[f"s{i}" for i in range(r * 1024 + 64 * k, r * 1024 + 64 * (k + 1))] for k in range(4)]
             for r in range(2)]
    assert samples.judge(write_run(tmp_path / "a", parts, per_pass=[1024, 1024]), 4, seq_own(2048)) == []
    [fault] = samples.judge(write_run(tmp_path / "b", parts, per_pass=[2048, 2048]), 4, seq_own(2048))
    assert fault.kind == "volume" and "4096 samples in all, 2 x" in fault.what
    # A data set made per rank (N x the samples): the shares of it are what count.
    hvd = write_run(tmp_path / "c", parts, per_pass=[2048, 2048], universe=4096)
    assert samples.judge(hvd, 4, seq_own(2048)) == []


def test_report_lines_and_exit_status():
    findings = {n: Finding(OK, "fine") for n, _, _ in STEPS}
    same = {"sequential": "seq.py", "ranks": 2, "equivalent": True, "explained_by": [], "first_divergence": None,
            "lr_ratio": 2.0, "batch_ratio": 2.0, "steps_compared": 4, "reason": None, "evidence": [],
            "largest": {"step": 2, "tensor": "fc.weight", "max_abs": 1e-8, "tolerance": 1e-7, "ratio": 0.1}}
    assert report.exit_status(findings, against=same) == 0
    assert "trains the same model (largest difference 1e-08, 0.1 x its tolerance, fc.weight after step 2)" in \
        " ".join(report.against_lines(same, width=400))
    lr = dict(same, lr_ratio=1.0, explained_by=[4], evidence=["4: LR ratio 1, global batch ratio 2"])
    assert report.exit_status(findings, against=lr) == 1
    diverged = dict(same, equivalent=False, explained_by=[5], evidence=["5: ranks differ"],
                    first_divergence={"step": 1, "tensor": "fc.weight", "max_abs": 3e-3, "tolerance": 1e-7})
    lines = report.against_lines(diverged, width=400)
    assert lines[0].endswith("DIVERGES at step 1, fc.weight: max |diff| 0.003 > tolerance 1e-07; explained by "
                             "step(s) 5; LR ratio (Horovod / sequential) 2, global batch ratio 2")
    assert lines[1] == "  - 5: ranks differ" and report.exit_status(findings, against=diverged) == 1
    cannot = dict(same, equivalent=None, reason="the two scripts train different models")
    assert report.against_lines(cannot) == ["against seq.py: cannot compare: the two scripts train different models"]
    assert report.exit_status(findings, against=cannot) == 2


def test_bad_input_is_one_line_and_status_2(tmp_path):
    hvd = os.path.join(ROOT, "tests", "check_against", "torch_fashion", "train_hvd.py")
    for extra, words in ((["--against", str(tmp_path / "nope.py")], "no such file"),
                         (["--against", hvd, "-n", "1"], "at least 2 ranks")):
        proc = subprocess.run([sys.executable, "-m", "hvdkit", "check", hvd, *extra], capture_output=True, text=True)
        assert proc.returncode == 2 and proc.stdout == ""
        assert len(proc.stderr.strip().splitlines()) == 1 and words in proc.stderr


def test_the_effective_lr_against_the_global_batch():
    """Step 4 is the LR against the global batch, through the gradients' scale: op=Sum with an unscaled LR and a
    fixed global batch split over the ranks with an unscaled LR are right; Sum with the LR scaled too is 5."""
    from hvdkit.check.against.explain import _lr

    def judge(lr_ratio, batch_ratio, scale):
        evidence, explained = [], set()
        _lr(lr_ratio, "at the compared steps", batch_ratio, scale, evidence, explained)
        return sorted(explained), evidence
    assert judge(2.0, 2.0, None) == ([], [])
    assert judge(1.0, 1.0, None) == ([], [])                      # 128 split over 2 ranks, LR as written
    assert judge(1.0, 2.0, None)[0] == [4]
    assert judge(0.5, 2.0, None)[0] == [4]                        # divided by the ranks
    assert judge(1.0, 2.0, 2.0)[0] == [] and "gradients summed" in judge(1.0, 2.0, 2.0)[1][0]
    explained, [line] = judge(2.0, 2.0, 2.0)
    assert explained == [5] and "the effective LR is 4 x the sequential, the global batch 2 x" in line
