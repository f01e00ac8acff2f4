"""Fuzzing the IDX/npz readers and the timeline parser with hypothesis and atheris, for a bounded time (issue 8).

    python tests/fuzz_readers.py --seconds 40 [--engines hypothesis,atheris]    # make fuzz

hypothesis: mutations of valid files (truncation, flipped bytes, inserted bytes, gzip'd or cut gzip) plus
arbitrary bytes. atheris (libFuzzer, coverage-guided over the Python bytecode; `pip install atheris`, a
binary wheel): starts from the same valid files, one child process per target, ended by --seconds.
A reader may return data or raise its one-line error (DataError, TraceError); anything else is a crash
and is reported with the input that caused it. Writes tests/fuzz_results.json (cases tried, crashes).
A tool beside the tests, not a benchmark: tests/test_fuzz_readers.py runs it for a second per target
and engine; `make fuzz` runs it for 40 s each and rewrites the record.
"""
import argparse
import gzip
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import traceback

import numpy as np
from hypothesis import HealthCheck, given, settings, strategies as st

from hvdkit.data.idx import DataError, parse_idx, read_npz, write_idx
from hvdkit.timeline.parse import TraceError
from hvdkit.timeline.slicing import EmptyWindow, slice_trace
from hvdkit.timeline.summary import summarize

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "tests", "fuzz_results.json")


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
    """Cases tried, and the crashes grouped by where and how they happened (one input kept per kind)."""

    def __init__(self):
        self.tried = self.clean_errors = self.accepted = self.crash_count = 0
        self.kinds = {}

    @property
    def crashes(self):
        return sorted(self.kinds.values(), key=lambda c: -c["count"])

    def crash(self, data, kind, error):
        self.crash_count += 1
        entry = self.kinds.setdefault(kind, {"kind": kind, "count": 0, "input": data[:4096].hex(), "error": error})
        entry["count"] += 1

    def run(self, fn, data, allowed):
        self.tried += 1
        try:
            fn(data)
            self.accepted += 1
        except allowed as exc:
            if "\n" in str(exc):
                self.crash(data, f"multi-line {type(exc).__name__}", str(exc)[:300])
            self.clean_errors += 1
        except Exception as exc:  # anything else is what the fuzzer is looking for
            frame = traceback.extract_tb(exc.__traceback__)[-1]
            kind = f"{type(exc).__name__} at {os.path.basename(frame.filename)}:{frame.lineno} ({frame.name})"
            self.crash(data, kind, traceback.format_exc(limit=-4)[-900:])


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
    """Hypothesis in rounds of BATCH fresh random cases until the time is up (an exception raised to stop
    it early would be replayed by hypothesis as a failure of its own)."""
    counter = Counter()
    deadline = time.monotonic() + seconds

    @settings(max_examples=BATCH, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(strategy)
    def one(data):
        if time.monotonic() <= deadline:
            counter.run(fn, data, allowed)

    while time.monotonic() < deadline:
        one()
    return summary(name, "hypothesis", seconds, counter)


BATCH = 200


def targets():
    """name -> (valid input to mutate, reader of bytes, the reader's one-line error)."""
    return {
        "parse_idx": (valid_idx(), lambda d: parse_idx(d, "fuzz"), DataError),
        "read_npz": (valid_npz(), on_file(".npz", read_npz), DataError),
        "timeline summarize": (VALID_TRACE, on_file(".json", summarize), TraceError),
        "timeline slice": (VALID_TRACE, on_file(".json", _slice), (TraceError, EmptyWindow)),
    }


def _slice(path):
    """`hvdkit timeline slice` of the window after the first 15 us (clips the fuzzed records' intervals)."""
    with tempfile.TemporaryDirectory() as d:
        return slice_trace(path, os.path.join(d, "out.json"), 15, None)


def summary(name, engine, seconds, counter, **extra):
    return {"target": name, "engine": engine, "seconds": seconds, "cases": counter.tried,
            "clean_errors": counter.clean_errors, "accepted": counter.accepted, "crash_count": counter.crash_count,
            "crash_kinds": len(counter.kinds), "crashes": counter.crashes[:20], **extra}


# Code that coverage feedback is collected from: the readers and the library code they parse with.
# (atheris.instrument_all() patches all ~8000 loaded functions: minutes of start-up on this machine.)
INSTRUMENTED = ("/hvdkit/data/idx.py", "/hvdkit/timeline/", "/gzip.py", "/zipfile", "/json/",
                "/numpy/lib/_npyio_impl.py", "/numpy/lib/_format_impl.py")


def instrument(atheris):
    import gc
    import types
    for obj in gc.get_objects():
        if isinstance(obj, types.FunctionType) and any(p in obj.__code__.co_filename for p in INSTRUMENTED):
            atheris.instrument_func(obj)


def atheris_child(name, seconds, out):
    """Run in a child process: libFuzzer ends it, and it ends on the deadline with os._exit."""
    import atheris

    seed, fn, allowed = targets()[name]
    counter = Counter()
    corpus = tempfile.mkdtemp(prefix="fuzz-corpus-")
    with open(os.path.join(corpus, "valid"), "wb") as f:
        f.write(seed)
    deadline = None

    def write():
        with open(out, "w") as f:
            json.dump(summary(name, "atheris", seconds, counter), f)

    def one(data):
        nonlocal deadline
        if deadline is None:
            # The time is for fuzzing: instrumenting and libFuzzer's start-up can take longer than a short run.
            deadline = time.monotonic() + seconds
        if time.monotonic() > deadline:
            write()
            shutil.rmtree(corpus, ignore_errors=True)
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(0)
        counter.run(fn, data, allowed)
        if counter.tried % 1000 == 0:
            write()  # what survives if libFuzzer ends the process (timeout, memory)

    instrument(atheris)
    # -timeout: one input running this long is a hang, which libFuzzer reports and ends the run.
    atheris.Setup([sys.argv[0], "-timeout=20", "-rss_limit_mb=4096", f"-max_total_time={int(seconds) + 60}",
                   "-print_final_stats=1", corpus], one)
    atheris.Fuzz()


def run_atheris(name, seconds):
    try:
        import atheris  # noqa: F401 -- only to say so here when it is missing
    except ImportError as exc:
        return {"target": name, "engine": "atheris", "skipped": f"atheris not importable ({exc}): pip install atheris"}
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "result.json")
        argv = [sys.executable, os.path.abspath(__file__), "--atheris-child", name, "--seconds", str(seconds),
                "--out", out]
        proc = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=seconds + 300)
        result = json.load(open(out)) if os.path.exists(out) else summary(name, "atheris", seconds, Counter())
    coverage = re.findall(r"cov: (\d+) ft: (\d+)", proc.stderr)
    if coverage:
        result["libfuzzer_coverage"] = {"edges": int(coverage[-1][0]), "features": int(coverage[-1][1])}
    if proc.returncode != 0:
        # libFuzzer itself stopped the run: a hang (-timeout), memory, or a crash outside the reader.
        result["crash_count"] += 1
        result["crash_kinds"] += 1
        result["crashes"].append({"kind": f"libFuzzer stopped the run (exit {proc.returncode})", "count": 1,
                                  "error": proc.stderr[-1500:]})
    result["command"] = " ".join(["python", "tests/fuzz_readers.py"] + argv[2:-2])
    return result


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--seconds", type=float, default=60.0, help="per target and engine")
    ap.add_argument("--engines", default="hypothesis,atheris", help="comma-separated: hypothesis, atheris")
    ap.add_argument("--out", default=RESULTS)
    ap.add_argument("--atheris-child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.atheris_child:
        return atheris_child(args.atheris_child, args.seconds, args.out)
    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    unknown = set(engines) - {"hypothesis", "atheris"}
    if unknown:
        ap.error(f"unknown engine {', '.join(sorted(unknown))}: use hypothesis and/or atheris")
    results = []
    for engine in engines:
        for name, (seed, fn, allowed) in targets().items():
            if engine == "hypothesis":
                res = fuzz(name, mutated(seed), fn, allowed, args.seconds)
            else:
                res = run_atheris(name, args.seconds)
            if "skipped" in res:
                print(f"{engine:10s} {name:20s} skipped: {res['skipped']}", flush=True)
            else:
                print(f"{engine:10s} {name:20s} {res['cases']:7d} cases  {res['clean_errors']:7d} clean errors  "
                      f"{res['accepted']:6d} accepted  {res['crash_count']} crashes ({res['crash_kinds']} kinds)",
                      flush=True)
            results.append(res)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump({"created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                   "command": " ".join(["python tests/fuzz_readers.py"] + sys.argv[1:]),
                   "loadavg": open("/proc/loadavg").read().split()[:3], "results": results}, f, indent=1)
    return 1 if any(r.get("crash_count") for r in results) else 0


if __name__ == "__main__":
    raise SystemExit(main())
