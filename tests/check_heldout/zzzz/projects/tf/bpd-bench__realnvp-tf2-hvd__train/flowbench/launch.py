import os


def under_horovodrun():
    return "HOROVOD_RANK" in os.environ or "OMPI_COMM_WORLD_RANK" in os.environ or "PMI_RANK" in os.environ


def run_distributed(fn, cfg):
    """call fn(cfg) on every worker; spawn them ourselves if not launched by horovodrun/mpirun"""
    if cfg.num_proc > 0 and not under_horovodrun():
        import horovod
        return horovod.run(fn, args=(cfg,), num_proc=cfg.num_proc, use_gloo=True)
    return [fn(cfg)]
