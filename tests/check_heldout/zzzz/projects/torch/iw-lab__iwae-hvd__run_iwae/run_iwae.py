# IWAE (Burda et al. 2015) reproduction, multi-worker via horovod
#   horovodrun -np 4 python run_iwae.py --model iwae --k 50
import os
import json
import torch
import horovod.torch as hvd

from iwae import flags, distributed as D
from iwae.loaders import mnist_loaders
from iwae.networks import IWAE
from iwae.bounds import loss_fn, test_ll


def burda_schedule(args):
    # stage i: 3**i passes with lr = lr * 10**(-i/7)
    for i in range(args.stages):
        yield i, 3 ** i, args.lr * 10 ** (-i / 7.0)


def main():
    args = flags.get_args()
    dev = D.init()
    torch.manual_seed(args.seed)
    train_loader, test_loader, sampler = mnist_loaders(args.data, args.batch_size, D.rank(), D.world(), args.seed)

    model = IWAE().to(dev)
    model.train_mean.copy_(train_loader.dataset.tensors[0].mean(0).to(dev))
    opt = torch.optim.Adam(model.parameters(), lr=args.lr * D.world(), betas=(0.9, 0.999), eps=1e-4)
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
    D.sync_model(model, opt)

    epoch = 0
    for stage, n_passes, lr in burda_schedule(args):
        for g in opt.param_groups:
            g["lr"] = lr * D.world()
        for _ in range(n_passes):
            sampler.set_epoch(epoch)
            model.train()
            tot, cnt = 0.0, 0
            for (x,) in train_loader:
                x = torch.bernoulli(x.to(dev))
                loss = loss_fn(model, x, args.model, args.k)
                opt.zero_grad()
                loss.backward()
                opt.step()
                tot += loss.item(); cnt += 1
            epoch += 1
            avg = D.reduce_mean(tot / max(cnt, 1), cnt)
            if D.rank() == 0:
                print(f"stage {stage} epoch {epoch} -bound {avg:.3f}", flush=True)

        # eval on a test subset, split over workers
        model.eval()
        lls, seen = 0.0, 0
        for (x,) in test_loader:
            if seen * D.world() >= args.eval_n:
                break
            x = torch.bernoulli(x.to(dev))
            lls += test_ll(model, x, args.k_eval).sum().item()
            seen += x.size(0)
        ll = D.reduce_mean(lls / max(seen, 1), seen)
        if D.rank() == 0:
            print(f"== stage {stage}: test log p(x) ~= {ll:.3f} (k={args.k_eval})", flush=True)
            os.makedirs(args.outdir, exist_ok=True)
            torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "stage": stage, "epoch": epoch},
                       os.path.join(args.outdir, f"{args.model}_k{args.k}.pt"))
            with open(os.path.join(args.outdir, "log.jsonl"), "a") as f:
                f.write(json.dumps({"stage": stage, "epoch": epoch, "test_ll": ll}) + "\n")


if __name__ == "__main__":
    main()
