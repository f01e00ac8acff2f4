"""Launch the two-tower ranker training on the local host's GPUs.

Used by the Airflow task `ranker_retrain` (python launch.py --num-proc 4) and by notebooks
(`from launch import launch; launch(RankerConfig(epochs=1))`).
"""
import argparse
import json
import logging

import horovod

from ranker.config import RankerConfig
from ranker.train_lib import train_fn


def launch(cfg: RankerConfig):
    results = horovod.run(train_fn, args=(cfg,), np=cfg.num_proc, use_gloo=True)
    return results[0]


def main():
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    p = argparse.ArgumentParser()
    p.add_argument("--num-proc", type=int, default=RankerConfig.num_proc)
    p.add_argument("--epochs", type=int, default=RankerConfig.epochs)
    p.add_argument("--interactions", default=RankerConfig.interactions_path)
    a = p.parse_args()
    cfg = RankerConfig(num_proc=a.num_proc, epochs=a.epochs, interactions_path=a.interactions)
    recall = launch(cfg)
    print(json.dumps({"metric": "recall_at_k", "value": recall, "config": cfg.to_dict()}))


if __name__ == "__main__":
    main()
