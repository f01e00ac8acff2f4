"""hvdkit.common.ranks: the launcher's rank and size, one launcher's pair at a time."""
from hvdkit.common.ranks import local_rank_and_size, rank_and_size


def test_plain_python_is_rank_0_of_1():
    assert rank_and_size({}) == (0, 1)
    assert local_rank_and_size({}) == (0, 1)


def test_each_launchers_pair():
    assert rank_and_size({"OMPI_COMM_WORLD_RANK": "3", "OMPI_COMM_WORLD_SIZE": "8"}) == (3, 8)
    assert rank_and_size({"PMI_RANK": "1", "PMI_SIZE": "2"}) == (1, 2)
    assert rank_and_size({"HOROVOD_RANK": "5", "HOROVOD_SIZE": "6"}) == (5, 6)
    assert rank_and_size({"SLURM_PROCID": "2", "SLURM_NTASKS": "4"}) == (2, 4)


def test_first_launcher_wins_and_keeps_its_own_size():
    # srun under an OpenMPI job step sets both: mixing OMPI's rank with Slurm's task count would be wrong.
    env = {"OMPI_COMM_WORLD_RANK": "1", "OMPI_COMM_WORLD_SIZE": "2", "SLURM_PROCID": "0", "SLURM_NTASKS": "16"}
    assert rank_and_size(env) == (1, 2)
    # A variable that is not a number does not count as set.
    assert rank_and_size({"OMPI_COMM_WORLD_RANK": "", "PMI_RANK": "4", "PMI_SIZE": "7"}) == (4, 7)


def test_missing_size_is_at_least_rank_plus_one():
    assert rank_and_size({"HOROVOD_RANK": "2"}) == (2, 3)


def test_local_pair_or_the_global_one():
    env = {"OMPI_COMM_WORLD_RANK": "5", "OMPI_COMM_WORLD_SIZE": "8",
           "OMPI_COMM_WORLD_LOCAL_RANK": "1", "OMPI_COMM_WORLD_LOCAL_SIZE": "4"}
    assert local_rank_and_size(env) == (1, 4)
    assert local_rank_and_size({"PMI_RANK": "3", "PMI_SIZE": "4"}) == (3, 4)
