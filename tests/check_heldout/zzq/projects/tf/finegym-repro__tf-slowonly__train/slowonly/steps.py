import tensorflow as tf
import horovod.tensorflow as hvd

ce = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)


def make_train_step(model, optimizer, aux_weight=0.5):
    @tf.function
    def train_step(x, elements, events):
        with tf.GradientTape(persistent=True) as tape:
            element_logits, event_logits = model(x, training=True)
            main_loss = ce(elements, element_logits)
            aux_loss = aux_weight * ce(events, event_logits)
        dist_tape = hvd.DistributedGradientTape(tape)
        main_vars = model.main_variables
        grads = dist_tape.gradient(main_loss, main_vars)
        aux_vars = model.event_head.trainable_variables
        aux_grads = tape.gradient(aux_loss, aux_vars)
        optimizer.apply_gradients(zip(grads + aux_grads, main_vars + aux_vars))
        del tape
        return main_loss, aux_loss
    return train_step


def evaluate(model, dataset):
    """Element top-1 and event top-1 over the given dataset."""
    acc_el = tf.keras.metrics.SparseCategoricalAccuracy()
    acc_ev = tf.keras.metrics.SparseCategoricalAccuracy()
    for x, elements, events in dataset:
        el_logits, ev_logits = model(x, training=False)
        acc_el.update_state(elements, el_logits)
        acc_ev.update_state(events, ev_logits)
    return float(acc_el.result()), float(acc_ev.result())
