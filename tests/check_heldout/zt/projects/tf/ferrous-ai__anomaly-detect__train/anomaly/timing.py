import functools
import time

STATS = {}


def timed(key):
    def deco(fn):
        @functools.wraps(fn)
        def run(*a, **kw):
            t = time.perf_counter()
            try:
                return fn(*a, **kw)
            finally:
                STATS.setdefault(key, []).append(time.perf_counter() - t)
        return run
    return deco


def summary():
    return {k: sum(v) / len(v) for k, v in STATS.items() if v}
