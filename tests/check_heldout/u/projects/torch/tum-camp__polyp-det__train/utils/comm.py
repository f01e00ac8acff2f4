# Communication helpers. These used to wrap torch.distributed (copied from detectron2's comm.py);
# now Horovod. The functions fall back to single-process values so that notebooks can import the
# code without horovodrun.
import horovod.torch as hvd


def _initialized():
    return hvd.is_initialized()


def get_world_size():
    return hvd.size() if _initialized() else 1


def get_rank():
    # was: int(os.environ["LOCAL_RANK"]) under torchrun
    return hvd.local_rank() if _initialized() else 0


def get_local_rank():
    return hvd.local_rank() if _initialized() else 0


def is_main_process():
    return get_rank() == 0


def synchronize():
    if get_world_size() > 1:
        hvd.barrier()
