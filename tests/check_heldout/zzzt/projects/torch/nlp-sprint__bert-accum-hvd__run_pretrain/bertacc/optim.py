import torch


def build_optimizer(args, model):
    no_decay = ("bias", "LayerNorm.weight", "norm")
    groups = [
        {"params": [p for n, p in model.named_parameters() if not any(nd in n for nd in no_decay)],
         "weight_decay": 0.01},
        {"params": [p for n, p in model.named_parameters() if any(nd in n for nd in no_decay)],
         "weight_decay": 0.0},
    ]
    return torch.optim.AdamW(groups, lr=args.learning_rate, betas=(0.9, 0.999), eps=1e-6)


def linear_warmup(optimizer, args):
    warm = max(1, int(args.max_steps * args.warmup_proportion))

    def f(step):
        if step < warm:
            return (step + 1) / warm
        return max(0.0, (args.max_steps - step) / max(1, args.max_steps - warm))
    return torch.optim.lr_scheduler.LambdaLR(optimizer, f)
