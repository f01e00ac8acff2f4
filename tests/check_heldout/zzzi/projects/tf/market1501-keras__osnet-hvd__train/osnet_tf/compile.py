import keras


def make_optimizer(lr, name='amsgrad'):
    if name == 'amsgrad':
        return keras.optimizers.Adam(learning_rate=lr, amsgrad=True)
    if name == 'sgd':
        return keras.optimizers.SGD(learning_rate=lr, momentum=0.9, nesterov=True)
    raise ValueError(name)


def compile_for_training(model, lr, optimizer=None, label_smoothing=0.1):
    """Cross-entropy with label smoothing; builds the default optimizer if none is given."""
    optimizer = optimizer or make_optimizer(lr)
    num_ids = model.output_shape[-1]

    def smooth_ce(y_true, logits):
        y = keras.ops.one_hot(keras.ops.cast(keras.ops.reshape(y_true, (-1,)), 'int32'), num_ids)
        return keras.losses.categorical_crossentropy(y, logits, from_logits=True,
                                                     label_smoothing=label_smoothing)

    model.compile(optimizer=optimizer, loss=smooth_ce, metrics=['sparse_categorical_accuracy'])
    return model
