"""Fine-tune an encoder for clinical note classification (MIMIC-style ICD chapter labels).

    horovodrun -np 4 python run_finetune.py --data_dir data/notes --num_train_epochs 4
"""
import logging

import horovod.torch as hvd

from clinbert.config import TrainConfig, parse_config
from clinbert.dist_utils import setup_distributed, is_main_process
from clinbert.data import load_notes, build_loaders
from clinbert.trainer import NoteClassifier, Trainer

logger = logging.getLogger(__name__)


def run(cfg: TrainConfig):
    device = setup_distributed(cfg.seed)
    logging.basicConfig(level=logging.INFO if is_main_process() else logging.ERROR)

    train_rows, eval_rows, labels = load_notes(cfg.data_dir)
    train_loader, eval_loader = build_loaders(train_rows, eval_rows, cfg)
    model = NoteClassifier(cfg.vocab_size, len(labels), cfg.hidden_size).to(device)

    trainer = Trainer(model, cfg, train_loader, eval_loader, device)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)

    best = -1.0
    for epoch in range(cfg.num_train_epochs):
        train_loader.sampler.set_epoch(epoch)
        loss = trainer.train_epoch()
        f1 = trainer.evaluate()
        logger.info("epoch=%d loss=%.4f macro_f1=%.4f", epoch, loss, f1)
        if f1 > best:
            best = f1
            trainer.save(f"{cfg.output_dir}/best.pt")
    logger.info("best macro F1 %.4f", best)


if __name__ == "__main__":
    run(parse_config())
