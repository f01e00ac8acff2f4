"""Ranks launched by hvdkit keep large PyTorch tensors on transparent huge pages (THP_MEM_ALLOC_ENABLE=1),
as NumPy does for its large arrays: a 16 MB allreduce is then as fast as mpi4py's on a NumPy array
(benchmarks/results/allreduce.json). Checked in each rank's own page tables, /proc/self/smaps. Also: horovodrun is the
interpreter's own."""
import os
import sys

import pytest

from hvdkit.scale import launch

pytestmark = pytest.mark.slow  # launches ranks

THP_MODE = "/sys/kernel/mm/transparent_hugepage/enabled"

SCRIPT = """
import os, torch
x = torch.ones(8 << 20)  # 32 MB: several whole 2 MB pages whatever the alignment
ptr, kb = x.data_ptr(), None
with open("/proc/self/smaps") as f:
    for line in f:
        head = line.split()
        if "-" in head[0] and len(head) > 4:
            lo, hi = (int(a, 16) for a in head[0].split("-"))
            inside = lo <= ptr < hi
        elif inside and head[0] == "AnonHugePages:":
            kb = int(head[1])
rank = os.environ.get("OMPI_COMM_WORLD_RANK", "0")
print("HUGE", rank, os.environ.get("THP_MEM_ALLOC_ENABLE", "-"), kb)
"""


def thp_mode():
    try:
        with open(THP_MODE) as f:
            return f.read().split("[")[1].split("]")[0]
    except (OSError, IndexError):
        return None


def huge_kb(result):
    rows = sorted(line.split() for line in result.check().lines("HUGE"))
    assert [r[0] for r in rows] == ["0", "1"], result.stdout
    return {r[1]: int(r[2]) for r in rows}, rows


@pytest.mark.torch
def test_ranks_put_large_torch_tensors_on_huge_pages(ranks):
    mode = thp_mode()
    if mode in (None, "never"):
        pytest.skip(f"transparent huge pages are off on this machine ({THP_MODE}: {mode})")
    env = {k: v for k, v in os.environ.items() if k != "THP_MEM_ALLOC_ENABLE"}
    got, rows = huge_kb(ranks(2, SCRIPT, env=env))
    assert list(got) == ["1"], rows  # hvdkit's launch environment set it on every rank
    assert all(int(r[2]) >= 16 << 10 for r in rows), f"fewer than 16 MB of the tensor on huge pages: {rows}"


@pytest.mark.torch
def test_the_users_own_setting_wins(ranks):
    if thp_mode() != "madvise":
        pytest.skip(f"only under THP 'madvise' does PyTorch's setting decide ({THP_MODE}: {thp_mode()})")
    got, rows = huge_kb(ranks(2, SCRIPT, env={**os.environ, "THP_MEM_ALLOC_ENABLE": "0"}))
    assert got == {"0": 0}, rows


@pytest.mark.horovod
def test_horovodrun_found_beside_the_interpreter(monkeypatch):
    # `.venv/bin/python -m benchmarks.run` with the venv not activated: its horovodrun is not on PATH.
    beside = os.path.join(os.path.dirname(os.path.abspath(sys.executable)), "horovodrun")
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    assert launch.command(2, ["x"], "horovodrun")[0] == beside
