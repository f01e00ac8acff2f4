import os
import torch


def save_weights(args, nets, opts, state, tag):
    d = os.path.join(args.weights_root, tag)
    os.makedirs(d, exist_ok=True)
    for k, v in nets.items():
        torch.save(v.state_dict(), os.path.join(d, k + ".pth"))
    for k, v in opts.items():
        torch.save(v.state_dict(), os.path.join(d, k + "_optim.pth"))
    torch.save(state, os.path.join(d, "state_dict.pth"))


def load_weights(args, nets, opts, tag="last"):
    d = os.path.join(args.weights_root, tag)
    for k, v in nets.items():
        v.load_state_dict(torch.load(os.path.join(d, k + ".pth"), map_location="cpu"))
    for k, v in opts.items():
        v.load_state_dict(torch.load(os.path.join(d, k + "_optim.pth"), map_location="cpu"))
    return torch.load(os.path.join(d, "state_dict.pth"))
