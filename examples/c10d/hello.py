"""Task 1 of the course's c10d lab: every rank prints its rank and the world size.

    mpirun -n 2 python examples/c10d/hello.py
"""

from c10d_common import distributed, make_parser


def main(argv=None):
    args = make_parser(__doc__).parse_args(argv)
    with distributed(args.backend) as (rank, size):
        print(f"rank {rank} of {size} (backend {args.backend})", flush=True)


if __name__ == "__main__":
    main()
