import argparse
import logging
import os
import sys

import yaml
import torch
import horovod.torch as hvd

from ncsn.distributed import init_distributed, master_only_logging
from ncsn.datasets import get_dataloader
from ncsn.models import NCSNSmall
from ncsn.runner import NCSNRunner
from ncsn import checkpoint


def dict2namespace(d):
    ns = argparse.Namespace()
    for k, v in d.items():
        setattr(ns, k, dict2namespace(v) if isinstance(v, dict) else v)
    return ns


def parse_args_and_config():
    parser = argparse.ArgumentParser(description=globals()["__doc__"])
    parser.add_argument("--config", type=str, default="configs/cifar10.yml")
    parser.add_argument("--exp", type=str, default="exp")
    parser.add_argument("--doc", type=str, default="ncsnv2_cifar10")
    parser.add_argument("--resume_training", action="store_true")
    parser.add_argument("--seed", type=int, default=1234)
    args = parser.parse_args()
    args.log_path = os.path.join(args.exp, "logs", args.doc)
    with open(args.config) as f:
        config = dict2namespace(yaml.safe_load(f))
    return args, config


def main():
    args, config = parse_args_and_config()
    device = init_distributed(args)
    config.device = device
    master_only_logging(args.log_path)

    torch.manual_seed(args.seed)
    train_loader = get_dataloader(config, train=True)
    test_loader = get_dataloader(config, train=False)

    score = NCSNSmall(config).to(device)
    optimizer = torch.optim.Adam(
        score.parameters(),
        lr=config.optim.lr * hvd.size(),
        betas=(config.optim.beta1, 0.999),
        eps=config.optim.eps,
    )
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=score.named_parameters())

    start_epoch, step = 0, 0
    if args.resume_training:
        start_epoch, step = checkpoint.load(args.log_path, score, optimizer, device)
    hvd.broadcast_parameters(score.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    start_epoch = hvd.broadcast_object(start_epoch, root_rank=0)
    step = hvd.broadcast_object(step, root_rank=0)

    runner = NCSNRunner(args, config, score, optimizer)
    try:
        runner.train(train_loader, test_loader, start_epoch, step)
    except KeyboardInterrupt:
        logging.info("interrupted")
    return 0


if __name__ == "__main__":
    sys.exit(main())
