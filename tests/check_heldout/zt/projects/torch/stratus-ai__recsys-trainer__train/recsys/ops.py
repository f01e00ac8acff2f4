import functools
import logging
import time

log = logging.getLogger("recsys")


def timed(name):
    def deco(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                log.debug("%s took %.2fs", name, time.perf_counter() - start)
        return wrapper
    return deco


def retry(times=3, delay=2.0, exceptions=(OSError,)):
    def deco(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            for attempt in range(1, times + 1):
                try:
                    return fn(*args, **kwargs)
                except exceptions as exc:
                    if attempt == times:
                        raise
                    log.warning("%s failed (%s), retry %d/%d", fn.__name__, exc, attempt, times)
                    time.sleep(delay)
        return wrapper
    return deco
