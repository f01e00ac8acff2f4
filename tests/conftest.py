"""Shared test helpers: real launches of N ranks, and markers that skip only when a framework is absent."""
import importlib.util
import os
import re
import subprocess
import sys
import textwrap

import pytest

from hvdkit.scale import launch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.dirname(sys.executable)
# Launchers (horovodrun) and console scripts live beside this interpreter, activated or not.
os.environ["PATH"] = BIN + os.pathsep + os.environ.get("PATH", "")
# A bug in one of `hvdkit check`'s rules raises here instead of degrading that step to "cannot tell"
# (hvdkit/check/static.py, _guarded): no test passes because an error was turned into a verdict.
os.environ["HVDKIT_CHECK_STRICT"] = "1"


def _have(module):
    return importlib.util.find_spec(module) is not None


def pytest_collection_modifyitems(config, items):
    for item in items:
        for name, module in (("torch", "torch"), ("tensorflow", "tensorflow"), ("horovod", "horovod")):
            if item.get_closest_marker(name) and not _have(module):
                item.add_marker(pytest.mark.skip(reason=f"{module} is not installed in this interpreter"))


# `make test` runs two pytest-xdist workers. Each file runs whole on one worker, so its module fixtures (a
# launch several tests read) run once; the files that read the session's shared launches (shared_checks)
# run on one worker together, or each of those launches would run on both.
def _reads_shared_launches(name):
    with open(os.path.join(ROOT, "tests", name)) as f:
        return re.search(r"def test_\w*\([^)]*\bshared_checks\b", f.read()) is not None


SHARED_LAUNCH_FILES = {f"tests/{name}" for name in os.listdir(os.path.join(ROOT, "tests"))
                       if name.startswith("test_") and name.endswith(".py") and _reads_shared_launches(name)}


@pytest.hookimpl(optionalhook=True)  # a plain `pytest` without xdist installed must not reject it
def pytest_xdist_make_scheduler(config, log):
    from xdist.scheduler import LoadFileScheduling

    class ByFile(LoadFileScheduling):
        def _split_scope(self, nodeid):
            path = nodeid.split("::", 1)[0]
            return "shared_checks" if path in SHARED_LAUNCH_FILES else path
    return ByFile(config, log)


# mpirun --tag-output writes each chunk a rank wrote as "[job,rank]<stdout>:chunk"; horovodrun writes
# "[rank]<stdout>:line". A print() can arrive as several chunks (unbuffered output), so each rank's
# stream is put back together before it is split into lines.
_TAG = re.compile(r"\[(?:\d+,)?(\d+)\]<stdout>:")


def rank_streams(stdout):
    """{rank: that rank's stdout} from tagged launcher output; {None: stdout} when untagged."""
    marks = list(_TAG.finditer(stdout))
    if not marks:
        return {None: stdout}
    streams = {}
    for mark, nxt in zip(marks, marks[1:] + [None]):
        chunk = stdout[mark.end():nxt.start() if nxt else len(stdout)]
        streams[int(mark.group(1))] = streams.get(int(mark.group(1)), "") + chunk
    return streams


class Result:
    def __init__(self, proc):
        self.returncode, self.stdout, self.stderr = proc.returncode, proc.stdout, proc.stderr

    def lines(self, prefix):
        """Payloads of output lines starting with `prefix`, from every rank."""
        out = []
        for _, text in sorted(rank_streams(self.stdout).items(), key=lambda kv: kv[0] or 0):
            out += [line[len(prefix):].strip() for line in text.splitlines() if line.startswith(prefix)]
        return out

    def check(self):
        assert self.returncode == 0, \
            f"exit {self.returncode}\n--- stdout\n{self.stdout[-4000:]}\n--- stderr\n{self.stderr[-4000:]}"
        return self


def run_ranks(n, script, args=(), launcher="mpirun", timeout=240, env=None, threads=1, cwd=None, extra=()):
    """Launch `script` (a path, or Python source text) on n ranks; return a Result (not yet checked)."""
    if "\n" in script:
        path = os.path.join(cwd or os.getcwd(), "_rank_script.py")
        with open(path, "w") as f:
            f.write(textwrap.dedent(script))
        script = path
    child_env = launch.child_env(n, env, threads=threads)
    child_env["PATH"] = BIN + os.pathsep + child_env.get("PATH", "")
    child_env["PYTHONPATH"] = ROOT + os.pathsep + child_env.get("PYTHONPATH", "")
    if launcher == "horovodrun":
        extra = ("--gloo", *extra)
    elif launcher in ("mpirun", "mpiexec"):
        extra = ("--tag-output", *extra)  # line-atomic output: ranks' lines never interleave mid-line
    argv = launch.command(n, [sys.executable, script, *map(str, args)], launcher, extra=extra)
    proc = subprocess.run(argv, env=child_env, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    return Result(proc)


def hvdkit_cli(*args, cwd, env=None, timeout=600):
    """`hvdkit ARGS...` as a user runs it from `cwd` (this tree's hvdkit; the venv's launchers on PATH)."""
    env = dict(os.environ if env is None else env)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    env.setdefault("PATH", BIN + os.pathsep + os.environ.get("PATH", ""))
    return subprocess.run([sys.executable, "-m", "hvdkit", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=timeout)


@pytest.fixture
def ranks(tmp_path):
    """ranks(n, script, ...) -> Result, running in a fresh temporary directory."""
    def _run(n, script, *args, **kwargs):
        kwargs.setdefault("cwd", str(tmp_path))
        return run_ranks(n, script, *args, **kwargs)
    return _run


@pytest.fixture(scope="session")
def shared_checks(tmp_path_factory):
    """shared_checks(framework, n) -> the checked Result of tests/steps.py's shared launch at n ranks,
    launched once per session and read by every test of the checks it runs."""
    from steps import shared_argv
    done = {}

    def _get(framework, n):
        if (framework, n) not in done:
            cwd = tmp_path_factory.mktemp(f"steps-{framework}-{n}")
            done[framework, n] = run_ranks(n, *shared_argv(framework, n), cwd=str(cwd))
        return done[framework, n].check()
    return _get
