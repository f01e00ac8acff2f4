import os

import torch
import horovod.torch as hvd


def find_resume_epoch(checkpoint_format, epochs):
    """Rank 0 looks for the newest checkpoint; the answer is broadcast to all."""
    resume_from_epoch = 0
    if hvd.rank() == 0:
        for try_epoch in range(epochs, 0, -1):
            if os.path.exists(checkpoint_format.format(epoch=try_epoch)):
                resume_from_epoch = try_epoch
                break
    resume_from_epoch = hvd.broadcast(torch.tensor(resume_from_epoch), root_rank=0,
                                      name='resume_from_epoch').item()
    return resume_from_epoch


def save_checkpoint(model, optimizer, epoch, checkpoint_format):
    if hvd.rank() != 0:
        return
    filepath = checkpoint_format.format(epoch=epoch + 1)
    os.makedirs(os.path.dirname(os.path.abspath(filepath)), exist_ok=True)
    state = {
        'model': model.state_dict(),
        'optimizer': optimizer.state_dict(),
    }
    torch.save(state, filepath)
