import tensorflow as tf


def read_lines(path):
    with open(path, encoding="utf-8") as f:
        return [l.rstrip("\n") for l in f if l.strip()]


def read_tsv(path):
    texts, labels = [], []
    for line in read_lines(path):
        label, text = line.split("\t", 1)
        texts.append(text)
        labels.append(label)
    return texts, labels


def encoder(vocab, labels, max_len):
    vec = tf.keras.layers.TextVectorization(vocabulary=vocab, output_sequence_length=max_len,
                                            standardize="lower_and_strip_punctuation")
    lab = tf.keras.layers.StringLookup(vocabulary=labels, num_oov_indices=0)
    return vec, lab


def make_dataset(texts, labels, vec, lab, batch_size, shard=None, shuffle=False, repeat=False):
    ds = tf.data.Dataset.from_tensor_slices((texts, labels))
    if shard is not None:
        ds = ds.shard(*shard)
    if shuffle:
        ds = ds.shuffle(10000, reshuffle_each_iteration=True)
    if repeat:
        ds = ds.repeat()
    ds = ds.batch(batch_size)
    return ds.map(lambda t, l: (vec(t), lab(l)), num_parallel_calls=tf.data.AUTOTUNE).prefetch(2)
