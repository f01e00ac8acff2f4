import os
import torch


def save(path, epoch, G, D, G_ema, opt_g, opt_d):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    torch.save({"epoch": epoch, "G": G.state_dict(), "D": D.state_dict(), "G_ema": G_ema.state_dict(),
                "opt_g": opt_g.state_dict(), "opt_d": opt_d.state_dict()}, path)


def load(path, G, D, G_ema, opt_g, opt_d):
    sd = torch.load(path, map_location="cpu")
    G.load_state_dict(sd["G"]); D.load_state_dict(sd["D"]); G_ema.load_state_dict(sd["G_ema"])
    opt_g.load_state_dict(sd["opt_g"]); opt_d.load_state_dict(sd["opt_d"])
    return sd["epoch"] + 1
