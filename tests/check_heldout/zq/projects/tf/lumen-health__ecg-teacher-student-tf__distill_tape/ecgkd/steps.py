import tensorflow as tf
import horovod.tensorflow as hvd

_ce = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)


def make_teacher_step(model, opt):
    @tf.function
    def step(x, y):
        with tf.GradientTape() as tape:
            loss = _ce(y, model(x, training=True))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss
    return step


def make_student_step(student, teacher, opt, temperature, alpha=0.5):
    kl = tf.keras.losses.KLDivergence()

    @tf.function
    def step(x, y):
        t_logits = teacher(x, training=False)
        with tf.GradientTape() as tape:
            s_logits = student(x, training=True)
            soft = kl(tf.nn.softmax(t_logits / temperature), tf.nn.softmax(s_logits / temperature))
            loss = alpha * soft * temperature ** 2 + (1 - alpha) * _ce(y, s_logits)
        grads = tape.gradient(loss, student.trainable_variables)
        opt.apply_gradients(zip(grads, student.trainable_variables))
        return loss
    return step
