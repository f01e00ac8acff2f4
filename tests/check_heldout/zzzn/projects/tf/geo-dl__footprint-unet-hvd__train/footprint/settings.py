import argparse


def get_settings():
    ap = argparse.ArgumentParser(description="building footprint segmentation (SpaceNet / WHU aerial)")
    ap.add_argument("--data", default="/mnt/data/whu_building/tiles")
    ap.add_argument("--tile-size", type=int, default=512)
    ap.add_argument("--crop", type=int, default=384)
    ap.add_argument("--batch", type=int, default=12)
    ap.add_argument("--epochs", type=int, default=80)
    ap.add_argument("--lr", type=float, default=3e-4)
    ap.add_argument("--warmup-epochs", type=int, default=3)
    ap.add_argument("--out", default="checkpoints/footprint_unet")
    ap.add_argument("--toy", action="store_true", help="tiny random data")
    return ap.parse_args()
