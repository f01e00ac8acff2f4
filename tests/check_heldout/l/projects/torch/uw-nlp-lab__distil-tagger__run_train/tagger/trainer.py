import glob
import math
import logging
import os

import torch
import horovod.torch as hvd
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from transformers import get_linear_schedule_with_warmup

logger = logging.getLogger(__name__)


def span_f1(gold, pred):
    """Entity-level F1 over BIO sequences."""
    def spans(seq):
        out, start, kind = set(), None, None
        for i, t in enumerate(list(seq) + ["O"]):
            if t.startswith("B-") or t == "O" or (t.startswith("I-") and t[2:] != kind):
                if start is not None:
                    out.add((start, i, kind))
                start, kind = (i, t[2:]) if t != "O" else (None, None)
        return out
    tp = fp = fn = 0
    for g, p in zip(gold, pred):
        gs, ps = spans(g), spans(p)
        tp += len(gs & ps)
        fp += len(ps - gs)
        fn += len(gs - ps)
    prec = tp / max(tp + fp, 1)
    rec = tp / max(tp + fn, 1)
    return 2 * prec * rec / max(prec + rec, 1e-9)


class Trainer:
    def __init__(self, model, args, train_set, dev_set, collate_fn, id2label):
        self.args = args
        self.rank = hvd.rank()
        self.local_rank = hvd.local_rank()
        self.world_size = hvd.size()
        self.id2label = id2label
        self.device = torch.device("cuda", self.local_rank) if torch.cuda.is_available() \
            else torch.device("cpu")
        self.model = model.to(self.device)

        self.train_sampler = DistributedSampler(train_set, num_replicas=self.world_size,
                                                rank=self.rank, shuffle=True, seed=args.seed)
        dev_sampler = DistributedSampler(dev_set, num_replicas=self.world_size, rank=self.rank,
                                         shuffle=False)
        self.train_loader = DataLoader(train_set, batch_size=args.per_device_batch_size,
                                       sampler=self.train_sampler, collate_fn=collate_fn)
        self.dev_loader = DataLoader(dev_set, batch_size=64, sampler=dev_sampler,
                                     collate_fn=collate_fn)

        accum = args.gradient_accumulation_steps
        no_decay = ("bias", "LayerNorm.weight")
        groups = [
            {"params": [p for n, p in model.named_parameters() if not any(k in n for k in no_decay)],
             "weight_decay": args.weight_decay},
            {"params": [p for n, p in model.named_parameters() if any(k in n for k in no_decay)],
             "weight_decay": 0.0},
        ]
        # global batch = per_device * accum * world_size -> linear lr scaling over workers
        optimizer = torch.optim.AdamW(groups, lr=args.learning_rate * self.world_size)
        self.optimizer = hvd.DistributedOptimizer(
            optimizer, named_parameters=model.named_parameters(),
            backward_passes_per_step=accum,
            compression=hvd.Compression.fp16 if args.fp16_allreduce else hvd.Compression.none)
        steps_per_epoch = math.ceil(len(self.train_loader) / accum)
        total = steps_per_epoch * args.num_train_epochs
        self.scheduler = get_linear_schedule_with_warmup(
            self.optimizer, int(args.warmup_ratio * total), total)

        self.global_step = 0
        self.best_f1 = -1.0
        last = self._latest_checkpoint()
        if last is not None and self.rank == 0:
            self._load(last)
        hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)
        self.global_step = hvd.broadcast_object(self.global_step, root_rank=0, name="global_step")
        self.best_f1 = hvd.broadcast_object(self.best_f1, root_rank=0, name="best_f1")

    # -- checkpoints ----------------------------------------------------------
    def _latest_checkpoint(self):
        ckpts = sorted(glob.glob(os.path.join(self.args.output_dir, "checkpoint-*.pt")),
                       key=lambda p: int(p.rsplit("-", 1)[1][:-3]))
        return ckpts[-1] if ckpts else None

    def _load(self, path):
        state = torch.load(path, map_location="cpu")
        self.model.load_state_dict(state["model"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.scheduler.load_state_dict(state["scheduler"])
        self.global_step = state["global_step"]
        self.best_f1 = state["best_f1"]
        logger.info("resumed from %s at step %d", path, self.global_step)

    def save(self, name):
        if self.local_rank != 0:
            return
        os.makedirs(self.args.output_dir, exist_ok=True)
        torch.save({"model": self.model.state_dict(),
                    "optimizer": self.optimizer.state_dict(),
                    "scheduler": self.scheduler.state_dict(),
                    "global_step": self.global_step,
                    "best_f1": self.best_f1},
                   os.path.join(self.args.output_dir, name))

    # -- loops ----------------------------------------------------------------
    def train(self):
        args = self.args
        accum = args.gradient_accumulation_steps
        start_epoch = self.global_step // math.ceil(len(self.train_loader) / accum)
        for epoch in range(start_epoch, args.num_train_epochs):
            self.train_sampler.set_epoch(epoch)
            self.model.train()
            for step, batch in enumerate(self.train_loader):
                batch = {k: v.to(self.device) for k, v in batch.items()}
                loss = self.model(**batch).loss / accum
                loss.backward()
                if (step + 1) % accum != 0 and step + 1 != len(self.train_loader):
                    continue
                self.optimizer.synchronize()
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), args.max_grad_norm)
                with self.optimizer.skip_synchronize():
                    self.optimizer.step()
                self.scheduler.step()
                self.optimizer.zero_grad()
                self.global_step += 1
                if self.rank == 0 and self.global_step % args.logging_steps == 0:
                    logger.info("step %d loss %.4f lr %.3e", self.global_step,
                                loss.item() * accum, self.scheduler.get_last_lr()[0])
                if self.global_step % args.save_steps == 0:
                    self.save(f"checkpoint-{self.global_step}.pt")
            f1 = self.evaluate()
            if self.rank == 0:
                logger.info("epoch %d dev span-F1 %.4f", epoch, f1)
            if f1 > self.best_f1:
                self.best_f1 = f1
                self.save("best.pt")

    @torch.no_grad()
    def evaluate(self):
        self.model.eval()
        gold, pred = [], []
        for batch in self.dev_loader:
            batch = {k: v.to(self.device) for k, v in batch.items()}
            logits = self.model(input_ids=batch["input_ids"],
                                attention_mask=batch["attention_mask"]).logits
            for p_row, l_row in zip(logits.argmax(-1).tolist(), batch["labels"].tolist()):
                keep = [(p, l) for p, l in zip(p_row, l_row) if l != -100]
                pred.append([self.id2label[p] for p, _ in keep])
                gold.append([self.id2label[l] for _, l in keep])
        self.model.train()
        # every rank scores the predictions of all ranks
        gold = sum(hvd.allgather_object(gold, name="dev_gold"), [])
        pred = sum(hvd.allgather_object(pred, name="dev_pred"), [])
        return span_f1(gold, pred)
