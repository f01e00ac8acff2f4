import json
import os
import random

import numpy as np
import torch
import horovod.torch as hvd


def set_seed(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def save_checkpoint(output_dir, step, model, optimizer, scheduler, args, word_vocab, tag_vocab):
    path = os.path.join(output_dir, f"checkpoint-{step}")
    if hvd.rank() == 0:
        os.makedirs(path, exist_ok=True)
        with open(os.path.join(path, "args.json"), "w") as f:
            json.dump(vars(args), f, indent=2)
        with open(os.path.join(path, "vocab.json"), "w") as f:
            json.dump({"words": word_vocab.itos, "tags": tag_vocab.itos}, f)
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "scheduler": scheduler.state_dict(), "step": step},
               os.path.join(path, "pytorch_model.bin"))
