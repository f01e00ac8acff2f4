"""Regression MLP on a parquet table, trained by Horovod workers placed by Ray.

    ray start --head && python hvd_job.py --data s3://bucket/houses.parquet --num-workers 4 --gpu
"""
import argparse

import ray
from horovod.ray import RayExecutor

DEFAULTS = dict(target="price", batch_size=512, lr=1e-3, epochs=30, weight_decay=1e-5,
                out="artifacts/mlp.pt", seed=17)


def train_func(config):
    import torch
    import torch.nn.functional as F
    import horovod.torch as hvd

    from tabular.datamodule import TabularDataModule
    from tabular.distributed import export_rank_zero, global_mean
    from tabular.model import make_mlp

    hvd.init()
    torch.manual_seed(config["seed"])
    if config["use_gpu"] and torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda", hvd.local_rank())
    else:
        torch.set_num_threads(config["cpus_per_worker"])
        device = torch.device("cpu")

    dm = TabularDataModule(config["data"], config["target"], config["batch_size"],
                           rank=hvd.rank(), num_replicas=hvd.size(), seed=config["seed"]).setup()
    net = make_mlp(dm.num_features).to(device)
    base = torch.optim.Adam(net.parameters(), lr=config["lr"] * hvd.size(), weight_decay=config["weight_decay"])
    trainer_opt = hvd.DistributedOptimizer(base, named_parameters=net.named_parameters())
    hvd.broadcast_parameters(net.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(trainer_opt, root_rank=0)

    history = []
    for epoch in range(config["epochs"]):
        net.train()
        for xb, yb in dm.train_loader(epoch):
            xb, yb = xb.to(device), yb.to(device)
            trainer_opt.zero_grad()
            loss = F.mse_loss(net(xb).squeeze(-1), yb)
            loss.backward()
            trainer_opt.step()

        net.eval()
        sq_err, n = 0.0, 0
        with torch.no_grad():
            for xb, yb in dm.dev_loader():
                pred = net(xb.to(device)).squeeze(-1).cpu()
                sq_err += ((pred - yb) ** 2).sum().item()
                n += len(yb)
        dev_rmse = global_mean(hvd, sq_err / max(n, 1), "dev_mse") ** 0.5
        history.append(dev_rmse)
        if hvd.rank() == 0:
            print(f"epoch {epoch:02d} dev RMSE {dev_rmse:.3f}", flush=True)
    export_rank_zero(hvd, net, config["out"])
    return history


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--num-workers", type=int, default=2)
    ap.add_argument("--cpus-per-worker", type=int, default=2)
    ap.add_argument("--gpu", action="store_true")
    ap.add_argument("--address", default="auto")
    args = ap.parse_args()

    ray.init(address=args.address)
    config = dict(DEFAULTS, data=args.data, use_gpu=args.gpu, cpus_per_worker=args.cpus_per_worker)
    settings = RayExecutor.create_settings(timeout_s=120)
    executor = RayExecutor(settings, num_workers=args.num_workers, cpus_per_worker=args.cpus_per_worker,
                           use_gpu=args.gpu, gpus_per_worker=1 if args.gpu else None)
    executor.start()
    try:
        histories = executor.run(train_func, kwargs={"config": config})
    finally:
        executor.shutdown()
    print("final dev RMSE:", histories[0][-1])


if __name__ == "__main__":
    main()
