"""Rank-0 output: one line per event, not one per rank."""
import sys


def print0(rank, *args, **kwargs):
    if rank == 0:
        kwargs.setdefault("flush", True)
        print(*args, **kwargs)


def progress0(rank, iterable=None, **kwargs):
    """A tqdm bar on rank 0; the plain iterable elsewhere, so other ranks do not interleave bars."""
    if rank != 0:
        return iterable if iterable is not None else _NullBar()
    from tqdm import tqdm
    kwargs.setdefault("file", sys.stderr)
    kwargs.setdefault("dynamic_ncols", True)
    return tqdm(iterable, **kwargs)


class _NullBar:
    def update(self, n=1):
        pass

    def set_postfix(self, *a, **k):
        pass

    def close(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
