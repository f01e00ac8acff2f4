import os

import torch


def save_best(model, optimizer, epoch, score, path):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    tmp = path + ".tmp"
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "epoch": epoch, "score": score}, tmp)
    os.replace(tmp, path)


def load_weights(model, path, device):
    model.load_state_dict(torch.load(path, map_location=device)["model"])
    return model
