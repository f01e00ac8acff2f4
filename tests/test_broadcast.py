"""Step 6: after broadcast_state every rank holds rank 0's parameters, buffers and optimizer state."""
import pytest

from steps import FRAMEWORKS

pytestmark = pytest.mark.slow  # launches ranks


@pytest.mark.parametrize("framework", FRAMEWORKS)
@pytest.mark.parametrize("n", [2, 4])  # 4: oversubscribed on 2 cores
def test_broadcast_state(shared_checks, framework, n):
    rows = [line.split() for line in shared_checks(framework, n).lines("BCAST")]
    assert sorted(int(r[0]) for r in rows) == list(range(n))
    # Each rank seeded differently and took rank+1 local Adam steps with lr 0.01*(rank+1) before this.
    assert len({r[1] for r in rows}) == 1, "model parameters/buffers differ after broadcast"
    assert len({r[2] for r in rows}) == 1, "optimizer state differs after broadcast"
    assert {float(r[3]) for r in rows} == {1.0}, "optimizer step count must be rank 0's"
    assert [float(r[4]) for r in rows] == pytest.approx([0.01] * n), "learning rate must be rank 0's"
