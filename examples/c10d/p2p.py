"""Tasks 2 and 3 of the course's c10d lab: a 3x4 tensor from rank 0 to rank 1, blocking and non-blocking.

    mpirun -n 2 python examples/c10d/p2p.py

Rank 0 holds ones, every other rank zeros. After each transfer rank 1 holds ones; ranks 2 and up,
which take no part, still hold zeros.
"""

import torch
import torch.distributed as dist

from c10d_common import distributed, make_parser, usage_error


def fresh(rank):
    return torch.ones(3, 4) if rank == 0 else torch.zeros(3, 4)


def show(what, rank, tensor):
    print(f"{what:<24} rank {rank}: {tensor.tolist()}", flush=True)


def main(argv=None):
    args = make_parser(__doc__).parse_args(argv)
    with distributed(args.backend) as (rank, size):
        if size < 2:
            usage_error(f"point-to-point needs 2 ranks or more, got {size}: mpirun -n 2 python p2p.py")
        tensor = fresh(rank)
        show("before", rank, tensor)
        # Blocking: send returns once the tensor may be reused, recv once it has arrived.
        if rank == 0:
            dist.send(tensor, dst=1)
        elif rank == 1:
            dist.recv(tensor, src=0)
        show("blocking send/recv", rank, tensor)

        tensor = fresh(rank)
        # Non-blocking: both calls return at once; the tensor must not be touched before wait().
        request = None
        if rank == 0:
            request = dist.isend(tensor, dst=1)
        elif rank == 1:
            request = dist.irecv(tensor, src=0)
        if request is not None:
            request.wait()
        show("non-blocking isend/irecv", rank, tensor)


if __name__ == "__main__":
    main()
