"""What the observers of `--against` need from PyTorch: trained tensors in and out, the optimizers' LRs and
state, batches as numpy (given the torch module the script imported; imports none itself)."""
import itertools
import weakref

from hvdkit.check.against import store


class Adapter:
    """What the observers need from PyTorch: tensors in and out, LRs, optimizer state, batches as numpy."""
    forward_before_step = True  # the optimizer step (where steps are counted) comes after the forward pass

    def __init__(self, torch, obs):
        self.torch, self.obs = torch, obs
        self.modules = weakref.WeakSet()   # modules run in training mode: where the parameters' names come from
        self.losses = []
        self.source_rows = []  # (tf_hooks digests tf.data sources; a DataLoader's sampler gives indices instead)

    # --- batches -------------------------------------------------------------------------------------
    def to_numpy(self, element):
        t = self.torch
        return store.to_numpy(element, lambda x: x.detach().cpu().numpy().copy() if t.is_tensor(x) else None)

    def from_numpy(self, struct):
        return store.from_numpy(struct, self.torch.from_numpy)

    # --- the trained tensors ---------------------------------------------------------------------------
    def params(self):
        return self.obs.params() if self.obs.params else []

    def names(self):
        params = self.params()
        named = {}
        for m in sorted(self.modules, key=lambda m: -sum(1 for _ in m.parameters())):
            for name, p in m.named_parameters():
                named.setdefault(id(p), name)
        return [named.get(id(p), f"param{i}") for i, p in enumerate(params)]

    def tensors(self):
        return [p.detach().cpu().numpy().copy() for p in self.params()]

    def load(self, arrays):
        params = self.params()
        with self.torch.no_grad():
            for p, a in zip(params, arrays):
                p.copy_(self.torch.from_numpy(a).to(p.device))

    # --- optimizers ------------------------------------------------------------------------------------
    def optimizers(self):
        return self.obs.optimizers() if self.obs.optimizers else []

    def groups(self):
        """Every parameter group once: Horovod's DistributedOptimizer is a second optimizer over the same groups."""
        seen, out = set(), []
        for o in self.optimizers():
            for g in o.param_groups:
                if id(g) not in seen:
                    seen.add(id(g))
                    out.append(g)
        return out

    def lrs(self):
        return [float(g["lr"]) for g in self.groups()]

    def built_lrs(self):
        """The LR each group was configured with: a scheduler's base (initial_lr) if one is attached."""
        return [float(g.get("initial_lr", g["lr"])) for g in self.groups()]

    def set_lrs(self, values):
        groups = self.groups()
        for g, v in zip(groups, itertools.cycle(values) if len(values) < len(groups) else values):
            g["lr"] = v

    def opt_state(self):
        """The optimizers' state of each trained tensor, in the tensors' order: [{key: numpy or number}]."""
        out = []
        for p in self.params():
            state = {}
            for o in self.optimizers():
                state.update(o.state.get(p, {}))
            out.append({k: (v.detach().cpu().numpy().copy() if self.torch.is_tensor(v) else v)
                        for k, v in state.items()})
        return out

    def load_opt_state(self, saved):
        params = self.params()
        if len(saved) != len(params):
            return False
        for p, s in zip(params, saved):
            owner = next((o for o in self.optimizers()
                          if any(p is q for g in o.param_groups for q in g["params"])), None)
            if owner is None:
                return False
            owner.state[p] = {k: (self.torch.from_numpy(v.copy()) if hasattr(v, "shape") else v) for k, v in s.items()}
        return True

    def take_losses(self):
        out, self.losses = self.losses, []
        return out

    def uses_sync_bn(self):
        return any("SyncBatchNorm" in type(m).__name__ for m in self.modules)

    def optimizer_kinds(self):
        return sorted({type(o).__name__ for o in self.optimizers()})
