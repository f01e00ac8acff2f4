"""Process-wide distributed facts, computed once."""
import horovod.torch as hvd

RANK = hvd.rank()
LOCAL_RANK = hvd.local_rank()
WORLD_SIZE = hvd.size()
IS_MAIN = RANK == 0


def log(msg):
    if IS_MAIN:
        print(f"[rank0] {msg}", flush=True)
