#!/usr/bin/env python
# Launch the GAN recipe on N workers without horovodrun:
#   python launch.py --num-proc 4 --steps 5000
#   python launch.py --num-proc 8 --hosts node1:4,node2:4
import horovod

from hgan.options import build_parser
from hgan import train_fn


def main():
    args = build_parser().parse_args()
    opts = vars(args)
    results = horovod.run(train_fn.run_worker, args=(opts,), num_proc=args.num_proc,
                          hosts=args.hosts, use_gloo=True, verbose=1)
    print("workers finished at steps:", results)


if __name__ == "__main__":
    main()
