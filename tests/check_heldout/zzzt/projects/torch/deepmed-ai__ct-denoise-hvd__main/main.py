"""Launch RED-CNN denoising training on N local or remote processes.

    python main.py --num-proc 4 --hosts node1:2,node2:2 --amp true
"""
import horovod

from ctden.options import Options
from ctden.worker import train_fn


def cli():
    opt = Options.from_cli()
    kw = dict(num_proc=opt.num_proc, use_gloo=True)
    if opt.hosts:
        kw["hosts"] = opt.hosts
    results = horovod.run(train_fn, args=(opt,), **kw)
    print("final val mse per rank:", [r[-1] if r else None for r in results])


if __name__ == "__main__":
    cli()
