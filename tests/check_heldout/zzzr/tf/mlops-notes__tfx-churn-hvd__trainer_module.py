#!/usr/bin/env python
# coding: utf-8
# Trainer module for the churn pipeline: the pipeline's Trainer step imports this file and calls
# run_fn(fn_args) on every horovod worker. Started life as churn_train.ipynb.

# In[1]:


import json
import os
import argparse
from types import SimpleNamespace

import keras
import horovod.tensorflow.keras as hvd

from churnpipe.config import HPARAMS
from churnpipe.hvd_utils import ensure_horovod, is_chief
from churnpipe.features import read_table
from churnpipe.io import input_fn
from churnpipe.model import build


# In[2]:


def run_fn(fn_args):
    ensure_horovod()
    hp = dict(HPARAMS, **(fn_args.custom_config or {}))

    x_tr, y_tr = read_table(fn_args.train_files, hp["label"], n_fake=fn_args.fake_rows)
    x_ev, y_ev = read_table(fn_args.eval_files, hp["label"], n_fake=fn_args.fake_rows // 4)
    train_ds = input_fn(x_tr, y_tr, hp["batch_size"], True, hp["shuffle_buffer"])
    eval_ds = input_fn(x_ev, y_ev, hp["batch_size"], False)
    steps = max(1, len(x_tr) // (hp["batch_size"] * hvd.size()))

    model = build(x_tr.shape[1], hp["hidden"], hp["dropout"])
    opt = hvd.DistributedOptimizer(keras.optimizers.Adam(hp["learning_rate"] * hvd.size()))
    model.compile(opt, loss="binary_crossentropy", metrics=["accuracy", keras.metrics.AUC(name="auc")])

    model.fit(train_ds, steps_per_epoch=steps, epochs=hp["epochs"],
              callbacks=[hvd.callbacks.BroadcastGlobalVariablesCallback(0)],
              verbose=2 if is_chief() else 0)

    results = model.evaluate(eval_ds, return_dict=True, verbose=0)
    if is_chief():
        os.makedirs(fn_args.serving_model_dir, exist_ok=True)
        model.save(os.path.join(fn_args.serving_model_dir, "model.keras"))
        # the evaluator step reads this file to bless the model
        with open(os.path.join(fn_args.serving_model_dir, "eval_metrics.json"), "w") as f:
            json.dump({k: float(v) for k, v in results.items()}, f)
    return results


# In[3]:


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--train-files", default="data/train.csv")
    ap.add_argument("--eval-files", default="data/eval.csv")
    ap.add_argument("--serving-model-dir", default="serving_model")
    ap.add_argument("--fake-rows", type=int, default=0)
    a = ap.parse_args()
    run_fn(SimpleNamespace(train_files=a.train_files, eval_files=a.eval_files,
                           serving_model_dir=a.serving_model_dir, fake_rows=a.fake_rows,
                           custom_config=None))
