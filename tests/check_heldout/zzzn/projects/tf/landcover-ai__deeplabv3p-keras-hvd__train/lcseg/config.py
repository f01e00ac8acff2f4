import argparse

CLASSES = ["background", "building", "woodland", "water", "road"]


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data-dir", default="data/landcover.ai/output")
    ap.add_argument("--crop", type=int, default=512)
    ap.add_argument("--batch-size", type=int, default=8)
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument("--lr", type=float, default=0.007)
    ap.add_argument("--momentum", type=float, default=0.9)
    ap.add_argument("--poly-power", type=float, default=0.9)
    ap.add_argument("--workdir", default="work/deeplabv3p_landcover")
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--dry-run", action="store_true", help="random tiles, 2 epochs")
    return ap.parse_args()
