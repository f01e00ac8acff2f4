HPARAMS = {
    "batch_size": 128,
    "epochs": 5,
    "learning_rate": 3e-4,
    "hidden": [128, 64],
    "dropout": 0.1,
    "label": "churned",
    "shuffle_buffer": 10000,
}
