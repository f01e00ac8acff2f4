import os

import tensorflow as tf


def load_vocab(cfg, rank):
    """Vocabulary built once from the training text, cached on disk by rank 0."""
    if not os.path.exists(cfg.vocab_file):
        vec = tf.keras.layers.TextVectorization(max_tokens=cfg.vocab_size, standardize=None,
                                                output_mode="int")
        text = tf.data.TextLineDataset([cfg.train_src, cfg.train_tgt]).batch(4096)
        vec.adapt(text)
        vocab = vec.get_vocabulary()
        if rank == 0:
            with open(cfg.vocab_file, "w") as f:
                f.write("\n".join(vocab[2:]))
        return vocab[2:]
    with open(cfg.vocab_file) as f:
        return f.read().split("\n")


def make_lookup(vocab):
    # ids: 0 pad, 1 <s>, 2 </s>, 3 unk, then the vocabulary
    return tf.keras.layers.StringLookup(vocabulary=["<s>", "</s>"] + vocab, mask_token="",
                                        oov_token="[UNK]", num_oov_indices=1)


def encode_pairs(src_path, tgt_path, lookup, max_len):
    def enc(s, t):
        s = lookup(tf.strings.split(s))[: max_len - 1]
        t = lookup(tf.strings.split(t))[: max_len - 2]
        s = tf.concat([s, [2]], 0)
        t = tf.concat([[1], t, [2]], 0)
        return s, t
    ds = tf.data.Dataset.zip((tf.data.TextLineDataset(src_path), tf.data.TextLineDataset(tgt_path)))
    return ds.map(lambda s, t: enc(s, t), num_parallel_calls=tf.data.AUTOTUNE)


def token_bucketed(ds, max_tokens, max_len):
    bounds = [8, 16, 24, 32, 48]
    sizes = [max(1, max_tokens // b) for b in bounds + [max_len + 1]]
    ds = ds.bucket_by_sequence_length(lambda s, t: tf.maximum(tf.shape(s)[0], tf.shape(t)[0]),
                                      bounds, sizes, padded_shapes=([None], [None]))
    return ds.map(lambda s, t: ((s, t[:, :-1]), t[:, 1:]))
