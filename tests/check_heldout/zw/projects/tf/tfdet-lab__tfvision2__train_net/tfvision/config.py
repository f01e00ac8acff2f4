import copy
import runpy


class CfgNode(dict):
    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name)

    def merge_from_file(self, path):
        _merge_into(self, runpy.run_path(path)["cfg"])

    def merge_from_list(self, opts):
        for key, value in zip(opts[0::2], opts[1::2]):
            *parents, leaf = key.split(".")
            node = self
            for p in parents:
                node = node[p]
            node[leaf] = type(node[leaf])(value)


def _merge_into(dst, src):
    for k, v in src.items():
        if isinstance(v, dict):
            _merge_into(dst[k], v)
        else:
            dst[k] = v


_C = CfgNode(
    MODEL=CfgNode(NUM_CLASSES=1000),
    INPUT=CfgNode(SIZE=224),
    DATASETS=CfgNode(TRAIN="data/train-*.tfrecord", TEST="data/val-*.tfrecord", NUM_TRAIN_IMAGES=1281167),
    SOLVER=CfgNode(IMS_PER_BATCH_PER_WORKER=32, ACCUM_STEPS=2, BASE_LR=0.0125, MOMENTUM=0.9,
                   MAX_ITER=90000, WARMUP_ITERS=2000, CHECKPOINT_PERIOD=5000),
    TEST=CfgNode(EVAL_PERIOD=10000, BATCH_SIZE=64),
    OUTPUT_DIR="./output",
)


def get_cfg():
    return copy.deepcopy(_C)
