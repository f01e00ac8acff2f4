"""On ranks without a GPU, init() sets Horovod's fusion threshold to 16 MiB (Horovod's default: 128 MiB)
unless the user chose one, before Horovod starts; docs/performance.md has the measurement behind it.

The expected value is the literal docs/performance.md states, not hvdkit's constant."""
import pytest

pytestmark = [pytest.mark.horovod]

SCRIPT = """
import os
import hvdkit.{framework} as hk
hk.init(threads=1)
print("FUSION", os.environ.get("HOROVOD_FUSION_THRESHOLD"), flush=True)
"""


@pytest.mark.parametrize("framework,user_value", [
    pytest.param("torch", None, marks=pytest.mark.torch),
    pytest.param("torch", "0", marks=pytest.mark.torch),
    pytest.param("tensorflow", None, marks=pytest.mark.tensorflow),
    pytest.param("tensorflow", "67108864", marks=pytest.mark.tensorflow),
])
def test_init_sets_a_cpu_fusion_threshold_unless_the_user_chose_one(ranks, framework, user_value, monkeypatch):
    monkeypatch.delenv("HOROVOD_FUSION_THRESHOLD", raising=False)
    if user_value is not None:
        monkeypatch.setenv("HOROVOD_FUSION_THRESHOLD", user_value)
    result = ranks(1, SCRIPT.format(framework=framework)).check()
    assert result.lines("FUSION") == [user_value or str(16 * 1024 * 1024)]
