# Search space and training defaults. Edit here, not on the command line.

SEARCH_SPACE = {
    "stem_filters": [16, 32],
    "block_type": ["resnet", "xception", "vanilla"],
    "num_blocks": [2, 3, 4],
    "kernel_size": [3, 5],
    "head_dropout": [0.0, 0.3],
    "optimizer": ["adam", "sgd"],
}

TRAINING = {
    "batch_size": 64,          # per worker
    "base_lr": {"adam": 1e-3, "sgd": 0.05},
    "search_epochs": 3,
    "final_epochs": 20,
    "num_trials": 10,
    "seed": 1337,
}
