"""Launch CycleGAN training on several GPUs/hosts from python (no horovodrun needed).

    python launch.py -np 4 -H node1:2,node2:2 --root-a ... --root-b ...
"""
import sys
import time

import horovod


def train_fn(cfg):
    # runs inside every horovod worker
    from cgan import distributed
    from cgan.data import make_loader
    from cgan.engine import CycleGAN

    device = distributed.setup()
    loader, sampler = make_loader(cfg)
    model = CycleGAN(cfg, device)
    model.broadcast()

    for epoch in range(cfg.epochs):
        sampler.set_epoch(epoch)
        t0 = time.time()
        sums, n = {}, 0
        for i, (a, b) in enumerate(loader):
            a, b = a.to(device), b.to(device)
            logs = model.step(a, b)
            for k, v in logs.items():
                sums[k] = sums.get(k, 0.0) + v
            n += 1
        model.end_epoch()
        avg = distributed.reduce_dict({k: v / max(n, 1) for k, v in sums.items()}, "epoch%d" % epoch)
        if distributed.is_main():
            print("epoch %d  %s  (%.0fs)" % (epoch, " ".join("%s=%.4f" % kv for kv in avg.items()), time.time() - t0),
                  flush=True)
            model.save(epoch, a[:4], b[:4])
    return 0


def main(argv=None):
    from cgan.config import parse_args
    cfg = parse_args(argv)
    results = horovod.run(train_fn, args=(cfg,), np=cfg.num_proc, hosts=cfg.hosts, use_mpi=True)
    print("finished on %d workers" % len(results))


if __name__ == "__main__":
    main(sys.argv[1:])
