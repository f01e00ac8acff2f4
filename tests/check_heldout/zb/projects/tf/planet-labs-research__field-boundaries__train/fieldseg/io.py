import json
import os

import tensorflow as tf


class RunIO:
    """Checkpoints, TensorBoard scalars and a json log, written by the chief worker only."""

    def __init__(self, run_dir, model, optimizer, is_chief, keep=3):
        self.is_chief = is_chief
        if not is_chief:
            return
        os.makedirs(run_dir, exist_ok=True)
        self.ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer)
        self.manager = tf.train.CheckpointManager(self.ckpt, os.path.join(run_dir, "ckpt"), max_to_keep=keep)
        self.writer = tf.summary.create_file_writer(os.path.join(run_dir, "tb"))
        self.log_path = os.path.join(run_dir, "metrics.jsonl")

    def end_epoch(self, epoch, metrics):
        if not self.is_chief:
            return
        with self.writer.as_default():
            for k, v in metrics.items():
                tf.summary.scalar(k, v, step=epoch)
        with open(self.log_path, "a") as f:
            f.write(json.dumps({"epoch": epoch, **metrics}) + "\n")
        self.manager.save(checkpoint_number=epoch)
        print(f"epoch {epoch}: " + "  ".join(f"{k} {v:.4f}" for k, v in metrics.items()), flush=True)
