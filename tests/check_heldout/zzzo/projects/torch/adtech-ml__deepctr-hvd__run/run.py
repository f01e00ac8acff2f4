"""Launch DeepCTR training on N workers with horovod.run (no horovodrun needed).

    python run.py --num_proc 8 --hosts host1:4,host2:4 --ckpt_dir /shared/ckpt/deepctr
"""
import json
import sys

import horovod

from deepctr_hvd import options
from deepctr_hvd.train_fn import train


def main(argv=None):
    opts = options.parse(argv)
    kw = {}
    if opts.hosts:
        kw["hosts"] = opts.hosts
    results = horovod.run(train, args=(opts,), num_proc=opts.num_proc, use_gloo=True, **kw)
    # results come back in rank order
    summary = results[0]
    print(json.dumps(summary, indent=2))
    return summary


if __name__ == "__main__":
    main(sys.argv[1:])
