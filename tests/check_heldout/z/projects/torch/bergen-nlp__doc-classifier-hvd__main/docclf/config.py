DEFAULTS = {
    "train_file": "data/docs_train.jsonl",
    "dev_file": "data/docs_dev.jsonl",
    "labels": ["invoice", "contract", "letter", "report", "other"],
    "global_batch": 128,       # split over the workers; lr below is tuned for this global batch
    "lr": 0.05,
    "epochs": 6,
    "buckets": 2 ** 18,
    "emb_dim": 96,
    "max_tokens": 512,
    "save_path": "models/docclf.pt",
}
