import os


def export_for_serving(model, model_dir):
    """Writes the trained model as a single .keras archive next to the checkpoints."""
    path = os.path.join(model_dir, "ctr_model.keras")
    model.save(path)
    return path
