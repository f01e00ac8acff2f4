"""init() makes a stalled job end (HOROVOD_STALL_SHUTDOWN_TIME_SECONDS, Horovod's default 0 = never) unless
the user chose a time; tests/test_faults.py shows Horovod ending a real stall at the time set.

The expected default is the literal docs/reliability.md promises (600 s), not hvdkit's constant: a
constant changed to "0" (never abort) must fail here."""
import pytest

pytestmark = [pytest.mark.horovod, pytest.mark.torch, pytest.mark.slow]  # slow: launches ranks

SCRIPT = """
import os
import hvdkit.torch as hk
hk.init(threads=1)
print("SHUTDOWN", os.environ.get("HOROVOD_STALL_SHUTDOWN_TIME_SECONDS"), flush=True)
"""


@pytest.mark.parametrize("user_value", [None, "0", "45"])
def test_init_sets_a_stall_shutdown_unless_the_user_chose_one(ranks, user_value, monkeypatch):
    monkeypatch.delenv("HOROVOD_STALL_SHUTDOWN_TIME_SECONDS", raising=False)
    if user_value is not None:
        monkeypatch.setenv("HOROVOD_STALL_SHUTDOWN_TIME_SECONDS", user_value)
    result = ranks(1, SCRIPT).check()
    assert result.lines("SHUTDOWN") == [user_value or "600"]
