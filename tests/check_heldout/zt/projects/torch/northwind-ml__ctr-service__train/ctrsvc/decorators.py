import functools
import time


def retry(attempts=3, backoff=1.5):
    def wrap(fn):
        @functools.wraps(fn)
        def inner(*a, **kw):
            wait = 1.0
            for i in range(attempts):
                try:
                    return fn(*a, **kw)
                except (OSError, RuntimeError):
                    if i == attempts - 1:
                        raise
                    time.sleep(wait)
                    wait *= backoff
        return inner
    return wrap


def timed(fn):
    @functools.wraps(fn)
    def inner(*a, **kw):
        t0 = time.time()
        out = fn(*a, **kw)
        inner.last_seconds = time.time() - t0
        return out
    inner.last_seconds = 0.0
    return inner
