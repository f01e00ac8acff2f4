import horovod.torch as hvd


def info(msg, *args):
    """Print from the first worker only (hvd.rank() is read at call time, after init)."""
    if hvd.rank() == 0:
        print("[kws] " + (msg % args if args else msg), flush=True)
