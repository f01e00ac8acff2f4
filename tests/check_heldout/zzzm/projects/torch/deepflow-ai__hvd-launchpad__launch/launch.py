"""Programmatic launcher: `python launch.py --num-proc 4` starts the workers itself
through horovod.run (gloo), no horovodrun / mpirun on the command line.
With --launcher external the script is expected to be started by horovodrun."""
import json
import sys

import horovod
import horovod.torch as hvd

from launchpad import options
from launchpad import worker


def main(argv=None):
    opts = options.parse_args(argv)
    hvd.init()
    if hvd.rank() == 0:
        print(json.dumps(vars(opts), indent=2, sort_keys=True))

    if opts.launcher == "run":
        hosts = opts.hosts or "localhost:%d" % opts.num_proc
        results = horovod.run(worker.train, args=(opts,), num_proc=opts.num_proc, hosts=hosts,
                              use_gloo=True, verbose=opts.verbose)
        best = results[0]
    else:
        best = worker.train(opts)

    if hvd.rank() == 0:
        print("best val acc: %.4f" % best["val_acc"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
