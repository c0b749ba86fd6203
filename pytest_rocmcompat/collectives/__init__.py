"""Collectives: real ``torch.distributed`` groups, one process per rank.

- :mod:`.plan`: which cases (operation, dtype, size) a launch runs; pure.
- :mod:`.bandwidth`: algbw / busbw with the nccl-tests conventions, size tables; pure.
- :mod:`.world`: the world to run (spawned locally, or the torchrun/Slurm one).
- :mod:`.launcher`: spawn the ranks, time-limit them, kill their process groups, read results.
- :mod:`.worker`: the script each rank runs (imports torch; nothing else here does).
"""
