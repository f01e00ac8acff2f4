import json
import os

import torch


def save_checkpoint(output_dir, step, model, optimizer, scheduler, scaler):
    ckpt_dir = os.path.join(output_dir, f"checkpoint-{step}")
    os.makedirs(ckpt_dir, exist_ok=True)
    torch.save(model.state_dict(), os.path.join(ckpt_dir, "pytorch_model.bin"))
    torch.save(
        {"optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict(), "scaler": scaler.state_dict()},
        os.path.join(ckpt_dir, "optimizer.pt"),
    )
    with open(os.path.join(ckpt_dir, "trainer_state.json"), "w") as fh:
        json.dump({"global_step": step}, fh)
    return ckpt_dir
