"""Launching tests/ranks/steps_*.py for one framework and one check."""
import json
import os

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = {"torch": "steps_torch.py", "tensorflow": "steps_tf.py"}
FRAMEWORKS = [pytest.param("torch", marks=[pytest.mark.torch, pytest.mark.horovod]),
              pytest.param("tensorflow", marks=[pytest.mark.tensorflow, pytest.mark.horovod])]


def run_check(ranks, framework, n, check, *args):
    return ranks(n, os.path.join(HERE, "ranks", SCRIPTS[framework]), [check, *args]).check()


def json_rows(result, prefix):
    """`PREFIX <rank> {json}` or `PREFIX {json}` lines -> list of dicts."""
    return [json.loads(line[line.index("{"):]) for line in result.lines(prefix)]
