import tensorflow as tf
import keras
import horovod.tensorflow as hvd


class SegTrainer:
    """Custom training loop. Gradients are averaged over workers by all-reducing the loss."""

    def __init__(self, model, optimizer, num_classes):
        self.model = model
        self.optimizer = optimizer
        self.num_classes = num_classes
        self.loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    @tf.function
    def train_step(self, images, masks, first_batch):
        with tf.GradientTape() as tape:
            logits = self.model(images, training=True)
            loss = self.loss_fn(masks, logits)
            # average the loss over all workers so every worker follows the same objective
            loss = hvd.allreduce(loss, name="train_loss")
        grads = tape.gradient(loss, self.model.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.model.trainable_variables))
        if first_batch:
            hvd.broadcast_variables(self.model.variables, root_rank=0)
            hvd.broadcast_variables(self.optimizer.variables, root_rank=0)
        return loss

    @tf.function
    def eval_step(self, images, masks):
        pred = tf.argmax(self.model(images, training=False), axis=-1, output_type=tf.int32)
        cm = tf.math.confusion_matrix(tf.reshape(masks, [-1]), tf.reshape(pred, [-1]),
                                      num_classes=self.num_classes, dtype=tf.float64)
        return cm

    def evaluate(self, dataset):
        cm = tf.zeros((self.num_classes, self.num_classes), tf.float64)
        for images, masks in dataset:
            cm += self.eval_step(images, masks)
        cm = hvd.allreduce(cm, op=hvd.Sum, name="val_cm")
        inter = tf.linalg.diag_part(cm)
        union = tf.reduce_sum(cm, 0) + tf.reduce_sum(cm, 1) - inter
        return float(tf.reduce_mean(inter / tf.maximum(union, 1.0)))
