"""Experiment settings (SHREC-16 split 10 by default)."""
CFG = {
    "dataset_dir": "datasets/shrec_16",
    "max_faces": 1500,
    "face_feats": 5,
    "num_classes": 30,
    "batch_size": 16,          # per worker
    "lr": 2e-4,
    "epochs": 200,
    "conv_channels": [64, 128, 256, 256],
    "checkpoint_dir": "checkpoints/shrec16",
    "log_dir": "logs/shrec16",
}
