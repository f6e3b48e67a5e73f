"""GP-BO whose trials from the third on wait for a file (tests/engine/test_runner_interrupt.py).

``GatedGPBO`` is ``bo-ei-m`` (:class:`nmthpo.optimizers.bo.GPBO`, Matern-5/2) with one more
setting, ``gate``: a path. While that file does not exist, building the optimiser of trial 2 or
later blocks. So a run with a closed gate saves exactly trials 0 and 1 and then cannot finish,
however fast or slow the machine is: an interrupt test can wait for the two saved trials and
signal a run that is certainly still running. With the gate open (or ``gate=""``, the default)
the results are those of GP-BO.
"""

from __future__ import annotations

import os
import time
from typing import Any

import numpy as np

from nmthpo.optimizers.bo import GPBO

__all__ = ["GatedGPBO", "OPEN_TRIALS"]

#: Trials that never wait (the runner draws trial ``t``'s generator from ``[seed, t, 1]``).
OPEN_TRIALS = 2


class GatedGPBO(GPBO):
    """GP-BO (Matern-5/2, EI) whose trials >= 2 wait until the file ``gate`` exists."""

    def __init__(
        self,
        X: np.ndarray,
        rng: np.random.Generator,
        objective: str = "bleu",
        *,
        gate: str = "",
        **settings: Any,
    ) -> None:
        super().__init__(X, rng, objective, **settings)
        entropy = getattr(getattr(rng.bit_generator, "seed_seq", None), "entropy", None)
        trial = (
            int(entropy[1]) if isinstance(entropy, (list, tuple)) and len(entropy) == 3 else 0
        )  # not a runner's trial generator: never wait
        while gate and trial >= OPEN_TRIALS and not os.path.exists(gate):
            time.sleep(0.05)
