"""Training stage of the pipeline.

The orchestrator imports this module and calls ``run_training(config_path)``; it can also be
launched by hand: ``python pipeline.py --config configs/tabular.json --num-proc 4``.
"""
import argparse
import json
import os

import horovod

from tfpipe.config import PipelineConfig
from tfpipe.worker import worker_main


def run_training(config_path, num_proc=None, hosts=None):
    cfg = PipelineConfig.from_json(config_path)
    if num_proc is not None:
        cfg.num_proc = num_proc
    os.makedirs(cfg.output_dir, exist_ok=True)
    results = horovod.run(worker_main,
                          args=(cfg.to_dict(),),
                          num_proc=cfg.num_proc,
                          hosts=hosts,
                          use_gloo=True)
    # every worker returns its final metrics; keep rank 0's
    metrics = results[0]
    with open(os.path.join(cfg.output_dir, "metrics.json"), "w") as f:
        json.dump(metrics, f, indent=2)
    return metrics


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="configs/tabular.json")
    ap.add_argument("--num-proc", type=int, default=None)
    ap.add_argument("--hosts", default=None)
    a = ap.parse_args()
    print(run_training(a.config, a.num_proc, a.hosts))
