"""`hvdkit check`: is a Horovod conversion right, step by step? Framework-free.

static.py reads the script's syntax tree; bootstrap.py runs it under mpirun and observes it;
dynamic.py launches and merges what the ranks saw; report.py prints the table.
"""
from hvdkit.common.errors import HvdkitError

STEPS = (
    (1, "init", "initialize Horovod"),
    (2, "pin", "one GPU (or a share of the cores) per rank"),
    (3, "shard", "each rank its part of every epoch"),
    (4, "lr", "learning rate scaled by the number of ranks"),
    (5, "optimizer", "gradients averaged over ranks"),
    (6, "broadcast", "all ranks start from rank 0's state"),
    (7, "checkpoint", "checkpoints written by rank 0 only"),
    (8, "metrics", "metrics averaged over ranks"),
)
OK, MISSING, WRONG, UNKNOWN = "ok", "missing", "wrong", "cannot tell"
FLAGGED = (MISSING, WRONG)


class Finding:
    """A verdict on one step: what was seen (evidence, at `line`) and the one-line fix."""

    def __init__(self, verdict, evidence, line=None, fix=None, source="static"):
        self.verdict, self.evidence, self.line, self.fix, self.source = verdict, evidence, line, fix, source

    def as_dict(self):
        return {"verdict": self.verdict, "line": self.line, "evidence": self.evidence, "fix": self.fix,
                "source": self.source}

    def __repr__(self):
        return f"Finding({self.verdict!r}, {self.evidence!r}, line={self.line})"


class CheckInputError(HvdkitError):
    """The script cannot be checked (no such file, syntax error, not a Horovod script): one line."""
