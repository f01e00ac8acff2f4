"""Step 8: average_metrics is the mean over all samples, not the mean of per-rank means."""
import math

import pytest

from hvdkit.common import metrics
from steps import FRAMEWORKS, json_rows


@pytest.mark.parametrize("framework", FRAMEWORKS)
@pytest.mark.parametrize("n", [2, 4])
@pytest.mark.slow
def test_uneven_shards(shared_checks, framework, n):
    # Rank r holds r + 1 samples of value r: global mean = sum r(r+1) / sum (r+1).
    expected = sum(r * (r + 1) for r in range(n)) / sum(r + 1 for r in range(n))
    rows = json_rows(shared_checks(framework, n), "METRICS")
    assert len(rows) == n
    for row in rows:
        assert row["loss"] == pytest.approx(expected, rel=1e-12)
        assert row["loss"] != pytest.approx((n - 1) / 2)  # what a mean of means would say
        assert row["acc"] == 1.0
        assert math.isnan(row["empty"])


def test_pack_rejects_bad_input():
    with pytest.raises(ValueError, match="non-empty dict"):
        metrics.pack({})
    with pytest.raises(ValueError, match="'loss' must be a \\(sum, count\\) pair"):
        metrics.pack({"loss": 0.5})
