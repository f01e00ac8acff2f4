"""Grasp-quality network training.

Three ways to launch the same `train_fn` (all used by someone on the team):
  mpirun -np 4 python train.py --launcher mpirun          # lab cluster
  python train.py --launcher ray --num-workers 8          # Ray cluster (horovod.ray)
  spark-submit train.py --launcher spark --num-workers 8  # Databricks jobs (horovod.spark)
"""
import argparse
import dataclasses

from grasp.config import TrainConfig


def train_fn(cfg_dict):
    # imported here so the driver of a Ray/Spark job does not need torch/horovod initialised
    import horovod.torch as hvd
    from grasp.data import load_split, shard_indices, make_loader
    from grasp.trainer import Trainer

    cfg = TrainConfig(**cfg_dict)
    hvd.init()
    trainer = Trainer(cfg)

    train_set = load_split(cfg.data_root, "train")
    val_set = load_split(cfg.data_root, "val")
    train_idx = shard_indices(len(train_set), hvd.rank(), hvd.size(), seed=cfg.seed)
    val_idx = shard_indices(len(val_set), hvd.rank(), hvd.size(), seed=None)
    for epoch in range(cfg.epochs):
        loader = make_loader(train_set, train_idx, cfg.batch_size, shuffle_seed=cfg.seed + epoch)
        train_loss = trainer.train_epoch(loader)
        val_loss, val_acc = trainer.evaluate(make_loader(val_set, val_idx, 256))
        if hvd.rank() == 0:
            print(f"[{epoch:03d}] train {train_loss:.4f}  val {val_loss:.4f}  acc {val_acc:.3f}")
        trainer.save(epoch)
    return val_acc


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--launcher", choices=["mpirun", "ray", "spark"], default="mpirun")
    p.add_argument("--num-workers", type=int, default=4)
    p.add_argument("--use-gpu", action="store_true")
    for f in dataclasses.fields(TrainConfig):
        p.add_argument("--" + f.name.replace("_", "-"), type=type(f.default), default=f.default)
    args = vars(p.parse_args())
    launcher, num_workers, use_gpu = args.pop("launcher"), args.pop("num_workers"), args.pop("use_gpu")

    if launcher == "mpirun":
        train_fn(args)
    elif launcher == "ray":
        import ray
        from horovod.ray import RayExecutor
        ray.init(address="auto")
        settings = RayExecutor.create_settings(timeout_s=120)
        executor = RayExecutor(settings, num_workers=num_workers, use_gpu=use_gpu)
        executor.start()
        print("val acc per worker:", executor.run(train_fn, args=[args]))
        executor.shutdown()
    else:
        import horovod.spark
        print("val acc per worker:", horovod.spark.run(train_fn, args=(args,), num_proc=num_workers))


if __name__ == "__main__":
    main()
