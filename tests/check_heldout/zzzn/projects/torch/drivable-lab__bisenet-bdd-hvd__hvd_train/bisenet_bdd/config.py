import argparse


def build_parser():
    p = argparse.ArgumentParser(description="BiSeNetV2 / BDD100K drivable area")
    p.add_argument("--np", type=int, default=0,
                   help="spawn this many workers with horovod.run (0: already under horovodrun/mpirun)")
    p.add_argument("--root", default="/data/bdd100k")
    p.add_argument("--task", default="drivable", choices=["drivable", "sem_seg"])
    p.add_argument("--size", type=int, nargs=2, default=[360, 640])
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--iters", type=int, default=80000)
    p.add_argument("--lr", type=float, default=0.005)
    p.add_argument("--head-lr-mult", type=float, default=10.0)
    p.add_argument("--eval-every", type=int, default=4000)
    p.add_argument("--log-every", type=int, default=50)
    p.add_argument("--ckpt-dir", default="./ckpt/bisenet_bdd")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--dummy", action="store_true")
    return p


NUM_CLASSES = {"drivable": 3, "sem_seg": 19}
