from absl import flags

flags.DEFINE_string("data", "data/feats.npz", "npz file with x_train, y_train, x_test, y_test")
flags.DEFINE_string("out", "out/kal", "output dir")
flags.DEFINE_enum("strategy", "entropy", ["entropy", "margin", "random"], "query strategy")
flags.DEFINE_integer("rounds", 8, "number of query rounds")
flags.DEFINE_integer("init_size", 300, "initial labeled set")
flags.DEFINE_integer("query_size", 200, "points queried per round")
flags.DEFINE_integer("epochs", 10, "epochs per round")
flags.DEFINE_integer("batch_size", 64, "per-worker batch size")
flags.DEFINE_integer("hidden", 256, "hidden units")
flags.DEFINE_float("lr", 0.01, "single-worker learning rate")
flags.DEFINE_integer("seed", 0, "seed")

FLAGS = flags.FLAGS
