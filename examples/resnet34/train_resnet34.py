"""ResNet34 training throughput with TensorFlow 2 / Keras 3 in one process: the course's starting point.

    python examples/resnet34/train_resnet34.py --image-size 64 --num-steps 5
    python examples/resnet34/train_resnet34.py --framework torch      # train_resnet34_torch.py

train_hvd.py is this file converted to Horovod: `diff train_resnet34.py train_hvd.py` is the conversion.
Prints every step's time, images/s, loss and the time left, then the images/s of the timed steps.
"""
import sys

import resnet_common  # first: with --framework torch it runs the PyTorch twin before TensorFlow loads

resnet_common.hand_over(__file__)

from hvdkit.common.frameworks import import_quietly  # noqa: E402

tf = import_quietly("tensorflow")  # without its C++ start-up notices (TF_CPP_MIN_LOG_LEVEL=0 shows them)
import keras  # noqa: E402

from hvdkit.scale.meter import Meter  # noqa: E402
from hvdkit.tensorflow.resnet import resnet34  # noqa: E402

import resnet_data_tf  # noqa: E402


def main():
    args = resnet_common.parse_args()
    keras.utils.set_random_seed(args.seed)
    batch = args.batch_size
    samples = batch * args.total_steps
    data, n, classes = resnet_data_tf.load(args, samples)
    train = (data.shuffle(n, seed=args.seed) if args.shuffle else data).batch(batch, drop_remainder=True)
    resnet_common.check_steps(n // batch, n, batch)
    model = resnet34(classes, input_shape=(args.image_size, args.image_size, 3))
    opt = keras.optimizers.SGD(args.lr, momentum=0.9)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    meter = Meter(args.total_steps, args.warmup_steps, batch,
                  every=args.print_every)
    meter.say(resnet_common.banner(args, "tensorflow", batch,
                                   cpu=not tf.config.list_physical_devices("GPU")))
    batches = resnet_data_tf.ready(train.repeat(), args, batch)
    for x, y in batches.take(args.total_steps):
        meter.step(float(train_step(x, y)))  # float() waits for the step: the clock stops when it is done
    loss_sum, count = meter.loss_pair()
    loss = loss_sum / count
    ranks = [meter.summary()]
    fields = resnet_common.record_fields(args, "tensorflow", classes, {"tensorflow": tf.__version__,
                                                                      "keras": keras.__version__})
    meter.finish(ranks, loss, **fields)
    return 0


if __name__ == "__main__":
    sys.exit(resnet_common.run(main))
