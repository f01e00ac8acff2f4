"""Fuzzing the IDX/npz readers and the timeline parser with hypothesis, for a bounded time (issue 8).

    python -m benchmarks.fuzz_readers --seconds 60

Inputs are mutations of valid files (truncation, flipped bytes, spliced headers) plus arbitrary bytes.
A reader may return data or raise its one-line error (DataError, TraceError); anything else is a crash
and is reported with the input that caused it. Writes benchmarks/results/fuzz.json (cases tried, crashes).
Not part of the test suite: its run time is chosen by --seconds.
"""
import argparse
import gzip
import io
import json
import os
import tempfile
import time
import traceback

import numpy as np
from hypothesis import HealthCheck, given, settings, strategies as st

from hvdkit.common.idx import DataError, parse_idx, read_npz, write_idx
from hvdkit.timeline.parse import TraceError
from hvdkit.timeline.summary import summarize

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "benchmarks", "results", "fuzz.json")


def valid_idx():
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "x")
        write_idx(path, np.arange(2 * 3 * 4, dtype=np.uint8).reshape(2, 3, 4))
        with open(path, "rb") as f:
            return f.read()


def valid_npz():
    buf = io.BytesIO()
    np.savez(buf, x_train=np.zeros((2, 28, 28), np.uint8), y_train=np.zeros(2, np.uint8),
             x_test=np.zeros((1, 28, 28), np.uint8), y_test=np.zeros(1, np.uint8))
    return buf.getvalue()


VALID_TRACE = ('[\n{"name": "allreduce.w", "ph": "M", "pid": 1, "args": {"name": "allreduce.w"}},'
               '{"ph": "B", "name": "NEGOTIATE_ALLREDUCE", "ts": 10, "pid": 1},'
               '{"ph": "E", "ts": 20, "pid": 1},{"ph": "B", "name": "ALLREDUCE", "ts": 20, "pid": 1, '
               '"args": {"dtype": "float32", "shape": "[4]"}},{"ph": "E", "ts": 40, "pid": 1}]').encode()


def mutated(seed):
    """Strategy: a valid file cut, with bytes flipped/inserted, or gzip'd; or arbitrary bytes."""
    def mutate(args):
        cut, flips, insert, gz = args
        data = bytearray(seed[:cut] if cut is not None else seed)
        for pos, value in flips:
            if data:
                data[pos % len(data)] = value
        if insert:
            data[len(data) // 2:len(data) // 2] = insert
        data = bytes(data)
        return gzip.compress(data)[:max(1, len(data) // 2)] if gz == 1 else gzip.compress(data) if gz == 2 else data
    return st.one_of(
        st.tuples(st.one_of(st.none(), st.integers(0, len(seed))), st.lists(st.tuples(st.integers(0, 1 << 16),
                  st.integers(0, 255)), max_size=4), st.binary(max_size=16), st.integers(0, 2)).map(mutate),
        st.binary(max_size=512))


class Counter:
    def __init__(self):
        self.tried = self.clean_errors = self.accepted = 0
        self.crashes = []

    def run(self, fn, data, allowed):
        self.tried += 1
        try:
            fn(data)
            self.accepted += 1
        except allowed as exc:
            if "\n" in str(exc):
                self.crashes.append({"input": data[:200].hex(), "error": "multi-line message: " + str(exc)[:300]})
            self.clean_errors += 1
        except Exception:  # anything else is what the fuzzer is looking for
            self.crashes.append({"input": data[:200].hex(), "error": traceback.format_exc(limit=3)[-600:]})


def on_file(suffix, reader):
    def read(data):
        with tempfile.NamedTemporaryFile(suffix=suffix, delete=False) as f:
            f.write(data)
        try:
            return reader(f.name)
        finally:
            os.unlink(f.name)
    return read


def fuzz(name, strategy, fn, allowed, seconds):
    counter = Counter()
    deadline = time.monotonic() + seconds

    @settings(max_examples=10 ** 9, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(strategy)
    def one(data):
        if time.monotonic() > deadline:
            raise TimeUp
        counter.run(fn, data, allowed)

    try:
        one()
    except TimeUp:
        pass
    return {"target": name, "seconds": seconds, "cases": counter.tried, "clean_errors": counter.clean_errors,
            "accepted": counter.accepted, "crashes": counter.crashes[:10], "crash_count": len(counter.crashes)}


class TimeUp(Exception):
    pass


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--seconds", type=float, default=60.0, help="per target")
    ap.add_argument("--out", default=RESULTS)
    args = ap.parse_args()
    targets = [
        ("parse_idx", mutated(valid_idx()), lambda d: parse_idx(d, "fuzz"), DataError),
        ("read_npz", mutated(valid_npz()), on_file(".npz", read_npz), DataError),
        ("timeline summarize", mutated(VALID_TRACE), on_file(".json", summarize), TraceError),
    ]
    results = []
    for name, strategy, fn, allowed in targets:
        res = fuzz(name, strategy, fn, allowed, args.seconds)
        print(f"{name:20s} {res['cases']:7d} cases  {res['clean_errors']:7d} clean errors  "
              f"{res['accepted']:6d} accepted  {res['crash_count']} crashes", flush=True)
        results.append(res)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump({"created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "results": results}, f, indent=1)
    return 1 if any(r["crash_count"] for r in results) else 0


if __name__ == "__main__":
    raise SystemExit(main())
