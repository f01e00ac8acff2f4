import torch
import horovod.torch as hvd

IS_ROOT = False   # set by setup(); read it as runtime.IS_ROOT, not via from-import


def setup():
    global IS_ROOT
    hvd.init()
    IS_ROOT = hvd.rank() == 0
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        return torch.device("cuda", torch.cuda.current_device())
    torch.set_num_threads(max(1, torch.get_num_threads() // hvd.local_size()))
    return torch.device("cpu")
