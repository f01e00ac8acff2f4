import os

import tensorflow as tf


def save_for_serving(model, serving_dir):
    os.makedirs(serving_dir, exist_ok=True)
    model.export(os.path.join(serving_dir, "1"))
    model.save(os.path.join(serving_dir, "model.keras"))
