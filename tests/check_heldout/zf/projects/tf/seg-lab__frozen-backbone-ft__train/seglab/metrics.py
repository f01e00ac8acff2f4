import keras


class LogitsMeanIoU(keras.metrics.MeanIoU):
    """MeanIoU that takes integer masks and raw logits (argmax taken here)."""

    def __init__(self, num_classes, name="miou", ignore_class=255, **kw):
        super().__init__(num_classes=num_classes, name=name, ignore_class=ignore_class,
                         sparse_y_true=True, sparse_y_pred=False, **kw)


def stage_metrics(num_classes):
    return ["accuracy", LogitsMeanIoU(num_classes)]
