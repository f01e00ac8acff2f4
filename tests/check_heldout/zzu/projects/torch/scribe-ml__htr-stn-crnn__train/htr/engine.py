import logging

import torch
import torch.nn as nn
import horovod.torch as hvd

from .checkpoint import load_checkpoint, save_checkpoint
from .model import HTRModel

logger = logging.getLogger(__name__)


def char_errors(pred, ref):
    d = list(range(len(ref) + 1))
    for i in range(1, len(pred) + 1):
        prev, d[0] = d[0], i
        for j in range(1, len(ref) + 1):
            cur = min(d[j] + 1, d[j - 1] + 1, prev + (pred[i - 1] != ref[j - 1]))
            prev, d[j] = d[j], cur
    return d[-1]


class Trainer:
    def __init__(self, cfg, charset, train_loader, val_loader, train_sampler):
        self.cfg, self.charset = cfg, charset
        self.train_loader, self.val_loader, self.sampler = train_loader, val_loader, train_sampler
        self.device = torch.device("cuda", cfg.local_rank) if torch.cuda.is_available() else torch.device("cpu")
        self.model = HTRModel(len(charset) + 1).to(self.device)
        rec_params = list(self.model.recognizer.named_parameters())
        opt = torch.optim.AdamW([p for _, p in rec_params], lr=cfg.lr * cfg.world_size,
                                weight_decay=cfg.weight_decay)
        self.optimizer = hvd.DistributedOptimizer(
            opt, named_parameters=[("recognizer." + n, p) for n, p in rec_params])
        # the STN is sensitive to large steps; keep it on its own, slower optimizer
        self.stn_optimizer = torch.optim.SGD(self.model.stn.parameters(), lr=cfg.stn_lr, momentum=0.9)
        self.ctc = nn.CTCLoss(zero_infinity=True)
        self.start_epoch = 0
        if cfg.resume:
            ckpt = load_checkpoint(cfg.resume)
            self.model.load_state_dict(ckpt["model"])
            self.start_epoch = ckpt["epoch"] + 1
        hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(self.optimizer, root_rank=0)

    def train_epoch(self, epoch):
        self.model.train()
        self.sampler.set_epoch(epoch)
        for it, (x, tgt, lens, _) in enumerate(self.train_loader):
            logits = self.model(x.to(self.device)).log_softmax(-1).permute(1, 0, 2)
            in_lens = torch.full((logits.size(1),), logits.size(0), dtype=torch.long)
            loss = self.ctc(logits, tgt, in_lens, lens)
            self.optimizer.zero_grad()
            self.stn_optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            self.stn_optimizer.step()
            if it % 200 == 0 and hvd.rank() == 0:
                logger.info("epoch %d it %d ctc %.3f", epoch, it, loss.item())

    @torch.no_grad()
    def evaluate(self):
        self.model.eval()
        errs = chars = 0
        for x, _, _, texts in self.val_loader:
            ids = self.model(x.to(self.device)).argmax(-1).cpu().tolist()
            for seq, ref in zip(ids, texts):
                out, prev = [], 0
                for k in seq:
                    if k and k != prev:
                        out.append(self.charset[k - 1])
                    prev = k
                errs += char_errors("".join(out), ref)
                chars += len(ref)
        tot = hvd.allreduce(torch.tensor([errs, chars], dtype=torch.float64), op=hvd.Sum)
        return (tot[0] / tot[1].clamp(min=1)).item()

    def fit(self):
        for epoch in range(self.start_epoch, self.cfg.epochs):
            self.train_epoch(epoch)
            cer = self.evaluate()
            if hvd.rank() == 0:
                logger.info("epoch %d val CER %.4f", epoch, cer)
            if self.cfg.rank == 0 and epoch % self.cfg.save_every == 0:
                save_checkpoint(self.cfg.out_dir, epoch, model=self.model.state_dict(),
                                optimizer=self.optimizer.state_dict(), cer=cer, charset=self.charset)
