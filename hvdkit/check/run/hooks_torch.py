"""PyTorch observation for `hvdkit check --run`: optimizer steps, weights, first batch, torch.save.

Given the torch module the script imported (this module imports no framework itself). Ranks other than 0
get their parameters nudged when an optimizer is first built (or at the first broadcast, if that comes
first): ranks seeded alike would otherwise start equal by luck, and a missing broadcast would not show.
"""
import weakref

NUDGE = 1e-3


def install(torch, obs):
    optimizers = weakref.WeakSet()
    nudged = set()

    def params():
        seen, out = set(), []
        for opt in list(optimizers):
            for group in opt.param_groups:
                for p in group["params"]:
                    if id(p) not in seen:
                        seen.add(id(p))
                        out.append(p)
        return out

    def weights():
        return [p.detach().cpu().contiguous().numpy().tobytes() for p in params()]

    def nudge(tensors):
        if obs.rank == 0 or obs.broadcast_seen():
            return
        with torch.no_grad():
            for p in tensors:
                if torch.is_tensor(p) and p.is_floating_point() and id(p) not in nudged:
                    nudged.add(id(p))
                    p.add_(NUDGE * obs.rank)

    obs.weights = weights
    obs.params, obs.optimizers = params, lambda: list(optimizers)  # for --against's hooks
    base_init = torch.optim.Optimizer.__init__

    def init(self, *a, **k):
        base_init(self, *a, **k)
        optimizers.add(self)
        nudge([p for g in self.param_groups for p in g["params"]])
    torch.optim.Optimizer.__init__ = init

    from importlib import import_module
    hooks = import_module("torch.optim.optimizer")

    # Horovod's DistributedOptimizer.step() calls the wrapped class's step(): both fire the global hooks,
    # so only the outermost counts; steps Horovod takes inside broadcast_optimizer_state do not count, nor
    # those its Adasum optimizer takes per parameter inside the backward pass (an autograd node is running).
    depth = [0]

    def counted():
        return depth[0] == 1 and not obs.in_broadcast and torch._C._current_autograd_node() is None

    def pre(opt, args, kwargs):
        depth[0] += 1
        if hasattr(opt, "_starting_models"):  # Horovod's Adasum optimizer (its class keeps the wrapped one's name)
            obs.rec.adasum = True
        if counted():
            if obs.rec.threads is None:
                obs.rec.threads = torch.get_num_threads()
            obs.before_step(lr=float(opt.param_groups[0]["lr"]))

    def post(opt, args, kwargs):
        if counted():
            depth[0] -= 1
            obs.after_step()
        else:
            depth[0] -= 1
    hooks.register_optimizer_step_pre_hook(pre)
    hooks.register_optimizer_step_post_hook(post)

    def forward_pre(module, args):
        if obs.rec.first_batch is None and module.training:
            t = next((a for a in args if torch.is_tensor(a)), None)
            if t is not None:
                obs.on_first_batch([t.detach().cpu().contiguous().numpy().tobytes()])
    torch.nn.modules.module.register_module_forward_pre_hook(forward_pre)

    save = torch.save

    def observed_save(obj, f, *a, **k):
        obs.on_write("torch.save", f if isinstance(f, (str, bytes)) or hasattr(f, "__fspath__") else type(f).__name__)
        return save(obj, f, *a, **k)
    torch.save = observed_save


def before_broadcast(torch, obs):
    """For horovod.torch's broadcasts: nudge what is about to be broadcast (if nothing was nudged yet)."""
    def before(name, args, kwargs):
        if name != "broadcast_parameters" or obs.rank == 0 or obs.broadcast_seen():
            return
        params = args[0] if args else kwargs.get("params")
        items = params.values() if hasattr(params, "values") else [p[1] if isinstance(p, tuple) else p for p in params]
        with torch.no_grad():
            for p in list(items):
                if torch.is_tensor(p) and p.is_floating_point():
                    p.add_(NUDGE * obs.rank)
    return before
