#!/usr/bin/env python
"""Launch the ERA5 -> 4 km downscaling job on the nodes of the current allocation.

    # Derecho, PBS:  #PBS -l select=2:ncpus=64:ngpus=4 -l walltime=12:00:00
    python launch.py --config configs/conus_4km.yaml --np 8 --hosts $(hosts_from_pbs)
"""
import horovod

from downscale.options import get_parser, build_config
from downscale.worker import train


def main():
    args = get_parser().parse_args()
    cfg = build_config(args)
    print("config:", cfg, flush=True)
    ranks = horovod.run(train, args=(cfg,), np=args.np, hosts=args.hosts, use_gloo=True)
    print("finished on ranks", ranks)


if __name__ == "__main__":
    main()
