import tensorflow as tf
import horovod.tensorflow as hvd

_xent = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction='none')


def masked_loss(real, pred):
    mask = tf.cast(tf.math.not_equal(real, 0), pred.dtype)
    return tf.reduce_sum(_xent(real, pred) * mask), tf.reduce_sum(mask)


def tf_ratio_at(epoch, start, end, epochs):
    if epochs <= 1:
        return start
    return start + (end - start) * epoch / (epochs - 1)


def _decode(encoder, decoder, src, tgt, start_id, ratio):
    enc_out, hidden = encoder(src)
    dec_in = tf.fill([tf.shape(src)[0], 1], start_id)
    tot, cnt = 0.0, 0.0
    for t in range(1, tgt.shape[1]):
        logits, hidden, _ = decoder(dec_in, hidden, enc_out)
        l, c = masked_loss(tgt[:, t], logits)
        tot += l
        cnt += c
        use_gold = tf.random.uniform([]) < ratio
        pred = tf.cast(tf.argmax(logits, -1), tgt.dtype)
        dec_in = tf.expand_dims(tf.where(use_gold, tgt[:, t], pred), 1)
    return tot, cnt


def train_step_fn(encoder, decoder, optimizer, start_id, clip=5.0):
    @tf.function
    def train_step(src, tgt, ratio, first_batch):
        with tf.GradientTape() as tape:
            tot, cnt = _decode(encoder, decoder, src, tgt, start_id, ratio)
            loss = tot / cnt
        tape = hvd.DistributedGradientTape(tape)
        variables = encoder.trainable_variables + decoder.trainable_variables
        grads = tape.gradient(loss, variables)
        grads, _ = tf.clip_by_global_norm(grads, clip)
        optimizer.apply_gradients(zip(grads, variables))
        if first_batch:
            hvd.broadcast_variables(encoder.variables + decoder.variables, root_rank=0)
            hvd.broadcast_variables(optimizer.variables, root_rank=0)
        return loss
    return train_step


def evaluate(encoder, decoder, ds, start_id):
    tot, cnt = 0.0, 0.0
    for src, tgt in ds:
        l, c = _decode(encoder, decoder, src, tgt, start_id, 1.0)
        tot += float(l)
        cnt += float(c)
    sums = hvd.allreduce(tf.constant([tot, cnt], tf.float64), op=hvd.Sum, name='val_sums')
    return float(sums[0] / sums[1])


def translate(encoder, decoder, sentence, src_codec, tgt_codec):
    src = tf.constant(src_codec.encode([sentence]))
    enc_out, hidden = encoder(src)
    dec_in = tf.constant([[tgt_codec.start_id]])
    out = []
    for _ in range(tgt_codec.max_len):
        logits, hidden, _ = decoder(dec_in, hidden, enc_out)
        i = int(tf.argmax(logits[0]))
        if i == tgt_codec.end_id:
            break
        out.append(i)
        dec_in = tf.constant([[i]])
    return tgt_codec.decode(out)
