import argparse


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description="keras recipes: subclassed classifier + horovod")
    ap.add_argument("--model", default="small_cnn", choices=["small_cnn", "wide_cnn"])
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--batch-size", type=int, default=128, help="per replica")
    ap.add_argument("--base-lr", type=float, default=1e-3)
    ap.add_argument("--warmup-epochs", type=int, default=3)
    ap.add_argument("--num-train", type=int, default=2048)
    ap.add_argument("--num-val", type=int, default=512)
    ap.add_argument("--num-classes", type=int, default=10)
    ap.add_argument("--model-dir", default="./model_dir")
    ap.add_argument("--verbose", type=int, default=2)
    return ap.parse_args(argv)
