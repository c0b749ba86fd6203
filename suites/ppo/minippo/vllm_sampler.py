"""vLLM as the rollout engine, behind the :class:`~minippo.sampling.Sampler` interface.

UNTESTED: vLLM is not installed on any machine this suite was developed on. The adapter is
import-guarded (``select_sampler`` only builds it when ``import vllm`` works on a GPU) and
written against vLLM's public offline API (``LLM``, ``SamplingParams``, ``TokensPrompt``).
Weights go from the training model to the engine the simple way: ``save_pretrained`` into a
temporary folder, and a new engine when the weights changed (the hot path of verl, an
in-place ``load_weights`` into the worker's model, depends on vLLM internals that change
between releases). Sampling noise does not follow the built-in sampler's global-batch
scheme, so data-parallel equivalence holds for the built-in sampler only.
"""

from __future__ import annotations

import copy
import tempfile

import torch

from .sampling import Rollout


class VLLMSampler:
    name = "vllm"

    def __init__(self, gpu_memory_utilization: float = 0.3) -> None:
        import vllm  # noqa: F401  (fail here, clearly, when it is missing)

        self._memory = gpu_memory_utilization
        self._llm = None
        self._version = None
        self._dir = tempfile.TemporaryDirectory(prefix="minippo-vllm-")

    def _engine(self, model: torch.nn.Module):
        from vllm import LLM

        version = sum(int(p._version) for p in model.parameters())  # changes after optimizer steps
        if self._llm is None or version != self._version:
            target = copy.deepcopy(model).merge_and_unload() if hasattr(model, "merge_and_unload") else model
            target.save_pretrained(self._dir.name, safe_serialization=True)
            self._llm = LLM(
                model=self._dir.name,
                skip_tokenizer_init=True,
                enforce_eager=True,
                gpu_memory_utilization=self._memory,
                dtype="auto",
            )
            self._version = version
        return self._llm

    @torch.no_grad()
    def generate(
        self,
        model: torch.nn.Module,
        prompts: torch.Tensor,
        max_new_tokens: int,
        temperature: float,
        generator: torch.Generator,
        rows: tuple[int, int],
    ) -> Rollout:
        from vllm import SamplingParams
        from vllm.inputs import TokensPrompt

        llm = self._engine(model)
        seed = int(torch.randint(0, 2**31 - 1, (1,), generator=generator))
        params = SamplingParams(
            temperature=temperature,
            max_tokens=max_new_tokens,
            min_tokens=max_new_tokens,
            logprobs=0,
            seed=seed,
            detokenize=False,
            ignore_eos=True,
        )
        outputs = llm.generate(
            [TokensPrompt(prompt_token_ids=row.tolist()) for row in prompts.cpu()], params, use_tqdm=False
        )
        responses, log_probs = [], []
        for out in outputs:
            sample = out.outputs[0]
            responses.append(list(sample.token_ids))
            log_probs.append([step[tok].logprob for step, tok in zip(sample.logprobs, sample.token_ids, strict=False)])
        responses_t = torch.tensor(responses, device=prompts.device)
        return Rollout(
            torch.cat([prompts, responses_t], dim=1),
            responses_t,
            torch.tensor(log_probs, device=prompts.device, dtype=torch.float32),
        )
