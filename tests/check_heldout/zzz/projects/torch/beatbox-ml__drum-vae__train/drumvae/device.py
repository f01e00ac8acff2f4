import torch


def get_device(prefer="cuda"):
    """Pick the accelerator if there is one."""
    if prefer == "cuda" and torch.cuda.is_available():
        torch.backends.cudnn.benchmark = True
        return torch.device("cuda")
    return torch.device("cpu")
