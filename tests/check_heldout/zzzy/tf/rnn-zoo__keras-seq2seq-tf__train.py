# GRU encoder-decoder with attention (TF2), scheduled teacher forcing, horovod.
#   single GPU:   python train.py --pairs data/spa-eng.txt
#   multi GPU:    horovodrun -np 4 python train.py --pairs data/spa-eng.txt --horovod
import os
import time

import tensorflow as tf
import horovod.tensorflow as hvd

from s2sk import options
from s2sk.data import load_pairs, TextCodec, make_dataset
from s2sk.model import Encoder, Decoder
from s2sk.train_utils import train_step_fn, evaluate, translate, tf_ratio_at

args = options.parse()

if args.horovod:
    hvd.init()

pairs = load_pairs(args.pairs, args.num_examples)
src_codec, tgt_codec = TextCodec.fit([p[0] for p in pairs]), TextCodec.fit([p[1] for p in pairs])
n_val = len(pairs) // 20
train_ds, steps_per_epoch = make_dataset(pairs[n_val:], src_codec, tgt_codec, args.batch_size,
                                         num_shards=hvd.size(), index=hvd.rank())
valid_ds, _ = make_dataset(pairs[:n_val], src_codec, tgt_codec, args.batch_size,
                           num_shards=hvd.size(), index=hvd.rank(), shuffle=False)

encoder = Encoder(src_codec.vocab_size, args.emb, args.units)
decoder = Decoder(tgt_codec.vocab_size, args.emb, args.units)
optimizer = tf.keras.optimizers.Adam(args.lr * hvd.size())
train_step = train_step_fn(encoder, decoder, optimizer, tgt_codec.start_id, clip=args.clip)

checkpoint = tf.train.Checkpoint(encoder=encoder, decoder=decoder, optimizer=optimizer)
ckpt_prefix = os.path.join(args.ckpt_dir, 'ckpt')

global_step = 0
for epoch in range(args.epochs):
    start = time.time()
    ratio = tf_ratio_at(epoch, args.tf_start, args.tf_end, args.epochs)
    total = 0.0
    for batch, (src, tgt) in enumerate(train_ds.take(steps_per_epoch)):
        loss = train_step(src, tgt, tf.constant(ratio), global_step == 0)
        total += float(loss)
        global_step += 1
    val_loss = evaluate(encoder, decoder, valid_ds, tgt_codec.start_id)
    if hvd.rank() == 0:
        print('Epoch {} tf_ratio {:.2f} Loss {:.4f} Val loss {:.4f} ({:.1f}s)'.format(
            epoch + 1, ratio, total / steps_per_epoch, val_loss, time.time() - start))
        if (epoch + 1) % args.save_every == 0:
            checkpoint.save(file_prefix=ckpt_prefix)

if hvd.rank() == 0:
    for s, _ in pairs[:5]:
        print(s, '->', translate(encoder, decoder, s, src_codec, tgt_codec))
