"""Configuration fingerprints: ranks that disagree about the job are stopped at start with a clear error.

Ranks that build different models, compute different steps per epoch or run different hvdkit/framework
versions do not fail in Horovod: they wait in a collective that the others never join (or join with
other shapes), which looks like a hang. `check_consistent()` in hvdkit.torch / hvdkit.tensorflow
allgathers one small dict per rank and every rank compares them here, so all ranks raise the same
one-line ConsistencyError instead. Framework-free.
"""
import platform

import hvdkit
from hvdkit.common.errors import HvdkitError


class ConsistencyError(HvdkitError):
    """Ranks disagree about the job; raised on every rank with the same message."""
    collective = True  # every rank raises it: rank 0 alone prints it


def base(framework=None, framework_version=None):
    """What every rank must share whatever the program: versions of hvdkit, Python and the framework."""
    fp = {"hvdkit": hvdkit.__version__, "python": platform.python_version()}
    if framework:
        fp[framework] = framework_version
    return fp


def shapes(named_shapes):
    """[(name, shape), ...] -> one short string: parameter count plus every name and shape, in order."""
    parts = [f"{name}:{'x'.join(map(str, shape)) or 'scalar'}" for name, shape in named_shapes]
    return f"{len(parts)} tensors [" + ", ".join(parts) + "]"


def _short(value, limit=80):
    text = str(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def compare(fingerprints):
    """Raise ConsistencyError naming each item on which the ranks' fingerprints (index = rank) differ."""
    names = []
    for fp in fingerprints:
        names += [k for k in fp if k not in names]
    problems = []
    for name in names:
        values = [fp.get(name, "(not given)") for fp in fingerprints]
        if any(v != values[0] for v in values):
            groups = {}
            for rank, value in enumerate(values):
                groups.setdefault(str(value), []).append(rank)
            problems.append(f"{name}: " + "; ".join(f"rank{'s' if len(r) > 1 else ''} {_ranks(r)} {_short(v)}"
                                                    for v, r in groups.items()))
    if problems:
        raise ConsistencyError(f"the {len(fingerprints)} ranks disagree -- " + " | ".join(problems) +
                               ". Give every rank the same model, data and installation (same venv, same "
                               "arguments; steps per epoch must not depend on the rank)")


def _ranks(ranks):
    if len(ranks) > 4 and ranks[-1] - ranks[0] == len(ranks) - 1:  # contiguous: 0..63, not 64 numbers
        return f"{ranks[0]}..{ranks[-1]}"
    if len(ranks) > 8:
        return ",".join(map(str, ranks[:8])) + f",... ({len(ranks)})"
    return ",".join(map(str, ranks))
