"""Train every model listed in models.json, one after another, on the same sharded
spectrogram data, and write a leaderboard.  One Horovod job for the whole sweep:

    horovodrun -np 4 python sweep.py --data data/urbansound_mel.npz
"""
import argparse
import json
import logging

import torch
import horovod.torch as hvd

from sweeplib.data import SpectrogramData
from sweeplib.loop import fit_model
from sweeplib.registry import build
from sweeplib.reporting import Reporter


def run(data_path, config_path="models.json", out_dir="sweep_out", only=None):
    hvd.init()
    device = torch.device("cpu")
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda", hvd.local_rank())
    logging.basicConfig(level=logging.INFO if hvd.rank() == 0 else logging.ERROR,
                        format="%(asctime)s [r%(process)d] %(message)s")

    with open(config_path) as f:
        sweep = json.load(f)
    data = SpectrogramData(data_path, batch_size=sweep["batch_size"])
    reporter = Reporter.create(out_dir)

    for spec in sweep["models"]:
        if only and spec["name"] not in only:
            continue
        model = build(spec["arch"], n_mels=data.n_mels, n_classes=data.n_classes, **spec.get("kwargs", {})).to(device)
        result = fit_model(model, spec, data, reference_batch=sweep["reference_batch"])
        reporter.record(spec["name"], model, result)

    reporter.finish()


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--config", default="models.json")
    ap.add_argument("--out", default="sweep_out")
    ap.add_argument("--only", nargs="*")
    a = ap.parse_args()
    run(a.data, a.config, a.out, a.only)
