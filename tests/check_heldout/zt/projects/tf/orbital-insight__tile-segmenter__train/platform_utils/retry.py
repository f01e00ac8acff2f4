import contextlib
import functools
import random
import time


def retry(tries=4, base_delay=0.5, on=(IOError,)):
    def outer(fn):
        @functools.wraps(fn)
        def inner(*args, **kwargs):
            for n in range(tries):
                try:
                    return fn(*args, **kwargs)
                except on:
                    if n == tries - 1:
                        raise
                    time.sleep(base_delay * (2 ** n) + random.random() * 0.1)
        return inner
    return outer


@contextlib.contextmanager
def stopwatch(sink, key):
    t0 = time.perf_counter()
    yield
    sink[key] = time.perf_counter() - t0
