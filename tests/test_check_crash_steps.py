"""A crash and the steps (issue 39, item 5): a crash inside a step's own call (the Horovod call itself, a
checkpoint's save, or a value handed to them as an option) means that step cannot achieve its purpose, so
the step is wrong too, its evidence the crash; a crash anywhere else (the data code, a sibling element of
the callbacks list, a logging line, a broadcast of a counter) is the crash alone and the steps keep their
verdicts.

The scripts are test_check_crash.py's trainers (written from scratch for these tests) with the edits below."""
from crash_scripts import check, line_of
from test_check_crash import DATA_CODE, KERAS


# The PyTorch trainer with an fp16-allreduce option for the wrapper's compression (all eight steps right).
TORCH = DATA_CODE.replace('    parser.add_argument("--lr", type=float, default=0.01)\n',
                          '    parser.add_argument("--lr", type=float, default=0.01)\n'
                          '    parser.add_argument("--fp16-allreduce", action="store_true")\n').replace(
    "    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())\n",
    "    compression = hvd.Compression.fp16 if args.fp16_allreduce else hvd.Compression.none\n"
    "    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters(), compression=compression)\n")


def test_the_correct_trainer_has_no_crash_and_no_flag(tmp_path):
    assert check(tmp_path, TORCH) == (None, {})


def test_an_undeclared_option_read_for_the_wrappers_compression_makes_the_optimizer_step_wrong(tmp_path):
    broken = TORCH.replace('    parser.add_argument("--fp16-allreduce", action="store_true")\n', "")
    crash, flagged = check(tmp_path, broken)
    line = line_of(broken, "compression = hvd.Compression.fp16")
    assert (crash["line"], crash["error"]) == (line, "AttributeError: 'Namespace' object has no attribute "
                                                     "'fp16_allreduce'")
    assert flagged == {5: "wrong"}


def test_a_save_handed_names_nothing_defines_makes_the_checkpoint_step_wrong(tmp_path):
    broken = TORCH.replace('torch.save(model.state_dict(), f"model-{epoch}.pt")', "ckpt.save(ckpt_dir)")
    crash, flagged = check(tmp_path, broken)
    assert (crash["line"], crash["error"]) == (line_of(broken, "ckpt.save(ckpt_dir)"),
                                               "NameError: name 'ckpt' is not defined")
    assert flagged == {7: "wrong"}


def test_a_crash_outside_every_steps_own_call_leaves_the_steps_as_they_are(tmp_path):
    # a logging line on rank 0, next to the checkpoint
    logging = TORCH.replace('print(f"epoch {epoch} loss {avg.item():.4f}")',
                            'print(f"epoch {epoch} loss {avg.item():.4f}", args.run_name)')
    crash, flagged = check(tmp_path, logging)
    assert crash["error"] == "AttributeError: 'Namespace' object has no attribute 'run_name'"
    assert flagged == {}
    # the optimizer the wrapper is handed (the object it wraps, not an option of the wrap)
    lr = TORCH.replace("lr=args.lr * hvd.size()", "lr=args.base_lr * hvd.size()")
    crash, flagged = check(tmp_path, lr)
    assert crash["error"] == "AttributeError: 'Namespace' object has no attribute 'base_lr'"
    assert flagged == {}


def test_a_sibling_element_of_the_callbacks_list_crashing_is_the_crash_alone(tmp_path):
    broken = KERAS.replace("EpochLogger(args)]", "EpochLogger(args), tf.keras.callbacks.TensorBoard(args.log_dir)]")
    crash, flagged = check(tmp_path, broken)
    assert crash["error"] == "AttributeError: 'Namespace' object has no attribute 'log_dir'"
    assert flagged == {}  # the broadcast and the metric averaging on the same line are right


def test_a_keyword_the_broadcast_callback_does_not_take_makes_the_broadcast_wrong(tmp_path):
    broken = KERAS.replace("BroadcastGlobalVariablesCallback(0)", "BroadcastGlobalVariablesCallback(root=0)")
    crash, flagged = check(tmp_path, broken)
    assert crash["error"].startswith("TypeError: BroadcastGlobalVariablesCallback.__init__() got an unexpected")
    assert flagged == {6: "wrong"}


def test_a_broadcast_of_a_counter_that_crashes_does_not_make_the_broadcast_step_wrong(tmp_path):
    # horovod.tensorflow.keras has no broadcast_object; what it sends here is the epoch to resume from
    counter = KERAS.replace("    hvd.init()\n", "    hvd.init()\n    start = hvd.broadcast_object(0, root_rank=0)\n")
    crash, flagged = check(tmp_path, counter)
    assert crash["error"] == "AttributeError: module 'horovod.tensorflow.keras' has no attribute 'broadcast_object'"
    assert flagged == {}
