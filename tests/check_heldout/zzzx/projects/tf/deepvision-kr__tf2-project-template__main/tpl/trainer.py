import tensorflow as tf
import horovod.tensorflow as hvd


class BaseTrain:
    def __init__(self, model, data, optimizer, config, logger):
        self.model = model
        self.data = data
        self.optimizer = optimizer
        self.config = config
        self.logger = logger
        self.step = tf.Variable(0, dtype=tf.int64, trainable=False)
        self.ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer, step=self.step)
        self.manager = tf.train.CheckpointManager(self.ckpt, config.checkpoint_dir,
                                                  max_to_keep=config.max_to_keep)

    def train(self):
        for cur_epoch in range(self.config.num_epochs):
            self.train_epoch(cur_epoch)

    def train_epoch(self, epoch):
        raise NotImplementedError


class ConvNetTrainer(BaseTrain):
    def __init__(self, model, data, optimizer, config, logger):
        super().__init__(model, data, optimizer, config, logger)
        self.loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
        self._synced = False

    @tf.function
    def train_step(self, x, y):
        with tf.GradientTape() as tape:
            logits = self.model(x, training=True)
            loss = self.loss_fn(y, logits)
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, self.model.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.model.trainable_variables))
        acc = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, -1), y), tf.float32))
        return loss, acc

    def _sync_after_first_step(self):
        # weights + slots only exist after the first apply_gradients
        if hvd.rank() == 0:
            self.logger.print("broadcasting initial state from rank 0")
            hvd.broadcast_variables(self.model.variables, root_rank=0)
            hvd.broadcast_variables(self.optimizer.variables, root_rank=0)
        self._synced = True

    def train_epoch(self, epoch):
        losses, accs = [], []
        for x, y in self.data.train:
            loss, acc = self.train_step(x, y)
            if not self._synced:
                self._sync_after_first_step()
            losses.append(loss)
            accs.append(acc)
            self.step.assign_add(1)
        train_loss = hvd.allreduce(tf.reduce_mean(losses), op=hvd.Average, name="train_loss")
        train_acc = hvd.allreduce(tf.reduce_mean(accs), op=hvd.Average, name="train_acc")

        correct, total = 0.0, 0.0
        for x, y in self.data.test:
            pred = tf.argmax(self.model(x, training=False), -1)
            correct += float(tf.reduce_sum(tf.cast(tf.equal(pred, y), tf.float32)))
            total += float(tf.shape(y)[0])
        sums = hvd.allreduce(tf.constant([correct, total]), op=hvd.Sum, name="test_counts")
        test_acc = sums[0] / sums[1]

        self.logger.summarize(int(self.step.numpy()), {"loss": train_loss, "acc": train_acc})
        self.logger.summarize(int(self.step.numpy()), {"acc": test_acc}, scope="test")
        self.logger.print("epoch %d loss %.4f acc %.4f test_acc %.4f" % (epoch, train_loss, train_acc, test_acc))
        if hvd.rank() == 0:
            self.manager.save()
