from keras import ops


def contrastive_loss(margin=1.0):
    def loss(same, d):
        same = ops.cast(same, d.dtype)
        return ops.mean(same * ops.square(d) + (1.0 - same) * ops.square(ops.maximum(margin - d, 0.0)))
    return loss


def pair_accuracy(threshold=0.5):
    def acc(same, d):
        return ops.mean(ops.cast(ops.equal(ops.cast(d < threshold, "float32"), ops.cast(same, "float32")), "float32"))
    acc.__name__ = "pair_acc"
    return acc
