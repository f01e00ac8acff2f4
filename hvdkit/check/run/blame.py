"""Which step's code crashed: the step a crash (or a hang) is charged to, from the script's own line.

    step_of_crash(source, line=42, init_ran=True, steps_done=0)  ->  Blame(step=3, statement="loader = ...")

The statement holding the line is read whole (a call spread over several lines counts as one) and matched
against what each step's code looks like; the first step whose words it uses is charged. A line that
names no step is charged by how far the run got: before hvd.init() ran, init never happened (step 1);
after it, training never took (or finished) its steps (step 5). Words are Horovod's, the frameworks' and
the usual library loaders', never one script's names. A missing file or folder that the line does not name
otherwise is the data's (step 3).
"""
import ast
import re
from typing import NamedTuple


class Blame(NamedTuple):
    step: int
    statement: str
    why: str      # "the line calls DataLoader", "before hvd.init() ran"


# Checked in this order: a line that broadcasts a checkpoint's state is a broadcast, a line that saves
# after allreducing a metric is a checkpoint, a DistributedOptimizer built with a scaled lr is step 5.
STEP_WORDS = (
    (6, r"broadcast"),
    (7, r"\bsave(_weights|_model)?\b|checkpoint|ModelCheckpoint|torch\.load|load_weights|load_state_dict"),
    (8, r"allreduce|allgather|metric|accuracy|MetricAverage|\.evaluate\b|reduce_mean"),
    (1, r"\bhvd\.init\b|horovod\b.*\binit\b|\binit\(\)"),
    (2, r"set_visible_devices|list_physical_devices|set_memory_growth|cuda\.set_device|\.cuda\(|\bcuda\b|"
        r"CUDA_VISIBLE_DEVICES|set_num_threads|ConfigProto|gpu_options|set_session|local_rank"),
    (5, r"DistributedOptimizer|DistributedGradientTape|\.step\(|backward|apply_gradients|\.gradient\(|"
        r"\.fit\b|fit_generator|compile\(|train_on_batch|zero_grad|\bloss\b|criterion"),
    (3, r"Sampler|DataLoader|[Dd]ataset|\.shard\(|load_data|\bopen\(|read_csv|np\.load|glob|tf\.data|"
        r"TFRecord|from_tensor_slices|ImageFolder|flow_from|\bbatch\b|train_test_split|\.take\(|\.skip\("),
    (4, r"\blr\b|learning_rate|optim\.|optimizers\.|[Ss]cheduler|LearningRate|warmup"),
)
WHAT = {1: "initializing Horovod", 2: "pinning a device", 3: "loading or splitting the data",
        4: "setting the learning rate", 5: "building or taking an optimizer step", 6: "broadcasting",
        7: "saving or loading a checkpoint", 8: "computing or averaging metrics"}


def statement_at(source, line):
    """The source of the innermost statement that holds `line` (the line itself if the file does not parse)."""
    lines = source.splitlines()
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return lines[line - 1].strip() if 0 < line <= len(lines) else ""
    best = None
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) and node.lineno <= line <= (node.end_lineno or node.lineno):
            # Innermost: a compound statement's body is a list of smaller statements; keep the header only.
            if best is None or node.lineno >= best.lineno:
                best = node
    if best is None:
        return lines[line - 1].strip() if 0 < line <= len(lines) else ""
    if isinstance(best, (ast.If, ast.For, ast.While, ast.With, ast.Try, ast.FunctionDef, ast.ClassDef)):
        return lines[best.lineno - 1].strip()
    return "\n".join(s.strip() for s in lines[best.lineno - 1:best.end_lineno])


def step_of_crash(source, line, init_ran, steps_done, error=""):
    statement = statement_at(source, line) if source and line else ""
    if "has not been initialized" in error:  # whatever the line does, Horovod was called before hvd.init()
        return Blame(1, statement, "hvd.init() had not run yet")
    for step, words in STEP_WORDS:
        m = re.search(words, statement)
        if m:
            return Blame(step, statement, f"the crashed line is {WHAT[step]} ({m.group(0).strip('(.')})")
    if re.match(r"(FileNotFoundError|NotADirectoryError|IsADirectoryError)\b", error):
        return Blame(3, statement, "a file or folder the script reads is not here (its data: pass the script's "
                     "data arguments after --)")
    if not init_ran:
        return Blame(1, statement, "hvd.init() had not run yet")
    return Blame(5, statement, f"the crash ended the script after {steps_done} optimizer step(s)" if steps_done
                 else "training never took its first step")


def script_line_in_log(log, script):
    """The last `File "<script>", line N` of a traceback in the launch's output (a rank that left no record)."""
    hits = re.findall(r'File "([^"]+)", line (\d+)', log or "")
    mine = [int(n) for path, n in hits if path.endswith(script.split("/")[-1])]
    return mine[-1] if mine else None

