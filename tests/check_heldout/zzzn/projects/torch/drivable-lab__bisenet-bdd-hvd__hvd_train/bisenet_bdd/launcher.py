"""Run a training function either in-process (under horovodrun) or through horovod.run."""
import os

from .config import build_parser


def _under_launcher():
    return any(k in os.environ for k in ("OMPI_COMM_WORLD_RANK", "HOROVOD_RANK", "PMI_RANK"))


def launch(train_fn, argv=None):
    opts = build_parser().parse_args(argv)
    if opts.np > 0 and not _under_launcher():
        import horovod
        return horovod.run(train_fn, args=(opts,), num_proc=opts.np)
    return train_fn(opts)
