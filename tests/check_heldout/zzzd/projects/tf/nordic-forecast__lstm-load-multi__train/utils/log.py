import logging


def setup_logging(rank=0):
    logging.basicConfig(
        level=logging.INFO if rank == 0 else logging.WARNING,
        format=f"%(asctime)s [rank{rank}] %(name)s: %(message)s",
    )
    return logging.getLogger("forecast")
