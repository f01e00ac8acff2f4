import tensorflow as tf
import horovod.tensorflow as hvd


def span_scores(model, ds):
    """Token-level exact match and overlap F1 of the argmax span, summed over all workers."""
    em = f1 = n = 0.0
    for ids, mask, start, end in ds:
        s_logits, e_logits = model(ids, mask, training=False)
        ps = tf.argmax(s_logits, -1, output_type=tf.int32)
        pe = tf.maximum(ps, tf.argmax(e_logits, -1, output_type=tf.int32))
        start, end = tf.cast(start, tf.int32), tf.cast(end, tf.int32)
        em += float(tf.reduce_sum(tf.cast((ps == start) & (pe == end), tf.float32)))
        overlap = tf.cast(tf.maximum(0, tf.minimum(pe, end) - tf.maximum(ps, start) + 1), tf.float32)
        prec = overlap / tf.cast(pe - ps + 1, tf.float32)
        rec = overlap / tf.cast(end - start + 1, tf.float32)
        f1 += float(tf.reduce_sum(tf.math.divide_no_nan(2 * prec * rec, prec + rec)))
        n += float(tf.size(start))
    em, f1, n = hvd.allreduce(tf.constant([em, f1, n]), op=hvd.Sum, name="squad_eval").numpy()
    return em / n, f1 / n
