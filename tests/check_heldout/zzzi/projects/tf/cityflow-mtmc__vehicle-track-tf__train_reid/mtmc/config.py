import configparser


class Cfg(object):
    def __init__(self, path):
        cp = configparser.ConfigParser()
        if not cp.read(path):
            raise FileNotFoundError(path)
        self.root = cp.get('data', 'root')
        self.size = (cp.getint('data', 'img_h'), cp.getint('data', 'img_w'))
        self.batch_size = cp.getint('train', 'batch_size')
        self.base_lr = cp.getfloat('train', 'base_lr')
        self.warmup_iters = cp.getint('train', 'warmup_iters')
        self.epochs = cp.getint('train', 'epochs')
        self.seed = cp.getint('train', 'seed')
        self.weights = cp.get('train', 'weights')
        self.out_dir = cp.get('output', 'dir')
