"""Step 3: shards are disjoint, cover the data (up to drop_last), reshuffle per epoch, equal steps; the
evaluation shards (shard_eval) hold every sample exactly once."""
import pytest

from steps import FRAMEWORKS, SHARD_N, json_rows

pytestmark = pytest.mark.slow  # launches ranks

N = SHARD_N  # not a multiple of ranks * batch: the remainder is where shards go wrong


@pytest.mark.parametrize("framework", FRAMEWORKS)
@pytest.mark.parametrize("n", [2, 4])
def test_shards(shared_checks, framework, n):
    result = shared_checks(framework, n)
    rows = json_rows(result, "SHARD")
    assert len(rows) == n * 4
    # Evaluation: rank r holds samples r, r + n, ... in order; together each of the N exactly once.
    evaluated = {r["rank"]: r["samples"] for r in json_rows(result, "EVAL")}
    assert evaluated == {r: list(range(r, N, n)) for r in range(n)}
    for drop_last in (False, True):
        per_rank = N // n if drop_last else -(-N // n)
        orders = {}
        for epoch in (0, 1):
            got = {r["rank"]: r for r in rows if r["drop_last"] == drop_last and r["epoch"] == epoch}
            assert sorted(got) == list(range(n))
            assert len({r["steps"] for r in got.values()}) == 1, "ranks would take different numbers of steps"
            assert all(len(r["samples"]) == per_rank for r in got.values())
            union = [i for r in got.values() for i in r["samples"]]
            if drop_last:
                assert len(set(union)) == len(union) == per_rank * n  # disjoint, remainder dropped
            else:
                assert set(union) == set(range(N))  # covered; padding repeats at most n-1 samples
                assert len(union) - N == per_rank * n - N < n
            orders[epoch] = [got[r]["samples"] for r in range(n)]
        assert orders[0] != orders[1], "epochs must be shuffled differently"
