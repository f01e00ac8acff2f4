import tensorflow as tf

xent = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)


def mixup(images, labels, num_classes, alpha):
    onehot = tf.one_hot(labels, num_classes)
    lam = tf.random.uniform([], 0.0, 1.0) if alpha > 0 else 1.0
    lam = tf.maximum(lam, 1.0 - lam)
    idx = tf.random.shuffle(tf.range(tf.shape(images)[0]))
    return lam * images + (1 - lam) * tf.gather(images, idx), lam * onehot + (1 - lam) * tf.gather(onehot, idx)


def build_train_step(model, optimizer, cfg):
    soft_xent = tf.keras.losses.CategoricalCrossentropy(from_logits=True)

    @tf.function
    def step(images, labels):
        images, targets = mixup(images, labels, cfg.num_classes, cfg.mixup_alpha)
        with tf.GradientTape() as tape:
            loss = soft_xent(targets, model(images, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        grads, _ = tf.clip_by_global_norm(grads, 5.0)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    return step


@tf.function
def eval_step(model, images, labels):
    pred = tf.argmax(model(images, training=False), axis=-1, output_type=tf.int32)
    return tf.reduce_sum(tf.cast(pred == labels, tf.float32)), tf.cast(tf.size(labels), tf.float32)
