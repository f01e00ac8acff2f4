"""Launcher: spawns the horovod workers from python, no horovodrun needed.

    python run_hvd.py --np 4 --epochs 100
    python run_hvd.py --np 8 --hosts node1:4,node2:4
"""
import json

import horovod

from ginhiv import train
from ginhiv.options import build_parser, DEFAULTS


def main():
    args = build_parser().parse_args()
    cfg = {k: getattr(args, k) for k in DEFAULTS}
    print("config:", json.dumps(cfg, indent=1))
    results = horovod.run(train, args=(cfg,), np=args.np, hosts=args.hosts, use_gloo=True)
    hist = [r for r in results if r is not None][0]
    print("best val ROC-AUC: %.4f" % max(hist))


if __name__ == "__main__":
    main()
