"""examples/pi/pi.py: the compute function in-process, real launches at 1, 2 and 4 ranks, and bad input.

The expected count of a launch is computed here, in-process, from the same per-rank streams
(SeedSequence(seed).spawn(size)[rank]) and per-rank shares: a launch that drew from the wrong stream,
dropped or duplicated the remainder, or lost a rank's count in the reduction cannot match it.
"""
import importlib.util
import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest

from conftest import ROOT, rank_streams

PI = os.path.join(ROOT, "examples", "pi", "pi.py")
N = 400_003  # odd, and 3 mod 4: every launch below has a remainder to place


def _load():
    spec = importlib.util.spec_from_file_location("pi_example", PI)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


pi = _load()


def expected_count(n, seed, size, method="vectorized"):
    total = 0
    for rank in range(size):
        child = pi.rank_seed(seed, rank, size)
        share = pi.share(n, rank, size)
        if method == "vectorized":
            total += pi.count_inside(share, child)
        else:
            total += pi.count_inside_loop(share, pi.loop_rng(child))
    return total


def test_count_inside_does_not_depend_on_chunk():
    counts = {pi.count_inside(10_007, 5, chunk) for chunk in (1, 7, 1000, 10_007, 2**20)}
    assert len(counts) == 1
    # ... but it does depend on the stream, so the equality above is not a constant.
    assert len({pi.count_inside(10_007, seed) for seed in range(5)}) > 1


def test_count_inside_edge_cases():
    assert pi.count_inside(0, 1) == 0
    assert pi.count_inside(1, 1) in (0, 1)
    rng = np.random.default_rng(3)
    state = rng.bit_generator.state
    assert pi.count_inside(1000, rng) == pi.count_inside(1000, 3) == pi.count_inside(1000, np.random.SeedSequence(3))
    assert rng.bit_generator.state != state  # a Generator passed in advances, like any numpy draw
    with pytest.raises(ValueError, match="samples"):
        pi.count_inside(-1, 1)
    with pytest.raises(ValueError, match="chunk"):
        pi.count_inside(10, 1, chunk=0)


def test_share_places_the_remainder_on_the_first_ranks():
    for n in (1, 3, 10, 400_003):
        for size in (1, 2, 3, 4, 7):
            shares = [pi.share(n, r, size) for r in range(size)]
            assert sum(shares) == n
            assert max(shares) - min(shares) <= 1
            assert shares == sorted(shares, reverse=True)


def test_estimates_within_five_standard_errors_in_process():
    n = 200_000
    for method in ("vectorized", "loop"):
        count = expected_count(n, 11, 2, method)
        estimate, se = pi.estimate(count, n)
        assert abs(estimate - math.pi) < 5 * se
        assert se == pytest.approx(4 * math.sqrt(math.pi / 4 * (1 - math.pi / 4) / n), rel=0.01)


def test_main_runs_without_mpi(tmp_path, monkeypatch, capsys):
    """As rank 0 of 1 when no launcher started it, even with mpi4py unimportable."""
    for name in pi.LAUNCHER_VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setitem(sys.modules, "mpi4py", None)
    out = tmp_path / "sub" / "pi.json"
    assert pi.main(["-N", "20001", "--seed", "4", "--method", "both", "--chunk", "100", "--json", str(out)]) == 0
    record = json.loads(out.read_text())
    assert record["ranks"] == 1
    vec, loop = record["results"]
    assert vec["inside"] == expected_count(20001, 4, 1)
    assert loop["inside"] == expected_count(20001, 4, 1, "loop")
    assert vec["samples_per_rank"] == [20001]
    assert "speed-up of vectorized over the loop: " in capsys.readouterr().out


@pytest.mark.parametrize("size", [1, 2, 4])
@pytest.mark.slow
def test_launched(ranks, tmp_path, size):
    result = ranks(size, PI, ["-N", N, "--seed", 7, "--json", "pi.json"]).check()
    record = json.loads((tmp_path / "pi.json").read_text())
    (res,) = record["results"]
    assert record["ranks"] == size
    assert res["samples"] == N
    assert sum(res["samples_per_rank"]) == N
    assert res["samples_per_rank"] == [N // size + (r < N % size) for r in range(size)]
    assert result.lines("samples per rank:") == [" ".join(map(str, res["samples_per_rank"]))]
    assert res["inside"] == expected_count(N, 7, size)
    assert abs(res["estimate"] - math.pi) < 5 * res["std_error"]
    assert res["std_error"] == pytest.approx(4 * math.sqrt(math.pi / 4 * (1 - math.pi / 4) / N), rel=0.01)
    assert res["time_s"] > 0 and len(res["cpu_s_per_rank"]) == size


@pytest.mark.slow
def test_launched_reproducible_across_runs_and_chunks(ranks, tmp_path):
    """Same seed and N, two runs with different chunks and both methods: the same counts."""
    ranks(2, PI, ["-N", N, "--seed", 9, "--json", "a.json"]).check()
    ranks(2, PI, ["-N", N, "--seed", 9, "--chunk", 1000, "--method", "both", "--json", "b.json"]).check()
    a = json.loads((tmp_path / "a.json").read_text())["results"]
    b = json.loads((tmp_path / "b.json").read_text())["results"]
    assert a[0]["inside"] == b[0]["inside"] == expected_count(N, 9, 2)
    assert b[1]["method"] == "loop"
    assert b[1]["inside"] == expected_count(N, 9, 2, "loop")
    assert abs(b[1]["estimate"] - math.pi) < 5 * b[1]["std_error"]


@pytest.mark.slow
def test_unseeded_runs_print_their_seed_and_ranks_share_it(ranks, tmp_path):
    result = ranks(2, PI, ["-N", 10_001, "--json", "pi.json"]).check()
    record = json.loads((tmp_path / "pi.json").read_text())
    assert f"seed {record['seed']}" in rank_streams(result.stdout)[0]
    assert record["results"][0]["inside"] == expected_count(10_001, record["seed"], 2)


@pytest.mark.parametrize("args,message", [
    (["-N", "0"], "-N"),
    (["-N", "-5"], "-N"),
    (["-N", "2.5"], "-N"),
    (["--chunk", "0"], "--chunk"),
    (["--seed", "-1"], "--seed"),
    (["--json", "."], "is a directory"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, args, message):
    proc = subprocess.run([sys.executable, PI, *args], capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("pi.py: error:") and message in lines[0], proc.stderr
    assert list(tmp_path.iterdir()) == []
