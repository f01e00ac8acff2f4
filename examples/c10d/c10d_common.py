"""Shared setup of the c10d examples: torch.distributed from the environment mpirun gives each rank.

OpenMPI's mpirun tells every process its rank and the world size (OMPI_COMM_WORLD_RANK/SIZE; also
read: PMI_RANK/PMI_SIZE of MPICH-style launchers, RANK/WORLD_SIZE of torchrun). The Gloo backend
also needs a meeting point: MASTER_ADDR (default 127.0.0.1, or rank 0's host name when the ranks
span nodes) and MASTER_PORT (default a free port picked by rank 0 and broadcast with mpi4py).
With `--backend mpi`, which needs a torch built with MPI, MPI itself provides all of it.
"""
import argparse
import contextlib
import gc
import os
import socket
import sys

from hvdkit.common.argtypes import Parser
from hvdkit.common.ranks import rank_and_size

BACKENDS = ("gloo", "mpi")


def make_parser(doc):
    """An argument parser described by the first paragraph of a script's docstring, with --backend."""
    parser = Parser(description=doc.split("\n\n")[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--backend", choices=BACKENDS, default="gloo",
                        help="c10d backend; mpi only if torch was built with it (torch.distributed.is_mpi_available())")
    return parser


def usage_error(message):
    """One line on stderr (from rank 0 only, so n ranks do not print it n times), exit status 2."""
    if rank_and_size()[0] == 0:
        print(f"{os.path.basename(sys.argv[0])}: error: {message}", file=sys.stderr, flush=True)
    sys.exit(2)


def _free_port():
    with socket.socket() as s:
        s.bind(("", 0))
        return s.getsockname()[1]


def rendezvous(size):
    """(address, port) of rank 0's Gloo store, the same on every rank."""
    addr, port = os.environ.get("MASTER_ADDR"), os.environ.get("MASTER_PORT")
    if size == 1 or (addr and port):
        return addr or "127.0.0.1", int(port or _free_port())
    try:
        from mpi4py import MPI
    except ImportError:
        usage_error("no MASTER_PORT to meet at: set it for all ranks (mpirun -x MASTER_PORT=29500 ...) "
                    "or pip install mpi4py to have rank 0 pick a free one")
    comm = MPI.COMM_WORLD
    if comm.rank == 0:
        one_node = int(os.environ.get("OMPI_COMM_WORLD_LOCAL_SIZE", size)) == size
        addr = addr or ("127.0.0.1" if one_node else socket.gethostname())
        port = port or _free_port()
    addr, port = comm.bcast((addr, port), root=0)
    return addr, int(port)


@contextlib.contextmanager
def distributed(backend="gloo"):
    """init_process_group for this rank; yields (rank, size) and tears the group down afterwards."""
    import torch.distributed as dist

    if backend == "mpi":
        if not dist.is_mpi_available():
            usage_error("this torch was built without MPI: use --backend gloo")
        dist.init_process_group("mpi")
    else:
        rank, size = rank_and_size()
        addr, port = rendezvous(size)
        dist.init_process_group("gloo", init_method=f"tcp://{addr}:{port}", rank=rank, world_size=size)
    try:
        yield dist.get_rank(), dist.get_world_size()
    finally:
        # DDP sits in a reference cycle that would otherwise be collected only at interpreter shutdown:
        # the process group would then be torn down while Python finalizes, and a Gloo worker thread
        # releasing a finished job's tensor would abort the rank ("terminate called without an active
        # exception", about one run in two with torch 2.13). Collected here, it goes while Python is whole.
        gc.collect()
        dist.destroy_process_group()
