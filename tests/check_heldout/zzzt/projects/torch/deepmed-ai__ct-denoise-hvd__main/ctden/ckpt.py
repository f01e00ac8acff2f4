import os
import torch


def save_rank0(rank, opt, model, optimizer, epoch):
    if rank != 0:
        return
    os.makedirs(opt.out, exist_ok=True)
    torch.save({"epoch": epoch, "model": model.state_dict(), "optimizer": optimizer.state_dict()},
               os.path.join(opt.out, "redcnn_last.pt"))
