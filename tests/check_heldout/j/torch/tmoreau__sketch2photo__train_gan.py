"""pix2pix-style sketch -> photo translation, one process per GPU with Horovod.

    mpirun -np 8 -bind-to none -x NCCL_DEBUG=INFO python train_gan.py --data data/shoes
"""
import argparse
import os

import torch
import torch.nn.functional as F
import horovod.torch as hvd
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from s2p.data import PairedSketches
from s2p.networks import PatchDiscriminator, UNetGenerator
from s2p.utils import save_checkpoint, save_samples


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="data/shoes")
    p.add_argument("--ckpt-dir", default="checkpoints/s2p")
    p.add_argument("--sample-dir", default="samples/s2p")
    p.add_argument("--epochs", type=int, default=200)
    p.add_argument("--batch-size", type=int, default=8)
    p.add_argument("--lr-g", type=float, default=2e-4)
    p.add_argument("--lr-d", type=float, default=2e-4)
    p.add_argument("--lambda-l1", type=float, default=100.0)
    p.add_argument("--image-size", type=int, default=128)
    return p.parse_args()


def main():
    args = get_args()
    hvd.init()
    torch.cuda.set_device(hvd.local_rank())
    torch.backends.cudnn.benchmark = True

    dataset = PairedSketches(args.data, size=args.image_size)
    sampler = DistributedSampler(dataset, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)
    loader = DataLoader(dataset, batch_size=args.batch_size, sampler=sampler, num_workers=4,
                        pin_memory=True, drop_last=True)

    netG = UNetGenerator().cuda()
    netD = PatchDiscriminator().cuda()

    gen_opt = torch.optim.Adam(netG.parameters(), lr=args.lr_g * hvd.size(), betas=(0.5, 0.999))
    critic_opt = torch.optim.Adam(netD.parameters(), lr=args.lr_d * hvd.size(), betas=(0.5, 0.999))
    gen_opt = hvd.DistributedOptimizer(gen_opt, named_parameters=netG.named_parameters(prefix="G"))

    for net, opt in ((netG, gen_opt), (netD, critic_opt)):
        hvd.broadcast_parameters(net.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(opt, root_rank=0)

    for epoch in range(1, args.epochs + 1):
        sampler.set_epoch(epoch)
        sums = torch.zeros(3)
        for step, (sketch, photo) in enumerate(loader):
            sketch, photo = sketch.cuda(non_blocking=True), photo.cuda(non_blocking=True)
            fake = netG(sketch)

            # discriminator
            critic_opt.zero_grad()
            d_real = netD(sketch, photo)
            d_fake = netD(sketch, fake.detach())
            loss_d = 0.5 * (F.binary_cross_entropy_with_logits(d_real, torch.ones_like(d_real)) +
                            F.binary_cross_entropy_with_logits(d_fake, torch.zeros_like(d_fake)))
            loss_d.backward()
            critic_opt.step()

            # generator
            gen_opt.zero_grad()
            d_fake = netD(sketch, fake)
            loss_adv = F.binary_cross_entropy_with_logits(d_fake, torch.ones_like(d_fake))
            loss_l1 = F.l1_loss(fake, photo)
            loss_g = loss_adv + args.lambda_l1 * loss_l1
            loss_g.backward()
            gen_opt.step()

            sums += torch.tensor([loss_d.item(), loss_adv.item(), loss_l1.item()])

        means = hvd.allreduce(sums / (step + 1), name="epoch_losses")
        if hvd.rank() == 0:
            print(f"epoch {epoch}: D {means[0]:.3f}  G_adv {means[1]:.3f}  L1 {means[2]:.4f}", flush=True)
            save_samples(os.path.join(args.sample_dir, f"{epoch:04d}.png"), sketch[:4], fake[:4].detach(), photo[:4])
        save_checkpoint(args.ckpt_dir, epoch, netG, netD, gen_opt, critic_opt)


if __name__ == "__main__":
    main()
