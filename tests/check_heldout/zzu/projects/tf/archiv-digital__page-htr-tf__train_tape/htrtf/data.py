import tensorflow as tf

HEIGHT, WIDTH = 64, 512


def read_lines(list_file):
    """Transkribus export: `<line image>|<transcription>` per line, sorted for a stable order."""
    with open(list_file, encoding="utf-8") as fh:
        rows = sorted(tuple(l.rstrip("\n").split("|", 1)) for l in fh if "|" in l)
    return rows


def worker_slice(rows, rank, size):
    """Equal-length strided slice for this worker (the tail that does not divide evenly is dropped)."""
    usable = len(rows) // size * size
    return rows[:usable][rank::size]


def encode_texts(texts, charset, max_len=128):
    table = tf.lookup.StaticHashTable(
        tf.lookup.KeyValueTensorInitializer(tf.constant(charset), tf.range(1, len(charset) + 1)), default_value=0)
    chars = tf.strings.unicode_split(tf.constant(texts), "UTF-8")
    return tf.ragged.map_flat_values(table.lookup, chars).to_tensor(0, shape=[None, max_len])


def line_dataset(rows, charset, batch, training, seed=11):
    paths = [r[0] for r in rows]
    labels = encode_texts([r[1] for r in rows], charset)

    def load(p, y):
        img = tf.io.decode_png(tf.io.read_file(p), channels=1)
        img = tf.image.resize_with_pad(tf.image.convert_image_dtype(img, tf.float32), HEIGHT, WIDTH)
        return 1.0 - img, y

    ds = tf.data.Dataset.from_tensor_slices((paths, labels))
    if training:
        ds = ds.shuffle(len(paths), seed=seed, reshuffle_each_iteration=True)
    return ds.map(load, num_parallel_calls=tf.data.AUTOTUNE).batch(batch, drop_remainder=True).prefetch(4)
