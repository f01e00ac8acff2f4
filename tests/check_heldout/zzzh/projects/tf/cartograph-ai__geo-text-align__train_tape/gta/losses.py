import tensorflow as tf
import horovod.tensorflow as hvd


def gathered_clip_loss(tile_emb, text_emb, log_temp):
    """Local rows against the global batch (hvd.allgather has a gradient in TF)."""
    all_text = hvd.allgather(text_emb)
    all_tile = hvd.allgather(tile_emb)
    n = tf.shape(tile_emb)[0]
    labels = tf.range(n) + hvd.rank() * n
    inv_t = tf.exp(-log_temp)
    l1 = tf.keras.losses.sparse_categorical_crossentropy(labels, inv_t * tf.matmul(tile_emb, all_text, transpose_b=True), from_logits=True)
    l2 = tf.keras.losses.sparse_categorical_crossentropy(labels, inv_t * tf.matmul(text_emb, all_tile, transpose_b=True), from_logits=True)
    return tf.reduce_mean(l1 + l2) / 2
