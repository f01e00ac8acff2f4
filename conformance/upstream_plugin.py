"""pytest plugin loaded into each rank by conformance.upstream (`-p conformance.upstream_plugin`).

Each rank appends one JSON line per event to $HVDKIT_UPSTREAM_OUT/rank-R.jsonl, flushed at once, so a
rank that hangs or dies still leaves every test it finished and the one it was in:
    {"event": "collected", "tests": [nodeid, ...]}
    {"event": "start", "test": nodeid}
    {"event": "report", "test": nodeid, "when": "collect|setup|call|teardown", "subtest": str|null,
     "outcome": "passed|failed|skipped", "skip_reason": str|null, "failure": {...}|null}
A failure is {"type", "message", "frame", "test_frame", "horovod_frame"}: the innermost frame of the
traceback, the innermost one in the upstream test directory, and the innermost one inside Horovod, each
"path:line" (paths relative to the test directory or to site-packages), so a reader can tell a failure in
Horovod's code from one in the test's own code.
"""
import importlib.util
import json
import os
import re

import pytest

from hvdkit.common.ranks import rank_and_size

_ENV = "HVDKIT_UPSTREAM_OUT"
_MESSAGE_CHARS = 600


class _Writer:
    def __init__(self, directory, test_dir):
        os.makedirs(directory, exist_ok=True)
        self._file = open(os.path.join(directory, f"rank-{rank_and_size()[0]}.jsonl"), "a", encoding="utf-8")
        self._test_dir = os.path.realpath(test_dir)
        # The installed package's folder (a user's clone of Horovod's tests may also be named horovod/).
        spec = importlib.util.find_spec("horovod")
        self._horovod = [os.path.realpath(d) + os.sep for d in (spec.submodule_search_locations or [])] if spec else []

    def close(self):
        self._file.close()

    def write(self, **record):
        self._file.write(json.dumps(record) + "\n")
        self._file.flush()

    def _where(self, path, lineno):
        path = os.path.realpath(path)
        if path.startswith(self._test_dir + os.sep):
            path = os.path.relpath(path, self._test_dir)
        elif "site-packages" + os.sep in path:
            path = path.split("site-packages" + os.sep, 1)[1]
        return f"{path}:{lineno}"

    def _in_horovod(self, path):
        return any(os.path.realpath(path).startswith(d) for d in self._horovod)

    def failure(self, excinfo):
        """Type, message and three telling frames of an exception (pytest's ExceptionInfo)."""
        exc = excinfo.value
        message = " ".join(str(exc).split())
        if len(message) > _MESSAGE_CHARS:
            message = message[:_MESSAGE_CHARS] + "..."
        frames = [(str(e.path), e.lineno + 1) for e in excinfo.traceback]
        test = [f for f in frames if os.path.realpath(f[0]).startswith(self._test_dir + os.sep)]
        horovod = [f for f in frames if self._in_horovod(f[0])]
        name = type(exc).__qualname__
        module = type(exc).__module__
        return {"type": name if module in ("builtins", "__main__") else f"{module}.{name}",
                "message": message,
                "frame": self._where(*frames[-1]) if frames else None,
                "test_frame": self._where(*test[-1]) if test else None,
                "horovod_frame": self._where(*horovod[-1]) if horovod else None}


    def collect_failure(self, longrepr):
        """The same fields from a collection error's report (pytest keeps no exception object for it)."""
        crash = getattr(longrepr, "reprcrash", None)
        if crash is not None:
            text = crash.message
            entries = getattr(getattr(longrepr, "reprtraceback", None), "reprentries", [])
            frames = [(e.reprfileloc.path, e.reprfileloc.lineno) for e in entries if getattr(e, "reprfileloc", None)]
        else:  # an import error: pytest's text, frames as "path:line: in name", the error as "E   Type: message"
            raw = str(longrepr)
            text = ([ln[1:].strip() for ln in raw.splitlines() if ln.startswith("E ")] or [raw.strip()])[-1]
            frames = [(m.group(1), int(m.group(2))) for m in re.finditer(r"^(\S+?\.py):(\d+): in ", raw, re.M)]
        frames = [(os.path.join(self._test_dir, p) if not os.path.isabs(p) else p, n) for p, n in frames]
        kind, _, message = text.partition(": ")
        test = [f for f in frames if os.path.realpath(f[0]).startswith(self._test_dir + os.sep)]
        horovod = [f for f in frames if self._in_horovod(f[0])]
        return {"type": kind, "message": message[:_MESSAGE_CHARS],
                "frame": self._where(*frames[-1]) if frames else None,
                "test_frame": self._where(*test[-1]) if test else None,
                "horovod_frame": self._where(*horovod[-1]) if horovod else None}


_writer = None


def pytest_configure(config):
    global _writer
    if os.environ.get(_ENV):
        _writer = _Writer(os.environ[_ENV], str(config.invocation_params.dir))


def pytest_collection_finish(session):
    if _writer:
        _writer.write(event="collected", tests=[item.nodeid for item in session.items])


def pytest_collectreport(report):
    if _writer and report.failed:
        _writer.write(event="report", test=report.nodeid, when="collect", subtest=None, outcome="failed",
                      skip_reason=None, failure=_writer.collect_failure(report.longrepr))


def pytest_runtest_logstart(nodeid, location):
    if _writer:
        _writer.write(event="start", test=nodeid)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    report = (yield).get_result()
    # Subtests' reports are made through this hook too, then copied with their attributes kept.
    if _writer and call.excinfo is not None and report.failed:
        report.hvdkit_failure = _writer.failure(call.excinfo)


def pytest_runtest_logreport(report):
    if not _writer:
        return
    context = getattr(report, "context", None)
    subtest = report._sub_test_description() if context is not None else None
    skip_reason = None
    if report.skipped and isinstance(report.longrepr, tuple):
        skip_reason = str(report.longrepr[2]).removeprefix("Skipped: ")
    failure = getattr(report, "hvdkit_failure", None)
    if report.failed and failure is None:  # a failure pytest made itself (e.g. a worker crash message)
        failure = {"type": "pytest", "message": str(report.longrepr)[-_MESSAGE_CHARS:], "frame": None,
                   "test_frame": None, "horovod_frame": None}
    _writer.write(event="report", test=report.nodeid, when=report.when, subtest=subtest,
                  outcome=report.outcome, skip_reason=skip_reason, failure=failure if report.failed else None)


def pytest_unconfigure(config):
    if _writer:
        _writer.close()
