"""Verdicts and findings: the eight steps, what a verdict on one of them says, and bad-input errors."""
from typing import NamedTuple

from hvdkit.common.errors import HvdkitError


class Step(NamedTuple):
    number: int
    key: str
    title: str


STEPS = (
    Step(1, "init", "initialize Horovod"),
    Step(2, "pin", "one GPU (or a share of the cores) per rank"),
    Step(3, "shard", "each rank its part of every epoch"),
    Step(4, "lr", "learning rate scaled by the number of ranks"),
    Step(5, "optimizer", "gradients averaged over ranks"),
    Step(6, "broadcast", "all ranks start from rank 0's state"),
    Step(7, "checkpoint", "checkpoints written by rank 0 only"),
    Step(8, "metrics", "metrics averaged over ranks"),
)
OK, MISSING, WRONG, UNKNOWN = "ok", "missing", "wrong", "cannot tell"
FLAGGED = (MISSING, WRONG)


class Finding:
    """A verdict on one step: what was seen (evidence, at `line` of `file`) and the one-line fix. `file` is
    None for the checked script itself, else the path of the project's module that holds `line`, relative to
    the project's root (the report prints it as `utils.py:45`)."""

    def __init__(self, verdict, evidence, line=None, fix=None, source="static", file=None):
        self.verdict, self.evidence, self.line, self.fix, self.source = verdict, evidence, line, fix, source
        self.file = file

    @property
    def flagged(self):
        return self.verdict in FLAGGED

    def as_dict(self):
        return {"verdict": self.verdict, "line": self.line, "file": self.file, "evidence": self.evidence,
                "fix": self.fix, "source": self.source}

    def __repr__(self):
        return f"Finding({self.verdict!r}, {self.evidence!r}, line={self.line})"


class CheckInputError(HvdkitError):
    """The script cannot be checked (no such file, syntax error, not a Horovod script): one line."""
