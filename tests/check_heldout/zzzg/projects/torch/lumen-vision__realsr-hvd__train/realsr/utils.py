import copy
import logging

import torch
import torch.nn.functional as F


def get_logger(rank):
    logger = logging.getLogger("realsr")
    logging.basicConfig(format="%(asctime)s %(levelname)s %(message)s")
    logger.setLevel(logging.INFO if rank == 0 else logging.WARNING)
    return logger


def setup_device(local_rank):
    if torch.cuda.is_available():
        torch.cuda.set_device(local_rank)
        return torch.device("cuda", local_rank)
    return torch.device("cpu")


class ModelEMA:
    def __init__(self, model, decay=0.999):
        self.module = copy.deepcopy(model).eval()
        self.decay = decay
        for p in self.module.parameters():
            p.requires_grad_(False)

    @torch.no_grad()
    def update(self, model):
        for e, m in zip(self.module.state_dict().values(), model.state_dict().values()):
            if e.dtype.is_floating_point:
                e.mul_(self.decay).add_(m.detach(), alpha=1 - self.decay)


def psnr(sr, hr, border=4):
    sr, hr = sr[..., border:-border, border:-border], hr[..., border:-border, border:-border]
    mse = F.mse_loss(sr.clamp(0, 1), hr, reduction="none").mean(dim=(1, 2, 3))
    return 10 * torch.log10(1.0 / (mse + 1e-10))
