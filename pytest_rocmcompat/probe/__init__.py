"""Reading a stack: the live machine, recorded amd-smi/rocminfo/nvidia-smi text, installed
libraries and the probe cache. Imports ``stack`` and what lies below it.
"""
