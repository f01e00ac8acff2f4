"""Fine-tune a small DNABERT-style encoder on promoter / non-promoter classification.

Launch:  horovodrun -np 4 python train_hvd.py --config configs/promoter.yaml
"""
import argparse
import logging
import math
import os

import torch
import torch.nn.functional as F
import horovod.torch as hvd
from torch.utils.data import DataLoader, Subset

from dnalm import KmerTokenizer, TrainConfig
from dnalm.data import SequenceDataset, shard_indices
from dnalm.model import DnaEncoderClassifier
from dnalm.utils import binary_auroc, global_sum, is_main, save_checkpoint

logger = logging.getLogger("dnabert-lite")


def build_parser():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default=None, help="YAML file overriding TrainConfig defaults")
    parser.add_argument("--lr", type=float, default=None)
    parser.add_argument("--epochs", type=int, default=None)
    parser.add_argument("--resume", default=None)
    return parser


def load_config(args):
    overrides = dict(lr=args.lr, epochs=args.epochs, resume=args.resume)
    if args.config:
        return TrainConfig.from_yaml(args.config, **overrides)
    return TrainConfig(**{k: v for k, v in overrides.items() if v is not None})


def make_loader(dataset, batch_size, epoch, cfg, shuffle):
    idx = shard_indices(len(dataset), hvd.rank(), hvd.size(), cfg.seed, epoch, shuffle=shuffle)
    return DataLoader(Subset(dataset, idx), batch_size=batch_size, shuffle=False, num_workers=2)


@torch.no_grad()
def evaluate(model, dataset, batch_size, cfg, device):
    model.eval()
    loader = make_loader(dataset, batch_size, 0, cfg, shuffle=False)
    loss_sum, correct, count = 0.0, 0, 0
    scores, labels = [], []
    for ids, y in loader:
        ids, y = ids.to(device), y.to(device)
        logits = model(ids)
        loss_sum += F.cross_entropy(logits, y, reduction="sum").item()
        correct += (logits.argmax(-1) == y).sum().item()
        count += y.numel()
        scores.append(logits.softmax(-1)[:, 1].cpu())
        labels.append(y.cpu())
    loss_sum, correct, count = global_sum([loss_sum, correct, count], "val_sums")
    all_scores = hvd.allgather(torch.cat(scores), name="val_scores")
    all_labels = hvd.allgather(torch.cat(labels), name="val_labels")
    return loss_sum / count, correct / count, binary_auroc(all_scores.double(), all_labels)


def main():
    args = build_parser().parse_args()
    cfg = load_config(args)

    hvd.init()
    logging.basicConfig(level=logging.INFO if hvd.rank() == 0 else logging.WARNING,
                        format=f"%(asctime)s [rank {hvd.rank()}] %(message)s")
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda", hvd.local_rank())
    else:
        device = torch.device("cpu")
    torch.manual_seed(cfg.seed)

    tok = KmerTokenizer(cfg.k)
    train_set = SequenceDataset(cfg.train_tsv, tok, cfg.max_len)
    val_set = SequenceDataset(cfg.val_tsv, tok, cfg.max_len)
    if cfg.global_batch_size % hvd.size():
        raise ValueError("global_batch_size must be divisible by the number of workers")
    batch_size = cfg.global_batch_size // hvd.size()
    steps_per_epoch = (len(train_set) // hvd.size()) // batch_size
    total_steps = max(1, steps_per_epoch * cfg.epochs)

    model = DnaEncoderClassifier(len(tok), cfg.d_model, cfg.n_layers, cfg.n_heads, cfg.num_labels).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)

    start_epoch, best_auroc = 0, 0.0
    if cfg.resume and hvd.rank() == 0:
        ckpt = torch.load(cfg.resume, map_location="cpu")
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        start_epoch, best_auroc = ckpt["epoch"] + 1, ckpt["best_auroc"]
        logger.info("resumed from %s (epoch %d)", cfg.resume, start_epoch)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    start_epoch, best_auroc = hvd.broadcast_object((start_epoch, best_auroc), root_rank=0, name="resume_meta")

    compression = hvd.Compression.fp16 if cfg.fp16_allreduce else hvd.Compression.none
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         compression=compression)
    offset = start_epoch * steps_per_epoch

    def lr_lambda(step):
        step += offset
        if step < cfg.warmup_steps:
            return (step + 1) / cfg.warmup_steps
        return max(0.0, 0.5 * (1 + math.cos(math.pi * step / total_steps)))

    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)

    for epoch in range(start_epoch, cfg.epochs):
        model.train()
        for step, (ids, y) in enumerate(make_loader(train_set, batch_size, epoch, cfg, shuffle=True)):
            ids, y = ids.to(device), y.to(device)
            optimizer.zero_grad()
            loss = F.cross_entropy(model(ids), y, label_smoothing=cfg.label_smoothing)
            loss.backward()
            optimizer.step()
            scheduler.step()
            if step % 50 == 0:
                logger.info("epoch %d step %d/%d loss %.4f", epoch, step, steps_per_epoch, loss.item())

        val_loss, val_acc, val_auroc = evaluate(model, val_set, batch_size, cfg, device)
        logger.info("epoch %d val_loss %.4f acc %.4f auroc %.4f", epoch, val_loss, val_acc, val_auroc)
        state = {"epoch": epoch, "model": model.state_dict(), "optimizer": optimizer.state_dict(),
                 "best_auroc": max(best_auroc, val_auroc)}
        save_checkpoint(state, cfg.output_dir, "last.pt")
        if val_auroc > best_auroc:
            best_auroc = val_auroc
            save_checkpoint(state, cfg.output_dir, "best.pt")


if __name__ == "__main__":
    main()
