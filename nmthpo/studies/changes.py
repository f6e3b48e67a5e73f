"""Numbers that moved since the last published text: old value, new value, paired interval, cause.

A :class:`Change` names a run of the book's cache as it was when the last published text was
written (a commit and a path; ``tools/extract_changes.py`` copies that file from the git
history into ``results/changes/`` with a sidecar holding its commit, path and SHA-256) and the
run that replaced it. Both runs are trials of the same seeds, so trial ``t`` of the old and the
new run start from the same initial rows and their difference is a *paired* one
(:func:`nmthpo.engine.stats.paired_difference`). Where the published number is a difference of
two methods (``minus``), the other method's current run is subtracted from both.

The reproducibility appendix shows :func:`changes_table`; nothing in it is typed: every value
is computed from the two runs.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from nmthpo.engine.cache import results_dir, sha256_file
from nmthpo.engine.numbers import fmt, fmt_interval
from nmthpo.engine.stats import paired_difference

__all__ = [
    "CHANGES",
    "CHANGES_FOLDER",
    "GRAPH_BEFORE",
    "GRAPH_CHANGES",
    "LEDGER_PATH",
    "LEDGER_SNAPSHOT",
    "TRANSFER_BEFORE",
    "TRANSFER_PREFIX",
    "Change",
    "changes_table",
    "graph_changes_table",
    "ledger_changes",
    "moved_trials",
    "old_run",
    "per_trial_metric",
    "transfer_changes_table",
    "transfer_snapshots",
]

#: Folder of ``results/`` holding the old runs (written by ``tools/extract_changes.py``).
CHANGES_FOLDER = "changes"


@dataclass(frozen=True)
class Change:
    """A number of the book that moved: which run, which commit held the old one, and why.

    Attributes
    ----------
    id : str
        Stable name; also the old run's file name in ``results/changes/``.
    chapter : str
        The chapter whose text printed the number.
    what : str
        The number, in words (``Table 3: GB-EIF-R ftb on zh-en``).
    task : str
        The table.
    commit, path : str
        The commit whose tree holds the old run, and its path there.
    new : str
        The path (under ``results/``) of the run that replaced it.
    cause : str
        Why it moved (the commit that changed it, and what changed).
    minus : str, optional
        A current run (path under ``results/``) subtracted from both, when the number was a
        difference of two methods.
    trials : int, optional
        Only the first ``trials`` trials (the number was printed for a shorter grid).
    metric : {"ftb", "fto", "fta", "fbp"}
        The per-trial metric (:func:`per_trial_metric`): ``ftb`` for Table 3's runs, ``fta``
        (or ``fto``, ``fbp``) for Table 4's.
    """

    id: str
    chapter: str
    what: str
    task: str
    commit: str
    path: str
    new: str
    cause: str
    minus: str | None = None
    trials: int | None = None
    metric: str = "ftb"


#: Table 3's GP-BO runs before and after issue 25 made the fast schedule with the lattice fit
#: GP-BO's default: (method, task, old key, new key) of ``results/single``.
_GPBO_DEFAULTS: tuple[tuple[str, str, str, str], ...] = (
    ("bo-ei-m", "zh-en", "57b7d373c0af64c3", "f5ac9f76fc8d675e"),
    ("bo-ei-m", "ru-en", "abc86b7bd12e9e87", "fb7546d9f629f431"),
    ("bo-ei-m", "ja-en", "092ed7dcad910cbd", "95f576877a0f1fd3"),
    ("bo-ei-m", "en-ja", "b153bab23ea0c911", "9159c6fe4766f630"),
    ("bo-ei-m", "sw-en", "e8ab96ce12624f4f", "94dff4634683d0ad"),
    ("bo-ei-m", "so-en", "555e373c21289031", "7d2dc3ced19de90a"),
    ("bo-ei-r", "zh-en", "1aadceef95a74564", "0abd4b6c606bce61"),
    ("bo-ei-r", "ru-en", "5c5ef5f0c9841e6f", "0f8b3d162f9f0cbd"),
    ("bo-ei-r", "ja-en", "433952f1527f5ffb", "56820d111690976d"),
    ("bo-ei-r", "en-ja", "0318160faf5a828a", "c9a83623a37c7314"),
    ("bo-ei-r", "sw-en", "6f62803935a133b1", "9bfd20dd9d6be0da"),
    ("bo-ei-r", "so-en", "1dbb53c7a0726c8c", "78afe3128739f905"),
)
_GPBO_CAUSE = (
    "commit 687c5f0 (issue 25): GP-BO's defaults became the fast refit schedule, the lattice "
    "fit and tie_rtol=1e-9 (before: a fit by L-BFGS-B at every step and exact ties, computed "
    "on another CPU); Chapter 2's appendix pairs the default with that protocol recomputed here"
)

#: Table 4's GP runs before and after issue 25 made the lattice fit and tie_rtol=1e-9 the
#: defaults of ``bo-m`` and ``bo-r``: (method, task, old key, new key) of ``results/pareto``.
_PARETO_DEFAULTS: tuple[tuple[str, str, str, str], ...] = (
    ("bo-m", "zh-en", "0915b68435d85442", "ccd2e9b702fcce3a"),
    ("bo-m", "ru-en", "973ef4a68a1bfa70", "0638c3a426eb1ce1"),
    ("bo-m", "ja-en", "775c9afcc4c8bbf4", "aa712158dd97681a"),
    ("bo-m", "en-ja", "c3e168c69c212006", "7d1e3019e03d9d8f"),
    ("bo-m", "sw-en", "804156537cc703a8", "5b8ce9de3de5be07"),
    ("bo-m", "so-en", "967e44694078f244", "052c8a1207dedfd7"),
    ("bo-r", "zh-en", "96f357e94e21fd70", "d1ad4cc47b2d6fd7"),
    ("bo-r", "ru-en", "3332762778d41b98", "93669a8c1dabf2d6"),
    ("bo-r", "ja-en", "efc58566049f2f08", "767637ecd0c4fddb"),
    ("bo-r", "en-ja", "e967bd5fb157aadd", "6c9692ac926b2fd7"),
    ("bo-r", "sw-en", "983d42d779791353", "7a0c549b7486fe85"),
    ("bo-r", "so-en", "029a0b3c252a289f", "8b5df18e32544c6b"),
)
_PARETO_CAUSE = (
    "commit a99274b (issue 25): bo-m and bo-r fit their GPs on the lattice with tie_rtol=1e-9 "
    "(before: L-BFGS-B and exact ties, whose rows moved with the BLAS kernel: 11 of 16 trials "
    "of the portability sample under another OpenBLAS core type)"
)


#: Table 3's and Table 4's graph runs before and after issue 25 made the graph methods' tie
#: tolerance 1e-8 (:data:`~nmthpo.optimizers.settings.GRAPH_TIE_RTOL`): (method, task, old key,
#: new key) of ``results/single`` and ``results/pareto``.
_GRAPH_SINGLE: tuple[tuple[str, str, str, str], ...] = (
    ("gb-ei-m", "zh-en", "1ce0366885aef7ee", "4e78f8fc2a0a7972"),
    ("gb-ei-m", "ru-en", "bfed4a359ebca6e5", "79c6156f35d3a163"),
    ("gb-ei-m", "ja-en", "9d11413aff809e06", "41efc23ee250c381"),
    ("gb-ei-m", "en-ja", "29753813649dec36", "131eadef8201f923"),
    ("gb-ei-m", "sw-en", "259ec6d24f047b5c", "3f654b923a9cef7b"),
    ("gb-ei-m", "so-en", "1c314004eb20626e", "eeb0ce276f7eb753"),
    ("gb-ei-r", "zh-en", "a763b6de106793be", "4f8fb13d3c85602b"),
    ("gb-ei-r", "ru-en", "552b30eb9ceda169", "74f7940bff2cad4b"),
    ("gb-ei-r", "ja-en", "cc669edf6f45d5de", "32250d48a1c0b437"),
    ("gb-ei-r", "en-ja", "a95e093814bcf79a", "6fab629dab56ceda"),
    ("gb-ei-r", "sw-en", "211f4b9f303d0963", "ea01538fc928cd35"),
    ("gb-ei-r", "so-en", "72ea2b1f9f8659f3", "19c0da29888f4102"),
    ("gb-eif-m", "zh-en", "5104feafd08e5718", "96e72a4955ee104b"),
    ("gb-eif-m", "ru-en", "096bae7703c96e63", "e7b3245ac5a7d7b5"),
    ("gb-eif-m", "ja-en", "3f278a53522d0c75", "d11ac8b9dbba963b"),
    ("gb-eif-m", "en-ja", "5731be0e6e76770e", "e1444f342b83ef99"),
    ("gb-eif-m", "sw-en", "8bbc1d0f37be5762", "951c1b2b21ef2ae2"),
    ("gb-eif-m", "so-en", "7c2d5aa17e5a671c", "e1e8383715b55bb8"),
    ("gb-eif-r", "zh-en", "e6fb2d64e02ce214", "5605668f84d9e153"),
    ("gb-eif-r", "ru-en", "5576dedd0d1f337c", "87527d706610a6d2"),
    ("gb-eif-r", "ja-en", "822329178943171c", "ceebe9b744bdea5f"),
    ("gb-eif-r", "en-ja", "46e909ee8fa3d5c6", "7c754e2c9f26dbd0"),
    ("gb-eif-r", "sw-en", "217c8d8417764a24", "b0d07cb21e120f96"),
    ("gb-eif-r", "so-en", "604ef82fcb1c9643", "f9a731f596348102"),
)
_GRAPH_PARETO: tuple[tuple[str, str, str, str], ...] = (
    ("gb-m", "zh-en", "bc01323869a6e5c1", "c689fe670176e1a9"),
    ("gb-m", "ru-en", "8501bb960a853645", "66438a1478fb364c"),
    ("gb-m", "ja-en", "e6b4c05c84ead592", "4c815f699e7016d6"),
    ("gb-m", "en-ja", "6654f3746a42ad07", "ae7566227d23bf13"),
    ("gb-m", "sw-en", "8eae485983529692", "35b7b453eb0b398e"),
    ("gb-m", "so-en", "06ab8e0ed833ec3a", "9d8c4b74978b8c50"),
    ("gb-r", "zh-en", "2d3032d9796987d4", "f00f7937577f65fe"),
    ("gb-r", "ru-en", "0b0a215cb39b8def", "f4e8693dc7dc40df"),
    ("gb-r", "ja-en", "b495787d123641ba", "650b148efda0113f"),
    ("gb-r", "en-ja", "e84da6dac291fbd6", "fedfd08e2960b326"),
    ("gb-r", "sw-en", "e258728455eb9e80", "49b298a16fff5ece"),
    ("gb-r", "so-en", "cac14ef48b3f10d9", "d406bc0e00172b17"),
)
#: The other graph runs of the book (the chapters' side experiments: k sweeps, graph
#: discrepancy, Figure 6, the text's EIF, Chapter 9's peers): (folder, method, task, settings,
#: old key, new key, objective).
_GRAPH_OTHER: tuple[tuple[str, str, str, str, str, str, str], ...] = (
    ("eif_text", "gb-eif-text-m", "en-ja", "", "fd7a020b45c75ccb", "51ca76cdcb1b3680", "bleu"),
    ("eif_text", "gb-eif-text-m", "ja-en", "", "f31810a7ea176b01", "35b63f7c8f0214cf", "bleu"),
    ("eif_text", "gb-eif-text-m", "ru-en", "", "f53ed4cfcedd6506", "d73bc08e8c3af764", "bleu"),
    ("eif_text", "gb-eif-text-m", "zh-en", "", "0ae1d3c50ca8e92e", "53047afca3110e3a", "bleu"),
    ("figure6", "gb-ei-m", "ja-en", "", "24320b45416de43c", "cb85011224ba4136", "bleu"),
    ("figure6", "gb-ei-r", "ja-en", "", "b9a7dec5a00f4084", "47d91fa644852136", "bleu"),
    ("figure6", "gb-eif-m", "ja-en", "", "b58d42425af51c02", "7f5f4078405318bc", "bleu"),
    ("figure6", "gb-eif-r", "ja-en", "", "e0c69170ca6997a3", "7dbd3882c625486c", "bleu"),
    (
        "graph_discrepancy",
        "gb-ei-m",
        "en-ja",
        "eps=1.0",
        "6e19e404a8b7223e",
        "f367e4d33ac45f0d",
        "bleu",
    ),
    (
        "graph_discrepancy",
        "gb-ei-m",
        "en-ja",
        "ei_scale=0.1",
        "805f7e684ae7188e",
        "f9418db550494580",
        "bleu",
    ),
    (
        "graph_discrepancy",
        "gb-ei-m",
        "en-ja",
        "ei_scale=3.0",
        "90c849ede1b8125d",
        "34e45a61d7428f24",
        "bleu",
    ),
    (
        "graph_discrepancy",
        "gb-ei-m",
        "en-ja",
        "ei_scale=0.3",
        "a917db2e28f7d47e",
        "da8ada3713be860b",
        "bleu",
    ),
    (
        "graph_discrepancy",
        "gb-ei-m",
        "ja-en",
        "ei_scale=3.0",
        "2f914d748121bd01",
        "b9dee1d964d4f724",
        "bleu",
    ),
    (
        "graph_discrepancy",
        "gb-ei-m",
        "ja-en",
        "ei_scale=0.3",
        "32d15fec8494e94e",
        "f69fc18011842d09",
        "bleu",
    ),
    (
        "graph_discrepancy",
        "gb-ei-m",
        "ja-en",
        "eps=1.0",
        "b6980ce55db65484",
        "cd49abd35937382b",
        "bleu",
    ),
    (
        "graph_discrepancy",
        "gb-ei-m",
        "ja-en",
        "ei_scale=0.1",
        "fadee085f39838bb",
        "9f2574d7526c413e",
        "bleu",
    ),
    (
        "graph_discrepancy",
        "gb-ei-m",
        "ru-en",
        "ei_scale=0.3",
        "1460a9447bff5d52",
        "7cf82526e2d2b753",
        "bleu",
    ),
    (
        "graph_discrepancy",
        "gb-ei-m",
        "ru-en",
        "eps=1.0",
        "22873c874b45bafb",
        "fe9919f1103dda90",
        "bleu",
    ),
    (
        "graph_discrepancy",
        "gb-ei-m",
        "ru-en",
        "ei_scale=0.1",
        "2d48f2b819c09db1",
        "a0fc0408356263cb",
        "bleu",
    ),
    (
        "graph_discrepancy",
        "gb-ei-m",
        "ru-en",
        "ei_scale=3.0",
        "636b1a6fe488ba3c",
        "d3ccc86eb50aa2b5",
        "bleu",
    ),
    (
        "graph_discrepancy",
        "gb-ei-m",
        "zh-en",
        "ei_scale=3.0",
        "20d8d6654ec10bf1",
        "eef8d75de1351db9",
        "bleu",
    ),
    (
        "graph_discrepancy",
        "gb-ei-m",
        "zh-en",
        "ei_scale=0.3",
        "42884280d88daa9f",
        "c22542eb096b779d",
        "bleu",
    ),
    (
        "graph_discrepancy",
        "gb-ei-m",
        "zh-en",
        "ei_scale=0.1",
        "70e24a96dd32c5d4",
        "8e9eb3fc18193258",
        "bleu",
    ),
    (
        "graph_discrepancy",
        "gb-ei-m",
        "zh-en",
        "eps=1.0",
        "88f2e4e0202faea4",
        "3500cd8a585963e9",
        "bleu",
    ),
    (
        "graph_discrepancy",
        "gb-eif-m",
        "en-ja",
        "eif_mode=monotone",
        "608c28b806a91441",
        "4389d7e6d878f179",
        "bleu",
    ),
    (
        "graph_discrepancy",
        "gb-eif-m",
        "en-ja",
        "eif_mode=gbopt-ties",
        "619a534e62bdd4d1",
        "b76e695d0cd7b136",
        "bleu",
    ),
    (
        "graph_discrepancy",
        "gb-eif-m",
        "ja-en",
        "eif_mode=gbopt-ties",
        "34e4298806437b9f",
        "ac1f9bc899b5d5ff",
        "bleu",
    ),
    (
        "graph_discrepancy",
        "gb-eif-m",
        "ja-en",
        "eif_mode=monotone",
        "a6197721bd23d2c8",
        "f70df8b6750805bb",
        "bleu",
    ),
    (
        "graph_discrepancy",
        "gb-eif-m",
        "ru-en",
        "eif_mode=monotone",
        "2f8c73acc7091021",
        "87a1045a647ee930",
        "bleu",
    ),
    (
        "graph_discrepancy",
        "gb-eif-m",
        "ru-en",
        "eif_mode=gbopt-ties",
        "598a74583bf35963",
        "632f46e6cfb8c0d5",
        "bleu",
    ),
    (
        "graph_discrepancy",
        "gb-eif-m",
        "so-en",
        "eif_mode=gbopt-ties",
        "eb14732bc2449a1d",
        "eef6a1dbb83bded8",
        "bleu",
    ),
    (
        "graph_discrepancy",
        "gb-eif-m",
        "sw-en",
        "eif_mode=gbopt-ties",
        "79a65d9625f632e9",
        "a24cb45a6100cd2c",
        "bleu",
    ),
    (
        "graph_discrepancy",
        "gb-eif-m",
        "zh-en",
        "eif_mode=monotone",
        "780b6ed53b4acc1b",
        "f7816df3e425094e",
        "bleu",
    ),
    (
        "graph_discrepancy",
        "gb-eif-m",
        "zh-en",
        "eif_mode=gbopt-ties",
        "da56b7476d96bcd2",
        "780023cef83570f7",
        "bleu",
    ),
    ("graph_k", "gb-ei-m", "en-ja", "k=10", "4dd01a9bc2a73e4b", "9693726950efece3", "bleu"),
    ("graph_k", "gb-ei-m", "en-ja", "k=20", "55cf15053e1e7791", "7d179b40a65f8099", "bleu"),
    ("graph_k", "gb-ei-m", "en-ja", "k=5", "c5c42884a521fc5d", "e5263c9e79372d1d", "bleu"),
    ("graph_k", "gb-ei-m", "en-ja", "k=40", "ca09bc5303c69de6", "8cc090851302ad93", "bleu"),
    ("graph_k", "gb-ei-m", "ja-en", "k=10", "05a4444803ce8484", "4bb2e358c45ece9f", "bleu"),
    ("graph_k", "gb-ei-m", "ja-en", "k=40", "191f5a0d7a9eac82", "ac8376947dfe0a1d", "bleu"),
    ("graph_k", "gb-ei-m", "ja-en", "k=5", "3e9ff3017c55ba71", "55635fe7b885f6d4", "bleu"),
    ("graph_k", "gb-ei-m", "ja-en", "k=20", "900d1bb843743377", "ef0b8f627b5d3236", "bleu"),
    ("graph_k", "gb-ei-m", "ru-en", "k=40", "87b81e78d6b26717", "073b3206c8494163", "bleu"),
    ("graph_k", "gb-ei-m", "ru-en", "k=5", "98515edb43c481f6", "e8a3506d584b7bb1", "bleu"),
    ("graph_k", "gb-ei-m", "ru-en", "k=20", "a802bbb86c5bfe25", "c4a069f910752236", "bleu"),
    ("graph_k", "gb-ei-m", "ru-en", "k=10", "f54e12382a04c4f1", "7afc3412dc8d6360", "bleu"),
    ("graph_k", "gb-ei-m", "zh-en", "k=5", "03db36edee3987e6", "f9df264fbf47ee18", "bleu"),
    ("graph_k", "gb-ei-m", "zh-en", "k=20", "902762d644233c32", "e9d579fdb3040bc7", "bleu"),
    ("graph_k", "gb-ei-m", "zh-en", "k=40", "ba5a3cc7d117280f", "e939bd44d03c1e29", "bleu"),
    ("graph_k", "gb-ei-m", "zh-en", "k=10", "cecf326665f8bbd8", "a2c37b20fe2a6ee5", "bleu"),
    ("graph_k", "gb-eif-m", "en-ja", "k=20", "61a0ca9f334adc0a", "d9a4efb632300c59", "bleu"),
    ("graph_k", "gb-eif-m", "en-ja", "k=10", "75ac0f07a053dd73", "ab5a467c6894bbb5", "bleu"),
    ("graph_k", "gb-eif-m", "en-ja", "k=5", "b9a5fca13a83dee5", "26354401eebaa90a", "bleu"),
    ("graph_k", "gb-eif-m", "en-ja", "k=40", "c848b6309be88f86", "b95b2f147258f7a4", "bleu"),
    ("graph_k", "gb-eif-m", "ja-en", "k=10", "1906b3ec3468aeef", "eacb548891d7c10a", "bleu"),
    ("graph_k", "gb-eif-m", "ja-en", "k=40", "1e739b4d53093890", "552b1945055e1a2e", "bleu"),
    ("graph_k", "gb-eif-m", "ja-en", "k=5", "9978a00eeac4a4b1", "92fb953838024b85", "bleu"),
    ("graph_k", "gb-eif-m", "ja-en", "k=20", "b751bea0144d7e37", "761abaffe0149991", "bleu"),
    ("graph_k", "gb-eif-m", "ru-en", "k=5", "0dd060a9457cb664", "2d90d2cc92089e2e", "bleu"),
    ("graph_k", "gb-eif-m", "ru-en", "k=20", "1b4f0cb655639e41", "3b9fb069900f744e", "bleu"),
    ("graph_k", "gb-eif-m", "ru-en", "k=10", "a2204456204b3974", "0e605f9c4719e30d", "bleu"),
    ("graph_k", "gb-eif-m", "ru-en", "k=40", "f6211ae8c1928dda", "bfae6bd01d2fcd42", "bleu"),
    ("graph_k", "gb-eif-m", "zh-en", "k=5", "2325d6912693d428", "82ed627bb7234ba4", "bleu"),
    ("graph_k", "gb-eif-m", "zh-en", "k=40", "2e0c96997d1ae170", "fb134a94c7ec780c", "bleu"),
    ("graph_k", "gb-eif-m", "zh-en", "k=10", "63aab51e2761ae68", "83d6889417b34ab5", "bleu"),
    ("graph_k", "gb-eif-m", "zh-en", "k=20", "e391f82898650ccf", "c97a305bca1d425e", "bleu"),
    ("pareto_arms", "gb-m", "en-ja", "k=40", "ae793ca49bfd005d", "0f45cbde39ada09c", "pareto"),
    ("pareto_arms", "gb-m", "en-ja", "k=3", "c2b48efea6fc3cc9", "6ad32c2ea7ca923b", "pareto"),
    ("pareto_arms", "gb-m", "ja-en", "k=3", "c8310c0e1dbf44dd", "25624dd3147f366c", "pareto"),
    ("pareto_arms", "gb-m", "ja-en", "k=40", "f7fd9a0bfae35e3b", "f8680323d02175e7", "pareto"),
    ("pareto_arms", "gb-m", "ru-en", "k=40", "0daf6c65e76420fa", "6b4bc0484f5eb4e2", "pareto"),
    ("pareto_arms", "gb-m", "ru-en", "k=3", "e9994d68319b39ff", "fe1918615a970edc", "pareto"),
    ("pareto_arms", "gb-m", "zh-en", "k=40", "0546f33d0ea9197a", "99de6b0df4224628", "pareto"),
    ("pareto_arms", "gb-m", "zh-en", "k=3", "fc41fdd96773a8dc", "ef8d873dc43b4721", "pareto"),
    ("peers", "gb-ei-m", "en-ja", "", "e0e031cfa6043fa3", "f76d4c80d2eb3c3d", "bleu"),
    ("peers", "gb-ei-m", "ja-en", "", "0449552399ea8948", "4b91ef9519185b48", "bleu"),
    ("peers", "gb-ei-m", "ru-en", "", "9b83805fd556f016", "3c3a4559711105e1", "bleu"),
    ("peers", "gb-ei-m", "so-en", "", "69e4aa19b9a6976d", "46512b99ff85f57d", "bleu"),
    ("peers", "gb-ei-m", "sw-en", "", "352384900dd20541", "d45830f090465e30", "bleu"),
    ("peers", "gb-ei-m", "zh-en", "", "3f892b0ee48de01c", "c0a1c0442c97e9f4", "bleu"),
    ("peers", "gb-eif-m", "en-ja", "", "0646cb42ab96d612", "903cc3a8826a8245", "bleu"),
    ("peers", "gb-eif-m", "ja-en", "", "7a0469a6685927b0", "5883540456dd164a", "bleu"),
    ("peers", "gb-eif-m", "ru-en", "", "a75c5ae560b46bd6", "f92ed91ebc4d972c", "bleu"),
    ("peers", "gb-eif-m", "so-en", "", "0d4649e8c19bfa3b", "f2c54856927ba38c", "bleu"),
    ("peers", "gb-eif-m", "sw-en", "", "13fef8fef6f7a042", "d5720339c5975091", "bleu"),
    ("peers", "gb-eif-m", "zh-en", "", "1bc9998a44cb83eb", "c965560022c5cdfa", "bleu"),
)
#: The chapter of each folder of :data:`_GRAPH_OTHER`.
_GRAPH_CHAPTERS = {
    "eif_text": "02_single_objective",
    "figure6": "02_single_objective",
    "graph_discrepancy": "02_single_objective",
    "graph_k": "02_single_objective",
    "pareto_arms": "03_multiobjective",
    "peers": "09_peers",
}
#: The commit whose tree holds the graph runs with the earlier tie tolerance.
GRAPH_BEFORE = "0a5de4b"
_GRAPH_CAUSE = (
    "issue 25: the graph methods treat scores within 1e-8 of the best as ties (before: 1e-9, "
    "below the rounding noise between NumPy's AVX-512 and AVX2 loops, so that on an AVX-512 "
    "CPU 7 of 30 trials of gb-ei-m with k = 5 on ru-en and 16 of 60 of gb-m with k = 3 chose "
    "other rows)"
)


def _moved_runs(
    runs: tuple[tuple[str, str, str, str], ...],
    folder: str,
    chapter: str,
    table: str,
    objective: str,
    commit: str,
    cause: str,
    suffix: str = "",
) -> tuple[Change, ...]:
    """One :class:`Change` per (method, task, old key, new key) of a grid whose runs all moved
    (ftb for Table 3's single-objective runs, fta for Table 4's Pareto runs); ``suffix`` tells
    the ids of a second change of the same runs apart."""
    metric = "fta" if objective == "pareto" else "ftb"
    return tuple(
        Change(
            f"{folder}-{m}-{t}{suffix}",
            chapter,
            f"{table}: {m.upper()} mean {metric} on {t}",
            t,
            commit,
            f"results/{folder}/{m}__{t}__{objective}__s0__{old}.parquet",
            f"{folder}/{m}__{t}__{objective}__s0__{new}.parquet",
            cause,
            metric=metric,
        )
        for m, t, old, new in runs
    )


#: Every number known to have moved since the last published text.
CHANGES: tuple[Change, ...] = (
    Change(
        "single-gb-eif-r-zh-en",
        "02_single_objective",
        "Table 3: GB-EIF-R mean ftb on zh-en",
        "zh-en",
        "1a7ef82^",
        "results/single/gb-eif-r__zh-en__bleu__s0__e6fb2d64e02ce214.parquet",
        "single/gb-eif-r__zh-en__bleu__s0__5605668f84d9e153.parquet",
        "commit 80ab63e: GB-EIF labels one tied pivot as the authors' released code does (it "
        "labelled every row tied at the best BLEU before); on zh-en three rows tie at the best "
        "BLEU, so the expected-influence labels differ at many steps; then issue 25's graph "
        "tie tolerance (its own row, -ties)",
    ),
    Change(
        "single-gb-eif-m-zh-en",
        "02_single_objective",
        "Table 3: GB-EIF-M mean ftb on zh-en",
        "zh-en",
        "1a7ef82^",
        "results/single/gb-eif-m__zh-en__bleu__s0__5104feafd08e5718.parquet",
        "single/gb-eif-m__zh-en__bleu__s0__96e72a4955ee104b.parquet",
        "commit 80ab63e: the tied pivot of the authors' code (as for GB-EIF-R); then issue "
        "25's graph tie tolerance",
    ),
    Change(
        "k-sweep-gb-eif-m-zh-en",
        "02_single_objective",
        "k sweep: GB-EIF-M mean ftb at the rule's k on zh-en (30 trials)",
        "zh-en",
        "1a7ef82^",
        "results/single/gb-eif-m__zh-en__bleu__s0__5104feafd08e5718.parquet",
        "single/gb-eif-m__zh-en__bleu__s0__96e72a4955ee104b.parquet",
        "commit 80ab63e: the tied pivot of the authors' code (the sweep's rule-k entry reads "
        "the first 30 Table 3 trials); then issue 25's graph tie tolerance",
        trials=30,
    ),
    Change(
        "ga-minus-gb-eif-m-zh-en",
        "05_genetic_algorithm",
        "Chapter 5's protocol: GA minus GB-EIF-M mean ftb on zh-en (its sign)",
        "zh-en",
        "1a7ef82^",
        "results/single/gb-eif-m__zh-en__bleu__s0__5104feafd08e5718.parquet",
        "single/gb-eif-m__zh-en__bleu__s0__96e72a4955ee104b.parquet",
        "commit 80ab63e: GB-EIF-M's tied pivot moved its zh-en runs (the GA's runs did not "
        "change; then issue 25's graph tie tolerance); the difference is computed against the "
        "same GA runs before and after",
        minus="single/ga__zh-en__bleu__s0__a390d49bfd93d8e0.parquet",
    ),
    *_moved_runs(
        _GPBO_DEFAULTS, "single", "02_single_objective", "Table 3", "bleu", "d284449", _GPBO_CAUSE
    ),
    *_moved_runs(
        _PARETO_DEFAULTS,
        "pareto",
        "03_multiobjective",
        "Table 4",
        "pareto",
        "bfa4b4a",
        _PARETO_CAUSE,
    ),
)


def _graph_other(runs: tuple[tuple[str, str, str, str, str, str, str], ...]) -> tuple[Change, ...]:
    """One :class:`Change` per run of :data:`_GRAPH_OTHER` (ftb, or fta for a Pareto run)."""
    out = []
    for folder, m, t, sets, old, new, objective in runs:
        metric = "fta" if objective == "pareto" else "ftb"
        label = f" ({sets.replace(';', ', ')})" if sets else ""
        out.append(
            Change(
                f"{folder}-{m}-{t}-{old}-ties",
                _GRAPH_CHAPTERS[folder],
                f"{folder}{label}: {m.upper()} mean {metric} on {t}",
                t,
                GRAPH_BEFORE,
                f"results/{folder}/{m}__{t}__{objective}__s0__{old}.parquet",
                f"{folder}/{m}__{t}__{objective}__s0__{new}.parquet",
                _GRAPH_CAUSE,
                metric=metric,
            )
        )
    return tuple(out)


#: Every graph run of the book before and after the graph methods' tie tolerance became 1e-8
#: (issue 25), Tables 3 and 4 first: :func:`graph_changes_table` pairs those whose rows moved.
GRAPH_CHANGES: tuple[Change, ...] = (
    *_moved_runs(
        _GRAPH_SINGLE,
        "single",
        "02_single_objective",
        "Table 3",
        "bleu",
        GRAPH_BEFORE,
        _GRAPH_CAUSE,
        suffix="-ties",
    ),
    *_moved_runs(
        _GRAPH_PARETO,
        "pareto",
        "03_multiobjective",
        "Table 4",
        "pareto",
        GRAPH_BEFORE,
        _GRAPH_CAUSE,
        suffix="-ties",
    ),
    *_graph_other(_GRAPH_OTHER),
)


def _snapshot_record(path: Path, commit: str, source: str | None = None) -> dict[str, Any]:
    """The sidecar record of a snapshot ``tools/extract_changes.py`` wrote, checked: the file
    and its sidecar exist, the sidecar names ``commit`` (and ``source``, the path there, when
    given) and the file's bytes match its SHA-256.

    Raises
    ------
    FileNotFoundError
        If the file was never extracted (``python tools/extract_changes.py`` writes it).
    ValueError
        If its bytes or its sidecar do not match (commit, path, SHA-256).
    """
    side = path.with_suffix(".json")
    if not path.is_file() or not side.is_file():
        raise FileNotFoundError(
            f"{path} is missing; write it with `python "
            "tools/extract_changes.py` (reads the git history)"
        )
    meta: dict[str, Any] = json.loads(side.read_text(encoding="utf-8"))
    if meta.get("commit") != commit or (source is not None and meta.get("path") != source):
        raise ValueError(
            f"{side} names {meta.get('commit')}:{meta.get('path')}, not "
            f"{commit}:{source or '...'}; re-run tools/extract_changes.py"
        )
    if meta.get("sha256") != sha256_file(path):
        raise ValueError(
            f"{path} does not match its checksum (SHA-256); re-run tools/extract_changes.py"
        )
    return meta


def old_run(change: Change, root: Path | None = None) -> pd.DataFrame:
    """The old run of ``change`` from ``results/changes/`` (its sidecar and checksum checked,
    :func:`_snapshot_record`: ``FileNotFoundError`` if never extracted, ``ValueError`` if it
    does not match the change)."""
    path = (root or results_dir()) / CHANGES_FOLDER / f"{change.id}.parquet"
    _snapshot_record(path, change.commit, change.path)
    return pd.read_parquet(path)


def per_trial_metric(frame: pd.DataFrame, task: str, metric: str = "ftb") -> np.ndarray:
    """``metric`` of every trial of a run, in trial order: ``ftb`` (Table 3, the paper's tie
    convention) or ``fto``, ``fta``, ``fbp`` (Table 4, a Pareto run)."""
    if metric == "ftb":
        from nmthpo.studies.zhang_duh.single_objective import per_trial_metrics

        per = per_trial_metrics({("run", task): frame}, ties="value")
        return per.sort_values("trial")["ftb"].to_numpy(dtype=float)
    if metric not in ("fto", "fta", "fbp"):
        raise ValueError(f"unknown metric {metric!r}; valid: ftb, fto, fta, fbp")
    from nmthpo.studies.zhang_duh.multiobjective import pareto_metrics

    return pareto_metrics(frame, task)[metric].to_numpy(dtype=float)


def changes_table(changes: tuple[Change, ...] = CHANGES, root: Path | None = None) -> pd.DataFrame:
    """One row per change: the old and new value, new - old with its paired 95 % interval."""
    base = root or results_dir()
    rows = []
    for ch in changes:
        old = per_trial_metric(old_run(ch, root), ch.task, ch.metric)
        new = per_trial_metric(pd.read_parquet(base / ch.new), ch.task, ch.metric)
        if ch.minus is not None:
            other = per_trial_metric(pd.read_parquet(base / ch.minus), ch.task, ch.metric)
            n = min(len(other), len(old), len(new))
            old, new = other[:n] - old[:n], other[:n] - new[:n]
        n = min(len(old), len(new), ch.trials or len(old))
        est, lo, hi = paired_difference(new[:n], old[:n])
        rows.append(
            {
                "chapter": ch.chapter[:2],
                "number": ch.what,
                "old": fmt(old[:n].mean(), "evaluations"),
                "new": fmt(new[:n].mean(), "evaluations"),
                "new - old [95% CI]": fmt_interval(est, lo, hi, "evaluations"),
                "trials": n,
                "cause": ch.cause,
            }
        )
    return pd.DataFrame(rows).set_index("number")


def moved_trials(change: Change, root: Path | None = None) -> tuple[int, int]:
    """``(trials, trials whose rows differ)`` between the old and the new run of ``change``."""
    old = old_run(change, root)
    new = pd.read_parquet((root or results_dir()) / change.new)
    rows_old = old.groupby("trial", sort=True)["row"].apply(tuple)
    rows_new = new.groupby("trial", sort=True)["row"].apply(tuple)
    both = rows_old.index.intersection(rows_new.index)
    return len(both), int((rows_old[both] != rows_new[both]).sum())


def graph_changes_table(
    changes: tuple[Change, ...] = GRAPH_CHANGES, root: Path | None = None
) -> pd.DataFrame:
    """:func:`changes_table` of the graph runs whose rows moved with the tie tolerance, with
    the number of their trials that chose other rows (column ``other rows``).

    Its ``attrs`` hold ``runs`` and ``trials`` (every run of ``changes``) and ``runs_moved``
    and ``trials_moved`` (those with other rows): the unmoved runs are equal trial by trial.
    """
    counts = [moved_trials(ch, root) for ch in changes]
    moved = tuple(ch for ch, (_, k) in zip(changes, counts, strict=True) if k)
    table = changes_table(moved, root)
    if moved:
        at = list(table.columns).index("trials") + 1
        table.insert(at, "other rows", [k for _, k in counts if k])
    table.attrs.update(
        runs=len(changes),
        trials=sum(n for n, _ in counts),
        runs_moved=len(moved),
        trials_moved=sum(k for _, k in counts),
    )
    return table


# -- Chapter 4: every transfer run moved at once ------------------------------------------------
#: The commit whose ``results/transfer`` holds Chapter 4's runs before issue 25 made the lattice
#: fit, the tie tolerance and Cholesky draws (RGPE) the transfer methods' defaults.
TRANSFER_BEFORE = "bfa4b4a"
#: File-name prefix of those runs' snapshots in ``results/changes/`` (``tools/extract_changes.py``
#: copies every transfer run of a method whose revision is not 0; ``rs`` did not move).
TRANSFER_PREFIX = "transfer-"


def transfer_snapshots(root: Path | None = None) -> dict[str, Path]:
    """The snapshots of Chapter 4's old runs: the *current* stem of each run's spec -> the old
    run's file (its sidecar holds its commit, path, SHA-256 and spec; each is checked).

    The old spec read back names the run that replaced it: a run's key holds its method's
    revision (:attr:`~nmthpo.optimizers.registry.MethodSpec.revision`), which is not a field of
    the spec, so the spec read from the old sidecar has the new run's stem.
    """
    from nmthpo.engine.runner import RunSpec

    folder = (root or results_dir()) / CHANGES_FOLDER
    out: dict[str, Path] = {}
    for path in sorted(folder.glob(f"{TRANSFER_PREFIX}*.parquet")):
        meta = _snapshot_record(path, TRANSFER_BEFORE)
        out[RunSpec.from_payload(meta["spec"]).stem()] = path
    return out


def transfer_changes_table(step: int = 50, root: Path | None = None) -> pd.DataFrame:
    """Chapter 4's ADTM at ``step`` per setting and method, before and after issue 25's
    defaults: old, new and new - old with its paired 95 % interval over the repetitions
    (repetition ``r`` of both starts from the same initial rows and source samples; the ADTM
    of a repetition is averaged over the targets, :func:`nmthpo.engine.ranks.per_repetition`)
    and the verdict of the interval (``no difference`` where it covers 0; a lower ADTM is
    better). Methods whose runs did not move (``rs``) are left out."""
    from nmthpo.engine.ranks import per_repetition
    from nmthpo.studies.grids import CHAPTER_GRID, book_dir
    from nmthpo.studies.li_transbo.study import setting_specs

    base = root or results_dir()
    snaps = transfer_snapshots(root)
    new_dir = base / "transfer" if root is not None else book_dir("transfer")
    rows = []
    for name in CHAPTER_GRID:
        specs = [sp for sp in setting_specs(name) if sp.stem() in snaps]
        if not specs:
            continue
        old = pd.concat([pd.read_parquet(snaps[sp.stem()]) for sp in specs], ignore_index=True)
        new = pd.concat(
            [pd.read_parquet(new_dir / f"{sp.stem()}.parquet") for sp in specs], ignore_index=True
        )
        a, b = per_repetition(old, step, "adtm"), per_repetition(new, step, "adtm")
        reps = a.index.intersection(b.index)
        for m in dict.fromkeys(sp.method for sp in specs):
            o, n = a.loc[reps, m].to_numpy(), b.loc[reps, m].to_numpy()
            est, lo, hi = paired_difference(n, o)
            verdict = "no difference"
            if hi < 0:
                verdict = "lower (better)"
            elif lo > 0:
                verdict = "higher (worse)"
            rows.append(
                {
                    "setting": name,
                    "method": m,
                    f"old ADTM@{step}": fmt(o.mean(), "adtm"),
                    f"new ADTM@{step}": fmt(n.mean(), "adtm"),
                    "new - old [95% CI]": fmt_interval(est, lo, hi, "adtm"),
                    "repetitions": len(reps),
                    "verdict": verdict,
                }
            )
    return pd.DataFrame(rows)


# -- the ledger: verdicts that moved with issue 25's recomputed runs ---------------------------
#: Snapshot of the ledger (``results/claims.csv``) of :data:`TRANSFER_BEFORE` in
#: ``results/changes/`` (``tools/extract_changes.py``): the verdicts before the GP methods of
#: Tables 4 and Chapter 4 moved to the lattice fit.
LEDGER_SNAPSHOT = "claims-before-lattice.csv"
#: The ledger's path in the repository (the snapshot's source).
LEDGER_PATH = "results/claims.csv"


def ledger_changes(root: Path | None = None) -> pd.DataFrame:
    """Claims of the ledger whose verdict differs from the snapshot :data:`LEDGER_SNAPSHOT`
    (checked against its sidecar): id, verdict before and now, and the reason now;
    ``attrs["claims"]``: how many claims both hold."""
    from nmthpo.studies.ledger import read_ledger

    base = root or results_dir()
    path = base / CHANGES_FOLDER / LEDGER_SNAPSHOT
    _snapshot_record(path, TRANSFER_BEFORE, LEDGER_PATH)
    old = read_ledger(path).set_index("id")
    new = read_ledger(base / "claims.csv").set_index("id")
    ids = [
        i for i in new.index if i in old.index and old.loc[i, "verdict"] != new.loc[i, "verdict"]
    ]
    out = pd.DataFrame(
        {
            "claim": ids,
            "chapter": [new.loc[i, "chapter"] for i in ids],
            "verdict before": [old.loc[i, "verdict"] for i in ids],
            "verdict now": [new.loc[i, "verdict"] for i in ids],
            "reason now": [new.loc[i, "reason"] for i in ids],
        }
    )
    out.attrs["claims"] = int(new.index.isin(old.index).sum())  # the claims compared
    return out
