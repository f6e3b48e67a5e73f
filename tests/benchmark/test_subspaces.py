"""Tests for nmthpo.benchmark.subspaces: SPEC parsing, labels, enumeration and sampling of
sub-grids."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from nmthpo.benchmark.subspaces import (
    SubGrid,
    grid_values,
    parse_space,
    parse_spaces,
    sample_subgrids,
    single_restrictions,
    space_rows,
)


def _configs(drop_last: bool = True) -> pd.DataFrame:
    rows = list(
        itertools.product(
            [1000, 2000, 4000, 8000, 16000, 32000],
            [1, 2, 4, 6],
            [256, 512, 1024],
            [1024, 2048],
            [8, 16],
            [3e-4, 6e-4, 1e-3],
        )
    )
    if drop_last:  # not full factorial: no (32000, 6, 1024) configurations
        rows = [r for r in rows if not (r[0] == 32000 and r[1] == 6 and r[2] == 1024)]
    return pd.DataFrame(rows, columns=["bpe", "layers", "embed", "hidden", "heads", "lr"])


CONFIGS = _configs()
GRID = grid_values(CONFIGS)


def test_parse_example_and_mask():
    s = parse_space("layers=2;embed<=512;bpe=1k|4000", GRID)
    assert s.label == "bpe=1000|4000;layers=2;embed<=512"
    m = s.mask(CONFIGS)
    sub = CONFIGS[m]
    assert set(sub["layers"]) == {2} and set(sub["embed"]) == {256, 512}
    assert set(sub["bpe"]) == {1000, 4000}
    assert m.sum() == 2 * 1 * 2 * 2 * 2 * 3


@pytest.mark.parametrize(
    "text,label",
    [
        ("full", "full"),
        ("layers!=1", "layers>=2"),
        ("lr<6e-4", "lr=0.0003"),
        ("bpe>4000;bpe<=16000", "bpe=8000|16000"),
        ("embed=256|512|1024", "full"),
        ("heads = 16 ; layers >= 4", "layers>=4;heads=16"),
    ],
)
def test_labels_are_canonical_and_round_trip(text, label):
    s = parse_space(text, GRID)
    assert s.label == label
    assert parse_space(s.label, GRID) == s


@pytest.mark.parametrize(
    "text,exc,msg",
    [
        ("depth=2", KeyError, "unknown hyperparameter 'depth'"),
        ("layers~2", ValueError, "cannot parse clause 'layers~2'"),
        ("layers=two", ValueError, "cannot parse value 'two'"),
        ("layers=3", ValueError, "value 3 .* not a value of 'layers'"),
        ("layers=2;layers=4", ValueError, "empty space"),
        ("layers<1", ValueError, "empty space"),
        ("layers<=2|4", ValueError, "single threshold"),
        ("layers=", ValueError, "no value"),
    ],
)
def test_parse_errors_name_the_token(text, exc, msg):
    with pytest.raises(exc, match=msg):
        parse_space(text, GRID)


def test_parse_spaces_items_dedup_and_errors(tmp_path):
    rng = np.random.default_rng(0)
    spaces = parse_spaces("full,layers=2,layers<=2;layers>=2,random:5", CONFIGS, rng)
    labels = [s.label for s in spaces]
    assert labels[:2] == ["full", "layers=2"] and len(labels) == 7 == len(set(labels))
    with pytest.raises(ValueError, match="random:N"):
        parse_spaces("random:x", CONFIGS, rng)
    with pytest.raises(ValueError, match="needs a random generator"):
        parse_spaces("random:3", CONFIGS)
    with pytest.raises(ValueError, match="no such file"):
        parse_spaces("@/nonexistent/spaces.txt", CONFIGS)
    with pytest.raises(ValueError, match="empty SPEC"):
        parse_spaces(" , ", CONFIGS)
    with pytest.raises(ValueError, match="contains no row"):
        parse_spaces("bpe=32000;layers=6;embed=1024", CONFIGS)
    f = tmp_path / "spaces.txt"
    f.write_text("# candidate spaces\nlayers=2  # two layers\nembed<=512,heads=8\n\n")
    assert [s.label for s in parse_spaces(f"@{f}", CONFIGS)] == [
        "layers=2",
        "embed<=512",
        "heads=8",
    ]


def test_single_restrictions_count_and_default():
    singles = single_restrictions(GRID)
    assert len(singles) == 20 + 9 + 5 + 2 + 2 + 5  # k (k + 1) / 2 - 1 per hyperparameter
    assert all(s.n_restricted == 1 for s in singles)
    spaces = parse_spaces("default", CONFIGS, np.random.default_rng(1))
    assert len(spaces) == 1 + 43 + 50


def test_sample_subgrids_distinct_nonempty_proper():
    rng = np.random.default_rng(2)
    spaces = sample_subgrids(CONFIGS, 30, rng, min_rows=5)
    assert len({s.label for s in spaces}) == 30
    for s in spaces:
        assert s.n_restricted >= 1
        assert len(space_rows(s, CONFIGS)) >= 5
        assert 0 < s.volume_fraction() < 1
    tiny = pd.DataFrame({"a": [1, 2], "b": [1, 1]})
    # only two distinct proper sub-grids exist (a=1, a=2): fewer than asked are returned
    assert {s.label for s in sample_subgrids(tiny, 10, rng, max_tries=500)} == {"a=1", "a=2"}


def test_subgrid_from_mapping_validates():
    with pytest.raises(KeyError, match="unknown hyperparameter"):
        SubGrid.from_mapping({"x": [1]}, GRID)
    with pytest.raises(ValueError, match="empty space"):
        SubGrid.from_mapping({"layers": []}, GRID)
