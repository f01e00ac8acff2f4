"""The four conversions a student reads stay the eight steps (issue 41): the code lines each Horovod twin adds
to its sequential script, counted as tests/conversion.py counts them, are within the issue's limits, and every
one of them carries its `Horovod:` step comment. The tools' flags live on the tools' command lines."""
import os

import pytest

from conftest import ROOT
from conversion import added, code, problems

PAIRS = [  # (sequential, Horovod twin, most code lines the twin may add)
    ("examples/resnet34/train_resnet34.py", "examples/resnet34/train_hvd.py", 20),
    ("examples/resnet34/train_resnet34_torch.py", "examples/resnet34/train_hvd_torch.py", 20),
    ("homework/tensorflow2_mnist.py", "homework/tensorflow2_mnist_hvd.py", 15),
    ("homework/pytorch_mnist.py", "homework/pytorch_mnist_hvd.py", 15),
]
TOOLING = ("--json", "--timeline", "--global-batch-size", "--threads", "--fp16-allreduce", "--xla",
           "allgather_object", "HVDKIT_", "import horovod")


@pytest.mark.parametrize("sequential,converted,limit", PAIRS, ids=[os.path.basename(p[1]) for p in PAIRS])
def test_conversion_adds_at_most_the_limit_and_only_marked_lines(sequential, converted, limit):
    seq, hvd = os.path.join(ROOT, sequential), os.path.join(ROOT, converted)
    assert not problems(seq, hvd), "\n\n".join(problems(seq, hvd))
    n = added(seq, hvd)
    # The eight steps take at least one line each, steps 1-2 excepted (one init call).
    assert 7 <= n <= limit, f"{converted} adds {n} code lines (limit {limit})"


@pytest.mark.parametrize("converted", [p[1] for p in PAIRS])
def test_no_tooling_in_the_horovod_twins(converted):
    """Record paths, timeline windows, strong scaling and thread counts come from the tools, not the script."""
    text = "\n".join(code(os.path.join(ROOT, converted)))
    assert [word for word in TOOLING if word in text] == []


def test_the_count_is_the_issues():
    """The counter gives the issue's figures on a conversion known by heart: 2 blocks, 3 lines added."""
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        seq, hvd = os.path.join(tmp, "a.py"), os.path.join(tmp, "b.py")
        with open(seq, "w") as f:
            f.write('"""Sequential."""\nimport os\nx = 1\ny = 2\nprint(x, y)\n')
        with open(hvd, "w") as f:
            f.write('"""Converted, with a longer\ndocstring."""\nimport hk  # Horovod: 1\nx = 1\n'
                    'hk.init()  # Horovod: 1\ny = 2  # Horovod: 3\nprint(x, y)\n')
        assert added(seq, hvd) == 3 and problems(seq, hvd) == []
        with open(hvd, "a") as f:
            f.write("z = 3\n")
        assert problems(seq, hvd) == ["+ z = 3"]
