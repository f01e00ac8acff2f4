"""Step 4: LR scaling rules and per-step warmup, the same math in both frameworks."""
import math

import pytest

from hvdkit.common import schedule
from steps import FRAMEWORKS, RULES, WARMUP, json_rows


def test_scale_rules():
    assert schedule.scaled_lr(0.1, 8, "linear") == pytest.approx(0.8)
    assert schedule.scaled_lr(0.1, 8, "sqrt") == pytest.approx(0.1 * math.sqrt(8))
    assert schedule.scaled_lr(0.1, 8, "none") == 0.1
    with pytest.raises(ValueError, match="use one of linear, sqrt, none"):
        schedule.scale_factor(2, "cubic")


def test_warmup_formula_and_lengths():
    assert schedule.warmup_lr(0, 0.1, 0.4, 10) == pytest.approx(0.1)
    assert schedule.warmup_lr(5, 0.1, 0.4, 10) == pytest.approx(0.25)
    assert schedule.warmup_lr(10, 0.1, 0.4, 10) == pytest.approx(0.4)
    assert schedule.warmup_lr(99, 0.1, 0.4, 10) == pytest.approx(0.4)
    assert schedule.warmup_lr(0, 0.1, 0.4, 0) == 0.4
    assert schedule.warmup_steps(epochs=2.5, steps_per_epoch=10) == 25
    with pytest.raises(ValueError, match="not both"):
        schedule.warmup_steps(steps=3, epochs=1, steps_per_epoch=4)


@pytest.mark.parametrize("framework", FRAMEWORKS)
@pytest.mark.parametrize("rule,n", [(RULES[4], 4), (RULES[2], 2)])  # 4 ranks: oversubscribed on 2 cores
@pytest.mark.slow
def test_scheduler_follows_formula(shared_checks, framework, rule, n):
    base, warm = 0.1, WARMUP
    rows = json_rows(shared_checks(framework, n), "LRS")
    assert len(rows) == n
    target = schedule.scaled_lr(base, n, rule)
    for row in rows:
        assert row["scaled"] == pytest.approx(target)
        expected = [base + (target - base) * min(s / warm, 1.0) for s in range(warm + 3)]
        assert row["lrs"] == pytest.approx(expected, rel=1e-6)


@pytest.mark.parametrize("framework", FRAMEWORKS)
@pytest.mark.slow
def test_warmup_before_or_after_distributed_optimizer_is_exact_and_silent(shared_checks, framework):
    """Steps 4 and 5 in either order: the LR each step really applied (read off the weight update) follows
    the ramp from 0.1 to 0.2 over 4 steps at 2 ranks, and no warning is raised (the rank script turns any
    warning into an error: PyTorch's "lr_scheduler.step() before optimizer.step()" among them). The same
    ramp when the run is checkpointed after 2 steps and a new run resumes: a torch scheduler made before
    step 5 must still set the LR the restored optimizer uses."""
    expected = [0.1, 0.125, 0.15, 0.175, 0.2, 0.2]  # 0.1 + (0.2 - 0.1) * min(s / 4, 1), s = 0..5
    assert WARMUP == 4, "the expected ramp below is worked out for 4 warmup steps"
    rows = json_rows(shared_checks(framework, 2), "ORDER")
    assert len(rows) == 2
    for row in rows:
        assert set(row) == {"warmup_first", "optimizer_first", "warmup_first_resumed", "optimizer_first_resumed"}
        for order, lrs in row.items():
            assert lrs == pytest.approx(expected, rel=1e-5), order
