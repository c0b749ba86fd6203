"""mini-PPO: a verl-style RL workflow (rollout, inference, training) on a tiny causal LM.

Modules, one job each: ``config`` (run settings), ``task`` (prompts and the rule-based
reward), ``model`` (Qwen2 policy, critic, LoRA), ``rollout`` (samplers: built-in KV-cache
sampler, vLLM adapter), ``losses`` (PPO/GRPO maths), ``dist`` (data parallel helpers and
the process launcher), ``perf`` (phase timings, MFU), ``trainer`` (the RL step).
"""
