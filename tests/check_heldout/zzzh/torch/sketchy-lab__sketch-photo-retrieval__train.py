# Sketch-based image retrieval (SBIR) with online hard-negative re-mining.
import argparse
import itertools
import os

import torch
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd

from sbir.data import SketchPhotoTriplets
from sbir.trainer import Encoder, SBIRTrainer, logger

p = argparse.ArgumentParser()
p.add_argument("--root", default="data/sketchy_feats")
p.add_argument("--epochs", type=int, default=20)
p.add_argument("--batch-size", type=int, default=96)
p.add_argument("--lr", type=float, default=1e-3)
p.add_argument("--remine-every", type=int, default=2)
p.add_argument("--out", default="work_dirs/sbir")
args = p.parse_args()


def main():
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    train_set = SketchPhotoTriplets(args.root, "train")
    test_set = SketchPhotoTriplets(args.root, "test")
    sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank())
    loader = DataLoader(train_set, batch_size=args.batch_size, sampler=sampler, drop_last=True)

    sketch_enc = Encoder(train_set.sketch.shape[1]).to(device)
    photo_enc = Encoder(train_set.photo.shape[1]).to(device)
    params = itertools.chain(sketch_enc.named_parameters(prefix="sketch"),
                             photo_enc.named_parameters(prefix="photo"))
    opt = torch.optim.SGD(list(sketch_enc.parameters()) + list(photo_enc.parameters()),
                          lr=args.lr * hvd.size(), momentum=0.9)
    opt = hvd.DistributedOptimizer(opt, named_parameters=params)
    for enc in (sketch_enc, photo_enc):
        hvd.broadcast_parameters(enc.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)

    trainer = SBIRTrainer(sketch_enc, photo_enc, opt, sampler, device)
    for epoch in range(args.epochs):
        if epoch % args.remine_every == 0:
            train_set.remine(*trainer.embed_all(train_set))
        loss = trainer.train_epoch(loader, epoch)
        mAP = trainer.map_at_all(test_set)
        logger.info("epoch %d loss %.4f test mAP@all %.4f", epoch, loss, mAP)
        trainer.save(os.path.join(args.out, "latest.pth"), epoch)


if __name__ == "__main__":
    main()
