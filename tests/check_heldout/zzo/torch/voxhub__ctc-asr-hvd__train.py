"""CTC acoustic model training (BiLSTM over log-mels), multi-GPU via Horovod."""
import argparse
import dataclasses
import logging
import os

import horovod.torch as hvd
import torch
import torch.nn.functional as F

from asr.config import TrainConfig
from asr.data import DistributedBucketSampler, FeatureDataset, collate, load_manifest
from asr.model import BiLSTMCTC
from asr.text import CharTokenizer, edit_distance

log = logging.getLogger("asr")


def parse_config():
    parser = argparse.ArgumentParser()
    for field in dataclasses.fields(TrainConfig):
        parser.add_argument("--" + field.name.replace("_", "-"), type=field.type, default=field.default)
    return TrainConfig(**vars(parser.parse_args()))


def warmup_linear_decay(cfg):
    def fn(step):
        if step < cfg.warmup_steps:
            return (step + 1) / cfg.warmup_steps
        return max(0.0, (cfg.total_steps - step) / (cfg.total_steps - cfg.warmup_steps))
    return fn


@torch.no_grad()
def evaluate(model, loader, tokenizer):
    model.eval()
    errors, words = 0, 0
    for feats, feat_lens, _, _, texts in loader:
        log_probs, out_lens = model(feats.cuda(), feat_lens.cuda())
        best = log_probs.argmax(-1).cpu()
        for ids, n, ref in zip(best, out_lens.cpu(), texts):
            hyp = tokenizer.ctc_decode(ids[:n].tolist())
            errors += edit_distance(hyp.split(), ref.lower().split())
            words += len(ref.split())
    model.train()
    return errors / max(words, 1)


def main():
    cfg = parse_config()
    hvd.init()
    torch.cuda.set_device(hvd.local_rank())
    torch.manual_seed(cfg.seed)
    logging.basicConfig(level=logging.INFO if hvd.rank() == 0 else logging.WARNING,
                        format="%(asctime)s %(message)s")

    train_rows, valid_rows = load_manifest(cfg.train_manifest), load_manifest(cfg.valid_manifest)
    tokenizer = CharTokenizer.from_transcripts(text for _, _, text in train_rows)
    train_set, valid_set = FeatureDataset(train_rows, tokenizer), FeatureDataset(valid_rows, tokenizer)

    train_sampler = DistributedBucketSampler([r[1] for r in train_rows], cfg.batch_size,
                                             num_replicas=hvd.size(), rank=hvd.rank(), seed=cfg.seed)
    train_loader = torch.utils.data.DataLoader(train_set, batch_sampler=train_sampler, collate_fn=collate,
                                               num_workers=4, pin_memory=True)
    valid_sampler = torch.utils.data.distributed.DistributedSampler(
        valid_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    valid_loader = torch.utils.data.DataLoader(valid_set, batch_size=cfg.batch_size, sampler=valid_sampler,
                                               collate_fn=collate)

    model = BiLSTMCTC(cfg.n_mels, len(tokenizer), cfg.hidden, cfg.layers).cuda()
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr * hvd.size(), weight_decay=1e-2)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         compression=hvd.Compression.fp16)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, warmup_linear_decay(cfg))
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    best_wer = float("inf")
    for epoch in range(cfg.epochs):
        train_sampler.set_epoch(epoch)
        for step, (feats, feat_lens, labels, label_lens, _) in enumerate(train_loader):
            log_probs, out_lens = model(feats.cuda(), feat_lens.cuda())
            loss = F.ctc_loss(log_probs.transpose(0, 1), labels.cuda(), out_lens, label_lens.cuda(),
                              zero_infinity=True)
            optimizer.zero_grad()
            loss.backward()
            optimizer.synchronize()
            torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.grad_clip)
            with optimizer.skip_synchronize():
                optimizer.step()
            scheduler.step()
            if step % 200 == 0:
                log.info("epoch %d step %d ctc %.3f", epoch, step, loss.item())

        wer = evaluate(model, valid_loader, tokenizer)
        if hvd.rank() == 0:
            log.info("epoch %d dev WER %.2f%%", epoch, 100 * wer)
            os.makedirs(cfg.out_dir, exist_ok=True)
            torch.save({"model": model.state_dict(), "chars": tokenizer.chars, "epoch": epoch},
                       os.path.join(cfg.out_dir, "last.pt"))
            if wer < best_wer:
                best_wer = wer
                torch.save(model.state_dict(), os.path.join(cfg.out_dir, "best.pt"))


if __name__ == "__main__":
    main()
