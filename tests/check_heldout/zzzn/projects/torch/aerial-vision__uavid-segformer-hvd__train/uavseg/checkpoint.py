import os
import shutil

import torch


def save_checkpoint(state, is_best, out_dir, filename="checkpoint.pth"):
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, filename)
    torch.save(state, path)
    if is_best:
        shutil.copyfile(path, os.path.join(out_dir, "model_best.pth"))


def load_pretrained(model, path):
    if not path or not os.path.exists(path):
        return model
    sd = torch.load(path, map_location="cpu")
    sd = sd.get("state_dict", sd)
    missing, unexpected = model.load_state_dict(sd, strict=False)
    print("pretrained: missing %d unexpected %d" % (len(missing), len(unexpected)))
    return model
