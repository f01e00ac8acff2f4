"""payflow transaction-classifier library (shared by train.py and the batch scorer)."""
