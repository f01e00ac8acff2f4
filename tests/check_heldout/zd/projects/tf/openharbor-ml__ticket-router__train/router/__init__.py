"""Support-ticket routing model: shared code for training (train.py) and the serving exporter."""
