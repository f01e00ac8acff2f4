import argparse

CATEGORICAL = ["user_id", "item_id", "cate_id", "brand", "shop_id", "pid", "age_level",
               "gender", "occupation", "city_level"]
NUMERIC = ["price", "user_ctr_7d", "item_ctr_7d", "hist_len"]


def get_config(argv=None):
    p = argparse.ArgumentParser("keras wide&deep (horovod)")
    p.add_argument("--train_pattern", default="gs://ctr-data/taobao/tfrecord/train/day=*/part-*.tfrecord")
    p.add_argument("--eval_pattern", default="gs://ctr-data/taobao/tfrecord/eval/part-*.tfrecord")
    p.add_argument("--train_rows", type=int, default=26_000_000)
    p.add_argument("--eval_rows", type=int, default=200_000)
    p.add_argument("--hash_bins", type=int, default=500_000)
    p.add_argument("--embed_dim", type=int, default=16)
    p.add_argument("--dnn", default="512,256,128")
    p.add_argument("--batch_size", type=int, default=4096)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--warmup_epochs", type=int, default=1)
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--model_dir", default="./wdl_model")
    return p.parse_args(argv)
