"""Task 4 of the course's c10d lab: allreduce SUM of the same 3x4 matrix M = [[1..4], [5..8], [9..12]].

    mpirun -n 2 python examples/c10d/allreduce.py

Every rank ends with size * M. A second allreduce of (rank + 1) * M, different on each rank, gives
size * (size + 1) / 2 * M: a sum of distinct contributions, not a copy.
"""

import torch
import torch.distributed as dist

from c10d_common import distributed, make_parser


def main(argv=None):
    args = make_parser(__doc__).parse_args(argv)
    with distributed(args.backend) as (rank, size):
        m = torch.arange(1, 13, dtype=torch.float32).reshape(3, 4)
        for what, tensor, expected in (("M", m.clone(), size * m),
                                       ("(rank + 1) * M", (rank + 1) * m, size * (size + 1) // 2 * m)):
            dist.all_reduce(tensor, op=dist.ReduceOp.SUM)
            print(f"allreduce SUM of {what:<15} rank {rank}: {tensor.tolist()} "
                  f"({'as expected' if torch.equal(tensor, expected) else 'WRONG'})", flush=True)


if __name__ == "__main__":
    main()
