#!/usr/bin/env python
# WGAN-GP on CelebA 64x64, multi-GPU with horovod
#   horovodrun -np 4 python train.py --dataroot /data/celeba64
import os
import time

from wgp import options, dist_utils
from wgp.data import make_loader
from wgp.trainer import Trainer


def main():
    opt = options.parse()
    opt = dist_utils.setup(opt)
    if dist_utils.is_master():
        os.makedirs(os.path.join(opt.out, "samples"), exist_ok=True)
        print(opt)

    loader, sampler = make_loader(opt, opt.rank, opt.world)
    trainer = Trainer(opt)

    for epoch in range(trainer.start_epoch, opt.epochs):
        sampler.set_epoch(epoch)
        t0 = time.time()
        logs = trainer.train_epoch(loader, epoch)
        score = trainer.feature_score(loader)
        if dist_utils.is_master():
            print("[%d/%d] d %.4f g %.4f gp %.4f | feat-dist %.4f | %.1fs" % (
                epoch, opt.epochs, logs["d_loss"], logs["g_loss"], logs["gp"], score, time.time() - t0))
            if epoch % opt.sample_every == 0:
                trainer.save_samples(epoch)
            trainer.save(epoch)


if __name__ == "__main__":
    main()
