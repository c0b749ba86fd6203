"""What a stack is: the :class:`Environment` value (GPUs, runtime, torch, Python, libraries),
versions, GPU architecture names and ``--rocm-set`` overrides. Imports only ``safe_io`` and ``errors``.
"""
