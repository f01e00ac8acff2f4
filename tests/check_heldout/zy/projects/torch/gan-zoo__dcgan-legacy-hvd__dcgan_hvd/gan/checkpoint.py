import os

import torch
import horovod.torch as hvd


def save(path, epoch, netG, netD, optG, optD):
    if hvd.rank() != 0:
        return
    tmp = path + ".tmp"
    torch.save({"epoch": epoch, "G": netG.state_dict(), "D": netD.state_dict(),
                "optG": optG.state_dict(), "optD": optD.state_dict()}, tmp)
    os.replace(tmp, path)


def maybe_load(path, netG, netD, optG, optD):
    """Only rank 0 reads the file; the caller broadcasts afterwards."""
    if hvd.rank() != 0 or not path or not os.path.isfile(path):
        return 0
    ck = torch.load(path, map_location="cpu")
    netG.load_state_dict(ck["G"])
    netD.load_state_dict(ck["D"])
    optG.load_state_dict(ck["optG"])
    optD.load_state_dict(ck["optD"])
    return ck["epoch"] + 1
