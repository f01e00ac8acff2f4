"""Task 1 of the course's c10d lab: every rank prints its rank and the world size.

    mpirun -n 2 python examples/c10d/hello.py
"""
import argparse

from c10d_common import add_arguments, distributed


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    add_arguments(parser)
    args = parser.parse_args(argv)
    with distributed(args.backend) as (rank, size):
        print(f"rank {rank} of {size} (backend {args.backend})", flush=True)


if __name__ == "__main__":
    main()
