import argparse


def parse_flags():
    p = argparse.ArgumentParser(description="pangu-lite: 3D earth-specific transformer, small")
    p.add_argument("--surface", default="/ibex/ai/era5_025/surface.npy", help="(T, lat, lon, 4)")
    p.add_argument("--upper", default="/ibex/ai/era5_025/upper.npy", help="(T, lev, lat, lon, 5)")
    p.add_argument("--stats", default="/ibex/ai/era5_025/stats.npz")
    p.add_argument("--train-steps", type=int, default=0, help="0: use all")
    p.add_argument("--first-valid-index", type=int, default=52584)
    p.add_argument("--lead", type=int, default=1, help="6h steps per sample")
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--lr", type=float, default=5e-4)
    p.add_argument("--warmup", type=int, default=2000)
    p.add_argument("--total-steps", type=int, default=200000)
    p.add_argument("--embed", type=int, default=96)
    p.add_argument("--save-dir", default="./pangu_ckpt")
    p.add_argument("--save-every", type=int, default=2000)
    p.add_argument("--eval-every", type=int, default=5000)
    return p.parse_args()
