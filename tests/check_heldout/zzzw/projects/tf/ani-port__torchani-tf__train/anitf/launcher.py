"""Run a training function on one or many workers.

np == 1: call it in this process (no horovodrun needed);
np > 1 : hand it to horovod.run, which starts np processes and calls it in each."""
import horovod


def launch(fn, cfg):
    if cfg.get("np", 1) > 1:
        return horovod.run(fn, args=(cfg,), np=cfg["np"], hosts=cfg.get("hosts"), use_gloo=True)
    return [fn(cfg)]
