"""Launching tests/ranks/steps_*.py for one framework and one check."""
import json
import os

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = {"torch": "steps_torch.py", "tensorflow": "steps_tf.py"}
FRAMEWORKS = [pytest.param("torch", marks=[pytest.mark.torch, pytest.mark.horovod]),
              pytest.param("tensorflow", marks=[pytest.mark.tensorflow, pytest.mark.horovod])]


def json_rows(result, prefix):
    """`PREFIX <rank> {json}` or `PREFIX {json}` lines -> list of dicts."""
    return [json.loads(line[line.index("{"):]) for line in result.lines(prefix)]


# The checks of steps 3-6 and 8 (and Keras's model.fit, Horovod's own allreduce, data-parallel against sequential
# training) need nothing from each other: one launch per framework and rank count runs them all in turn, and each
# test reads its own lines of it (conftest.py's shared_checks). A launch costs 10-35 s of imports on the 2-core
# test machine, the checks themselves a few seconds. The LR scaling rule depends on the rank count, so each rule
# is checked at one of the two sizes; so is each per-rank batch of the equivalence check.
SHARED = {2: ("shard", "metrics", "warmup", "order", "broadcast", "allreduce", "equiv"),
          4: ("shard", "metrics", "warmup", "broadcast", "allreduce", "equiv")}
RULES = {2: "sqrt", 4: "linear"}
EQUIV_BATCH = {2: 4, 4: 3}
WARMUP = 4  # warmup steps, of the warmup check and the order check alike
SHARD_N = 23  # samples of the shard check: not a multiple of ranks * batch, where shards go wrong


def shared_argv(framework, n):
    """(script, arguments) of the shared launch at n ranks."""
    checks = SHARED[n] + (("fit",) if framework == "tensorflow" and n == 2 else ())
    return os.path.join(HERE, "ranks", SCRIPTS[framework]), [*checks, "--rule", RULES[n], "--warmup", WARMUP,
                                                      "--n", SHARD_N, "--equiv-batch", EQUIV_BATCH[n]]
