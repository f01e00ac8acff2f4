import os

import torch


def save(log_path, score, optimizer, ema_helper, epoch, step):
    states = [score.state_dict(), optimizer.state_dict(), epoch, step]
    if ema_helper is not None:
        states.append(ema_helper.state_dict())
    os.makedirs(log_path, exist_ok=True)
    torch.save(states, os.path.join(log_path, "checkpoint_{}.pth".format(step)))
    torch.save(states, os.path.join(log_path, "checkpoint.pth"))


def load(log_path, score, optimizer, device):
    states = torch.load(os.path.join(log_path, "checkpoint.pth"), map_location=device)
    score.load_state_dict(states[0])
    optimizer.load_state_dict(states[1])
    return states[2], states[3]
