import json
import os

import horovod.tensorflow.keras as hvd


def export_serving_assets(vec, out_dir, n_answers, seq_len):
    """Vocabulary and input spec for the serving container; written by the first worker only."""
    if hvd.rank() != 0:
        return None
    os.makedirs(out_dir, exist_ok=True)
    vocab = vec.get_vocabulary()
    with open(os.path.join(out_dir, "vocab.txt"), "w") as f:
        for token in vocab:
            f.write(token + "\n")
    spec = {
        "seq_len": seq_len,
        "vocab_size": len(vocab),
        "n_answers": n_answers,
        "standardize": "lower_and_strip_punctuation",
    }
    with open(os.path.join(out_dir, "input_spec.json"), "w") as f:
        json.dump(spec, f, indent=2)
    return spec
