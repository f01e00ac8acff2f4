"""Helpers for the crash-finding tests (tests/test_check_crash*.py): write a script written from scratch
into a temporary folder, run the static pass on it, and return what a user reads."""
import textwrap

from hvdkit.check import FLAGGED
from hvdkit.check.static import analyze


def check(tmp_path, source, name="train.py"):
    """(crash dict or None, {step: verdict} of the flagged steps) for `source` written as tmp_path/name."""
    path = tmp_path / name
    path.write_text(textwrap.dedent(source).lstrip())
    findings, _, info = analyze(str(path))
    return info["crash"], {n: f.verdict for n, f in findings.items() if f.verdict in FLAGGED}


def line_of(source, text):
    """The 1-based line of the first line of the dedented source that contains `text`."""
    lines = textwrap.dedent(source).lstrip().splitlines()
    return next(i for i, line in enumerate(lines, 1) if text in line)


class Source(str):
    """A script's text whose replace() must find what it replaces exactly once: an edit that does not apply
    fails the test instead of leaving the script as it was."""

    def replace(self, old, new, count=-1):
        n = self.count(old)
        if n != 1:
            raise AssertionError(f"{old!r} occurs {n} times in the script, not once")
        return Source(str.replace(self, old, new))


def write_project(root, files):
    """Write {relative path: source} under `root` (a pyproject.toml marks it as the project's root)."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text("[project]\nname = \"proj\"\n")
    for rel, source in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source).lstrip())


def check_project(root, files, script="train.py"):
    """(crash dict or None, {step: verdict} of the flagged steps, {step: Finding}) for a project written
    from `files` into `root`, checked from its script."""
    write_project(root, files)
    findings, _, info = analyze(str(root / script))
    return info["crash"], {n: f.verdict for n, f in findings.items() if f.verdict in FLAGGED}, findings
