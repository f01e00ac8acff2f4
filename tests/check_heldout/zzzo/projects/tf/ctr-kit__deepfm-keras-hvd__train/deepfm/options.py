import argparse

N_DENSE, N_SPARSE = 13, 26


def build_parser():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="/data/criteo/tfrecords")
    p.add_argument("--train_days", default="day_0,day_1,day_2,day_3,day_4,day_5")
    p.add_argument("--valid_day", default="day_6")
    p.add_argument("--vocab_size", type=int, default=1_000_000)
    p.add_argument("--k", type=int, default=16)
    p.add_argument("--dnn", type=int, nargs="+", default=[400, 400, 400])
    p.add_argument("--batch_size", type=int, default=2048)
    p.add_argument("--lr", type=float, default=5e-4)
    p.add_argument("--scale_lr", type=int, default=1, help="multiply lr by the number of GPUs")
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--steps_per_epoch", type=int, default=20000)
    p.add_argument("--ckpt_dir", default="/shared/deepfm/ckpt")
    return p
