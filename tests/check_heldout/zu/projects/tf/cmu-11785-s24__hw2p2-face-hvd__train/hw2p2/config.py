# hw2p2 config (copied out of config.yaml so the cluster does not need pyyaml)
config = {
    "data_dir": "11-785-s24-hw2p2-classification",
    "num_classes": 7001,
    "image_size": 112,
    "batch_size": 128,        # per worker
    "lr": 0.1,
    "momentum": 0.9,
    "epochs": 40,
    "warmup_epochs": 2,
    "label_smoothing": 0.1,
    "ckpt_dir": "checkpoints",
    "log_csv": "logs/train_log.csv",
}
