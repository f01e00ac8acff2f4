import os
import torch
import horovod.torch as hvd


def save(model, optimizer, epoch, opt, name="last.pth"):
    if opt.save_rank0_only and hvd.rank() != 0:
        return
    os.makedirs(opt.out_dir, exist_ok=True)
    torch.save({"epoch": epoch,
                "state_dict": model.state_dict(),
                "optimizer": optimizer.state_dict()},
               os.path.join(opt.out_dir, name))
