import json
import os

import torch


class Saver(object):
    def __init__(self, exp_dir):
        self.exp_dir = exp_dir
        self.rows = []
        os.makedirs(exp_dir, exist_ok=True)

    def save_round(self, rnd, model, optimizer, labeled, pool, acc):
        torch.save({"round": rnd, "model": model.state_dict(), "optim": optimizer.state_dict()},
                   os.path.join(self.exp_dir, "round_%d.pth" % rnd))
        with open(os.path.join(self.exp_dir, "split_round_%d.json" % rnd), "w") as f:
            json.dump({"labeled": labeled, "pool": pool}, f)
        self.rows.append({"round": rnd, "n_labeled": len(labeled), "acc": acc})

    def write_table(self):
        with open(os.path.join(self.exp_dir, "table.json"), "w") as f:
            json.dump(self.rows, f, indent=1)
