import json
import os

import torch


def save_model(model, out_dir, epoch, metrics):
    os.makedirs(out_dir, exist_ok=True)
    torch.save(model.state_dict(), os.path.join(out_dir, "neumf.pt"))
    with open(os.path.join(out_dir, "neumf.json"), "w") as f:
        json.dump({"epoch": epoch, **metrics}, f)
