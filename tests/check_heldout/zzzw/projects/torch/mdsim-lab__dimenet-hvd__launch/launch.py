#!/usr/bin/env python
"""Launch DimeNet-lite energy/force training on several workers.

    python launch.py --np 8 --hosts node1:4,node2:4 --dataset data/qm7x_subset.npz
"""
import horovod

from dimenet_hvd.options import build_parser
from dimenet_hvd import train_worker


def main():
    args = build_parser().parse_args()
    cfg = vars(args)
    print("launching", cfg["np"], "workers")
    results = horovod.run(train_worker, args=(cfg,), np=args.np, hosts=args.hosts,
                          use_gloo=True, verbose=0)
    print("done, ranks:", results)


if __name__ == "__main__":
    main()
