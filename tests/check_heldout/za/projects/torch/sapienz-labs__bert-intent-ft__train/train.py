"""Fine-tune the intent encoder on the support-ticket intents.

    horovodrun -np 8 python train.py --config configs/intent.yaml amp=false epochs=2
"""
import argparse
import logging

import horovod.torch as hvd

from intentft.config import load_config
from intentft.data import build_loaders
from intentft.dist import is_main, setup
from intentft.model import IntentEncoder
from intentft.trainer import Trainer

log = logging.getLogger("intentft")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="configs/intent.yaml")
    ap.add_argument("overrides", nargs="*", help="key=value pairs applied over the YAML file")
    args = ap.parse_args()
    cfg = load_config(args.config, args.overrides)

    device = setup(cfg.seed)
    logging.basicConfig(level=logging.INFO if is_main() else logging.WARNING,
                        format="%(asctime)s %(levelname)s %(message)s")

    # the global batch is fixed by the config (lr was tuned for it); each worker takes its share
    per_rank_batch = cfg.global_batch_size // hvd.size()
    train_loader, dev_loader, vocab_size, n_labels = build_loaders(cfg, per_rank_batch, hvd.rank(), hvd.size())
    log.info("workers=%d per-rank batch=%d steps/epoch=%d", hvd.size(), per_rank_batch, len(train_loader))

    model = IntentEncoder(vocab_size, n_labels, cfg.d_model, cfg.n_layers, cfg.n_heads, cfg.max_len).to(device)
    trainer = Trainer(model, cfg, train_loader, dev_loader, device)

    best = 0.0
    for epoch in range(cfg.epochs):
        train_loss = trainer.train_epoch(epoch)
        dev_loss, dev_acc = trainer.evaluate()
        log.info("epoch %d train_loss %.4f dev_loss %.4f dev_acc %.4f", epoch, train_loss, dev_loss, dev_acc)
        if dev_acc > best:
            best = dev_acc
            trainer.save(epoch)
    log.info("best dev acc %.4f", best)


if __name__ == "__main__":
    main()
