"""Ranks launched by hvdkit keep large PyTorch tensors on transparent huge pages (glibc's malloc asks for them,
GLIBC_TUNABLES=glibc.malloc.hugetlb=1), as NumPy does for its large arrays, without aligning them to the page
(PyTorch's own THP_MEM_ALLOC_ENABLE=1 does, and OpenMPI's reduction into a page-aligned buffer is slower:
benchmarks/results/allreduce.json). Checked in each rank's own page tables, /proc/self/smaps. Also: horovodrun is
the interpreter's own."""
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
print("HUGE", rank, os.environ.get("GLIBC_TUNABLES", "-"), kb, ptr % 4096)
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
    return {r[1] for r in rows}, [int(r[2]) for r in rows], [int(r[3]) for r in rows]


@pytest.mark.torch
def test_ranks_put_large_torch_tensors_on_huge_pages_off_the_page_boundary(ranks):
    mode = thp_mode()
    if mode in (None, "never"):
        pytest.skip(f"transparent huge pages are off on this machine ({THP_MODE}: {mode})")
    env = {k: v for k, v in os.environ.items() if k not in ("GLIBC_TUNABLES", "THP_MEM_ALLOC_ENABLE")}
    tunables, kb, offsets = huge_kb(ranks(2, SCRIPT, env=env))
    assert tunables == {"glibc.malloc.hugetlb=1"}  # hvdkit's launch environment set it on every rank
    assert all(k >= 16 << 10 for k in kb), f"fewer than 16 MB of the 32 MB tensor on huge pages: {kb}"
    assert all(off != 0 for off in offsets), f"page-aligned tensors: offsets {offsets}"


@pytest.mark.torch
def test_the_users_own_setting_wins(ranks):
    if thp_mode() != "madvise":
        pytest.skip(f"only under THP 'madvise' does the allocator's request decide ({THP_MODE}: {thp_mode()})")
    env = {**os.environ, "GLIBC_TUNABLES": "glibc.malloc.hugetlb=0"}
    env.pop("THP_MEM_ALLOC_ENABLE", None)
    tunables, kb, _ = huge_kb(ranks(2, SCRIPT, env=env))
    assert (tunables, kb) == ({"glibc.malloc.hugetlb=0"}, [0, 0])


def test_other_tunables_are_kept():
    assert launch.with_huge_pages(None) == "glibc.malloc.hugetlb=1"
    assert launch.with_huge_pages("glibc.malloc.arena_max=2") == "glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1"
    assert launch.with_huge_pages("glibc.malloc.hugetlb=0") == "glibc.malloc.hugetlb=0"


@pytest.mark.horovod
def test_horovodrun_found_beside_the_interpreter(monkeypatch):
    # `.venv/bin/python -m benchmarks.run` with the venv not activated: its horovodrun is not on PATH.
    beside = os.path.join(os.path.dirname(os.path.abspath(sys.executable)), "horovodrun")
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    assert launch.command(2, ["x"], "horovodrun")[0] == beside
