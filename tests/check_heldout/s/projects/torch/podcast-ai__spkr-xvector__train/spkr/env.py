import torch


def setup_device(cfg):
    if torch.cuda.is_available():
        torch.cuda.set_device(cfg.device.gpu)
        torch.backends.cudnn.benchmark = True
        return torch.device("cuda", cfg.device.gpu)
    return torch.device("cpu")
