import logging

import horovod.tensorflow as hvd


def sync_after_first_step(model, opt):
    """Broadcast weights and optimizer slots once both exist (after the first apply_gradients)."""
    hvd.broadcast_variables(model.variables, root_rank=0)
    hvd.broadcast_variables(opt.variables, root_rank=0)


class RankZeroLogger:
    def __init__(self, name):
        self._log = logging.getLogger(name)
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")

    def __call__(self, msg):
        if hvd.rank() == 0:
            self._log.info(msg)
