"""Train the PetFinder adoption-speed MLP on Spark executors with Horovod.

    spark-submit --master yarn --num-executors 4 jobs/train_spark.py --conf conf/train.json
"""
import argparse
import json
import os
import sys

import horovod.spark
import horovod.torch as hvd
import torch
import torch.nn.functional as F
from pyspark.sql import SparkSession
from torch.utils.data import DataLoader

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from petfinder.features import PetTable, load_table  # noqa: E402
from petfinder.model import TabularMLP, quadratic_kappa  # noqa: E402
from petfinder.spark_io import check_tables  # noqa: E402


def train_fn(cfg):
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    cats, nums, y = load_table(cfg["table"], cfg["categorical"], cfg["numeric"], cfg["target"])
    train_loader = DataLoader(PetTable(cats, nums, y), batch_size=cfg["batch_size"],
                              shuffle=True, drop_last=True)
    vc, vn, vy = load_table(cfg["valid_table"], cfg["categorical"], cfg["numeric"], cfg["target"])
    valid_loader = DataLoader(PetTable(vc, vn, vy), batch_size=1024)

    model = TabularMLP(cfg["cardinalities"], nums.shape[1], cfg["emb_dim"], cfg["hidden"]).to(device)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    if hvd.rank() == 0 and cfg["warm_start"] and os.path.exists(cfg["warm_start"]):
        print(f"warm start from {cfg['warm_start']}")
        model.load_state_dict(torch.load(cfg["warm_start"], map_location=device), strict=False)

    opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())

    best_kappa = -1.0
    for epoch in range(cfg["epochs"]):
        model.train()
        for c, n, t in train_loader:
            c, n, t = c.to(device), n.to(device), t.to(device)
            opt.zero_grad()
            loss = F.cross_entropy(model(c, n), t)
            loss.backward()
            opt.step()

        model.eval()
        preds, targets = [], []
        with torch.no_grad():
            for c, n, t in valid_loader:
                preds.append(model(c.to(device), n.to(device)).argmax(1).cpu())
                targets.append(t)
        kappa = quadratic_kappa(torch.cat(preds), torch.cat(targets))
        if hvd.rank() == 0:
            print(f"epoch {epoch}: last batch loss {loss.item():.4f}  valid QWK {kappa:.4f}", flush=True)
            if kappa > best_kappa:
                best_kappa = kappa
                os.makedirs(os.path.dirname(cfg["output"]) or ".", exist_ok=True)
                torch.save(model.state_dict(), cfg["output"])
    return best_kappa


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--conf", default=os.path.join(os.path.dirname(__file__), "..", "conf", "train.json"))
    parser.add_argument("--num-proc", type=int, default=None,
                        help="Horovod processes; defaults to spark.default.parallelism")
    args = parser.parse_args()
    with open(args.conf) as f:
        cfg = json.load(f)

    spark = SparkSession.builder.appName("petfinder-horovod").getOrCreate()
    print("rows:", check_tables(spark, cfg))
    num_proc = args.num_proc or spark.sparkContext.defaultParallelism
    kappas = horovod.spark.run(train_fn, args=(cfg,), num_proc=num_proc)
    print("best QWK on rank 0:", kappas[0])
    spark.stop()


if __name__ == "__main__":
    main()
