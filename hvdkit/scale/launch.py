"""Building launch commands (mpirun, mpiexec, horovodrun, srun) for N ranks on this machine.

Used by `hvdkit scale`, `hvdkit doctor`, the demo and the tests, so they all launch the same way.
"""
import os
import shutil
import sys

from hvdkit.common.context import usable_cores
from hvdkit.common.errors import HvdkitError

LAUNCHERS = ("mpirun", "mpiexec", "horovodrun", "srun")


class LaunchError(HvdkitError, RuntimeError):
    pass


def threads_per_rank(n, threads=None):
    """`threads` if given, else each rank's share of the usable cores (at least 1)."""
    return threads if threads is not None else max(1, usable_cores() // max(1, n))


def child_env(n, base=None, threads=None):
    """Environment for launched ranks: OpenMPI's root and oversubscription switches, for the children only.

    OpenMPI refuses to start as root without both ALLOW_RUN_AS_ROOT variables, and refuses more
    ranks than cores unless oversubscription is allowed. Ranks beyond the cores also need one
    intra-op thread each, or they fight over cores.
    """
    env = root_switches(dict(os.environ if base is None else base))
    cores = usable_cores()
    if n > cores:
        env.setdefault("OMPI_MCA_rmaps_base_oversubscribe", "1")
    if n >= cores:
        # Each rank's Horovod background thread shares its core with the compute thread; OpenMPI's
        # default busy-polling there starves the compute (2 ranks on 2 cores: ResNet34 no faster than 1).
        # hvdkit's init() sets it too on ranks without a GPU (context.cpu_horovod_defaults); this is for
        # programs that call hvd.init() themselves.
        env.setdefault("OMPI_MCA_mpi_yield_when_idle", "1")
    env.setdefault("OMP_NUM_THREADS", str(threads_per_rank(n, threads)))
    env["GLIBC_TUNABLES"] = with_huge_pages(env.get("GLIBC_TUNABLES"))
    # Quiet OpenMPI's "no high-performance network" notices on laptops and CI containers.
    env.setdefault("OMPI_MCA_btl_base_warn_component_unused", "0")
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    return env


def root_switches(env):
    """`env` with OpenMPI's two switches that let root run it (as root only; yours win)."""
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    return env


def with_huge_pages(tunables):
    """GLIBC_TUNABLES with glibc's malloc asking for transparent huge pages, unless the user chose a hugetlb mode.

    Large buffers (PyTorch's tensors, OpenMPI's reduction buffers) then sit on 2 MB pages as NumPy's arrays do,
    which made a 64 MB allreduce at 2 ranks twice as fast (benchmarks/results/allreduce.json, side
    hvdkit_4k_pages). Not PyTorch's own THP_MEM_ALLOC_ENABLE=1: it aligns large tensors to the page, and
    OpenMPI's reduction into a page-aligned buffer ran about 1.6x slower at 64 MB, mpi4py's too (sides
    hvdkit_page_aligned, mpi4py_page_aligned). glibc older than 2.35 ignores the tunable.
    """
    if tunables and "glibc.malloc.hugetlb=" in tunables:
        return tunables
    return ":".join(t for t in (tunables, "glibc.malloc.hugetlb=1") if t)


def command(n, argv, launcher="mpirun", extra=(), env_names=(), threads=None):
    """argv for `launcher` starting `n` ranks of `argv` on localhost (or on the allocation, for srun).

    `threads`: intra-op threads each rank will run (by default child_env's share of the cores), so
    that OpenMPI does not bind a rank with several threads to a single core.
    """
    if n < 1:
        raise LaunchError(f"number of ranks must be >= 1, got {n}")
    if launcher not in LAUNCHERS:
        raise LaunchError(f"unknown launcher {launcher!r}: use one of {', '.join(LAUNCHERS)}")
    # horovodrun belongs to this interpreter's Horovod: the one beside it first (a venv not activated).
    beside = os.path.dirname(os.path.abspath(sys.executable)) if launcher == "horovodrun" else None
    exe = (beside and shutil.which(launcher, path=beside)) or shutil.which(launcher)
    if exe is None:
        hint = {"horovodrun": "it comes with Horovod: make setup",
                "srun": "srun exists only inside a Slurm allocation"}.get(
            launcher, "install OpenMPI (Debian: apt-get install openmpi-bin) or load your MPI module")
        raise LaunchError(f"{launcher} not found on PATH: {hint}")
    argv = list(argv)
    if launcher in ("mpirun", "mpiexec"):
        openmpi = is_openmpi(exe)
        exports = []
        # OpenMPI forwards only the variables named with -x to other nodes; MPICH's and Cray PALS's
        # mpiexec (Polaris) forward the whole environment and do not know -x.
        for name in env_names if openmpi else ():
            exports += ["-x", name]
        oversub = ["--oversubscribe"] if n > usable_cores() and openmpi else []
        # OpenMPI binds each of up to 2 ranks to one core: a 1-rank run with 2 threads would get one core
        # and make every scaling efficiency look better than it is. The user's own --bind-to wins.
        several = threads_per_rank(n, threads) > 1
        bound = any(a.startswith("--bind-to") for a in extra)
        unbind = ["--bind-to", "none"] if openmpi and several and not bound else []
        return [exe, "-n", str(n), *oversub, *unbind, *exports, *extra, *argv]
    if launcher == "horovodrun":
        return [exe, "-np", str(n), "-H", f"localhost:{n}", *extra, *argv]
    return [exe, "-n", str(n), *extra, *argv]


def is_openmpi(exe):
    real = os.path.realpath(exe)
    return "openmpi" in real or "orterun" in real or os.path.exists(os.path.join(os.path.dirname(real), "ompi_info"))
