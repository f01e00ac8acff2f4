"""On ranks without a GPU, init() sets two things before Horovod starts MPI, each unless the user chose it:
Horovod's fusion threshold to 1 MiB (Horovod's default: 128 MiB) and OpenMPI's yield_when_idle to 1 (OpenMPI's
default: busy-polling unless it counts more ranks than cores). It leaves OpenMPI's shared-memory single-copy
mechanism alone (an earlier hvdkit set "none"; the user's choice still reaches MPI). docs/performance.md has
the measurements.

The expected values are the literals docs/performance.md states, not hvdkit's constants, and OpenMPI's
parameters are read back from OpenMPI itself (mpi_show_mca_params prints what MPI_Init used, and from where)."""
import os
import re
import subprocess
import sys

import pytest

from conftest import ROOT, Result

pytestmark = [pytest.mark.horovod, pytest.mark.slow]  # slow: launches ranks

SCRIPT = """
import os
import hvdkit.{framework} as hk
hk.init(threads=1)
print("FUSION", os.environ.get("HOROVOD_FUSION_THRESHOLD"), flush=True)
"""
MCA = ("btl_vader_single_copy_mechanism", "mpi_yield_when_idle")


@pytest.mark.parametrize("framework,user", [
    pytest.param("torch", None, marks=pytest.mark.torch),
    pytest.param("torch", ("0", "cma", "0"), marks=pytest.mark.torch),
    pytest.param("tensorflow", None, marks=pytest.mark.tensorflow),
    pytest.param("tensorflow", ("67108864", "cma", "0"), marks=pytest.mark.tensorflow),
])
def test_init_sets_cpu_allreduce_defaults_unless_the_user_chose_them(tmp_path, framework, user, monkeypatch):
    monkeypatch.delenv("HOROVOD_FUSION_THRESHOLD", raising=False)
    for name in MCA:
        monkeypatch.delenv(f"OMPI_MCA_{name}", raising=False)
    monkeypatch.setenv("OMPI_MCA_mpi_show_mca_params", "enviro")  # only the parameters set from the environment
    fusion, *mca = user or (str(1024 * 1024), None, "1")  # None: not set by anyone
    if user:
        monkeypatch.setenv("HOROVOD_FUSION_THRESHOLD", fusion)
        for name, value in zip(MCA, mca):
            monkeypatch.setenv(f"OMPI_MCA_{name}", value)
    # Plain mpirun, as a user types it: hvdkit's launcher (launch.child_env) would set yield_when_idle itself
    # at 2 ranks on 2 cores, and this test is about init(). 2 ranks: OpenMPI opens its shared-memory
    # transport (and prints its parameters) only with a local peer.
    (tmp_path / "rank.py").write_text(SCRIPT.format(framework=framework))
    env = {**os.environ, "OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
           "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}
    argv = ["mpirun", "-n", "2", "--oversubscribe", "--tag-output", sys.executable, str(tmp_path / "rank.py")]
    result = Result(subprocess.run(argv, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=240)).check()
    assert result.lines("FUSION") == [fusion, fusion]
    # --tag-output tags each chunk a rank writes, and a chunk can end mid-line: drop the tags to rejoin lines.
    printed = re.sub(r"\[\d+,\d+\]<std(?:out|err)>:", "", result.stdout + result.stderr)
    for name, value in zip(MCA, mca):
        # Rank 0 prints each as "name=value (environment)": the user's variable and hvdkit's default both reach
        # MPI_Init that way; a parameter neither set is not printed. OpenMPI prints a boolean as a word.
        shown = re.findall(rf"\b{name}=(\S+) \((\w+)\)", printed)
        expected = [] if value is None else [({"0": "false", "1": "true"}.get(value, value), "environment")]
        assert shown == expected, f"{name}: {shown}\n{printed[-3000:]}"
