"""xrr_accessor.datasets: IRep's CSV, simulated replications with known truth, textbook data.

The simulation tests check the closed-form population values of
``true_reliability`` twice: against moments of the drawn propensities (the
derivation, without the library), and against the library's estimates on a
200,000-item simulation (the estimators converge to it). Tolerances are about
4 standard deviations of the estimate over seeds, measured at that size:
alpha and kappa_x 0.015 (sd <= 0.004); normalized kappa_x 0.01 / sqrt(alpha_X
alpha_Y) (sd about 0.0025 / sqrt(alpha_X alpha_Y): 0.02 for alpha 0.5, 0.084 for
the "awe" preset's alpha 0.12).
"""

from __future__ import annotations

import gzip
import io
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import xrr_accessor as xrr
from xrr_accessor.datasets import (
    IREP_POOLS,
    PRESETS,
    LabelSpec,
    draw_propensities,
    load_fleiss1971,
    load_krippendorff2011,
    read_irep,
    simulate_replications,
    true_reliability,
)
from xrr_accessor.errors import InputError

DATA = Path(__file__).parent / "data"

# --------------------------------------------------------------------------- read_irep

# The published schema (Wong et al. 2021, Table 3): Item_ID, Annotator_pool, Rater,
# one 0/1 column per emotion, then "unsure". Item 2 has one rating in Kuala Lumpur.
IREP_CSV = """\
Item_ID,Annotator_pool,Rater,amusement,awe,contentment,sadness,unsure
item_1,Budapest,Rater 1,1,0,0,1,0
item_1,Budapest,Rater 2,1,1,1,0,0
item_2,Budapest,Rater 1,0,0,1,1,1
item_2,Budapest,Rater 2,0,1,0,1,0
item_3,Budapest,Rater 1,0,0,1,0,1
item_3,Budapest,Rater 2,1,0,1,0,1
item_1,Kuala Lumpur,Rater 1,1,0,0,0,0
item_1,Kuala Lumpur,Rater 2,0,1,1,0,1
item_2,Kuala Lumpur,Rater 1,0,0,0,1,1
item_3,Kuala Lumpur,Rater 1,0,1,1,1,0
item_3,Kuala Lumpur,Rater 2,1,1,1,0,0
item_1,Mexico City,Rater 1,1,1,0,0,0
item_1,Mexico City,Rater 2,1,0,0,1,1
item_2,Mexico City,Rater 1,0,0,1,1,0
item_2,Mexico City,Rater 2,0,0,0,1,1
item_3,Mexico City,Rater 1,0,1,0,0,1
item_3,Mexico City,Rater 2,0,0,1,0,0
"""
LABELS = ["amusement", "awe", "contentment", "sadness", "unsure"]
PUBLISHED_HEADER = {"item_id": "Item_ID", "pool": "Annotator_pool", "rater": "Rater"}


def test_read_irep_round_trips_the_published_schema(tmp_path):
    path = tmp_path / "irep.csv"
    path.write_text(IREP_CSV)
    df = read_irep(path)
    assert list(df.columns) == ["item_id", "pool", "rater", *LABELS]
    assert all(df[c].dtype == np.int8 for c in LABELS)
    lines = [line.split(",") for line in IREP_CSV.splitlines()[1:]]
    assert df["item_id"].tolist() == [row[0] for row in lines]
    assert df["pool"].tolist() == [row[1] for row in lines]
    assert df["rater"].tolist() == [row[2] for row in lines]
    assert df[LABELS].to_numpy().tolist() == [[int(v) for v in row[3:]] for row in lines]
    # written back in the published schema: the same bytes, and read again the same frame
    back = tmp_path / "back.csv"
    df.rename(columns=PUBLISHED_HEADER).to_csv(back, index=False)
    assert back.read_text() == IREP_CSV
    pd.testing.assert_frame_equal(read_irep(back), df)
    # a buffer, a gzipped path and a frame read the same
    pd.testing.assert_frame_equal(read_irep(io.StringIO(IREP_CSV)), df)
    gz = tmp_path / "irep.csv.gz"
    gz.write_bytes(gzip.compress(IREP_CSV.encode()))
    pd.testing.assert_frame_equal(read_irep(gz), df)
    # and the library finds the roles by itself
    alpha = xrr.irr(df)
    assert list(alpha.columns) == list(IREP_POOLS)
    assert list(alpha.index) == LABELS
    assert xrr.cross_kappa(df).shape == (len(LABELS), 3)


@pytest.mark.parametrize("header", [
    ("item_id", "pool", "rater"),
    ("Item ID", "Rater pool", "Rater slot"),
    ("ITEM_IDS", "annotator-pool", "rater_id"),
    ("item", "replication", "annotator"),
])
def test_read_irep_accepts_header_spellings(header):
    text = ",".join(header) + IREP_CSV[IREP_CSV.index(",amusement"):]
    df = read_irep(io.StringIO(text))
    pd.testing.assert_frame_equal(df, read_irep(io.StringIO(IREP_CSV)))


def test_read_irep_roles_found_anywhere_and_named_explicitly():
    text = "emotion_a,slot,video,city\n1,r1,v1,X\n0,r2,v1,X\n"
    df = read_irep(io.StringIO(text))
    assert list(df.columns) == ["item_id", "pool", "rater", "emotion_a"]
    text = "clip,site,person,joy\nv1,X,r1,1\n"
    df = read_irep(io.StringIO(text), item="clip", pool="site", rater="person")
    assert df.iloc[0].tolist() == ["v1", "X", "r1", 1]
    with pytest.raises(InputError, match=r"'site2' given as pool= is not in the file"):
        read_irep(io.StringIO(text), item="clip", pool="site2", rater="person")


def test_read_irep_missing_cells_and_boolean_spellings():
    text = ("Item_ID,Annotator_pool,Rater,joy,awe,fear\n"
            "i1,A,R1,1,TRUE,true\n"
            "i1,A,R2,,FALSE,0\n"
            "i2,A,R1,0,True,1.0\n")
    df = read_irep(io.StringIO(text))
    assert str(df["joy"].dtype) == "Int8"
    assert df["joy"].isna().tolist() == [False, True, False]
    assert df["joy"].dropna().tolist() == [1, 0]
    assert df["awe"].dtype == np.int8
    assert df["awe"].tolist() == [1, 0, 1]
    assert df["fear"].tolist() == [1, 0, 1]


@pytest.mark.parametrize(("cell", "shown"), [("2", "2"), ("yes", "'yes'"), ("0.5", "0.5"),
                                             ("-1", "-1")])
def test_read_irep_rejects_non_binary_labels(cell, shown):
    text = IREP_CSV.replace("item_2,Budapest,Rater 2,0,1,0,1,0",
                            f"item_2,Budapest,Rater 2,0,{cell},0,1,0")
    with pytest.raises(InputError, match=r"column 'awe' holds") as err:
        read_irep(io.StringIO(text))
    message = str(err.value)
    assert f"holds {shown} (1 cell(s)" in message
    assert "line(s) 5" in message  # header = line 1, so the 4th annotation is on line 5
    assert "0 or 1" in message


@pytest.mark.parametrize(("drop", "what", "fix"), [
    ("Annotator_pool", "rater pool", "pool='<column>'"),
    ("Rater", "rater slot", "rater='<column>'"),
    ("Item_ID", "item id", "item='<column>'"),
])
def test_read_irep_missing_role_column(drop, what, fix):
    frame = pd.read_csv(io.StringIO(IREP_CSV)).drop(columns=drop)
    text = frame.to_csv(index=False)
    with pytest.raises(InputError, match=f"no {what} column") as err:
        read_irep(io.StringIO(text))
    assert fix in str(err.value)


def test_read_irep_empty_and_degenerate_files(tmp_path):
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(InputError, match="the file is empty"):
        read_irep(empty)
    with pytest.raises(InputError, match="header but no annotations"):
        read_irep(io.StringIO(IREP_CSV.splitlines()[0] + "\n"))
    with pytest.raises(InputError, match="no label columns"):
        read_irep(io.StringIO("Item_ID,Annotator_pool,Rater\ni1,A,R1\n"))
    with pytest.raises(InputError, match="several columns could be the pool column"):
        read_irep(io.StringIO("Item_ID,pool,city,Rater,joy\ni1,A,A,R1,1\n"))
    with pytest.raises(InputError, match=r"column 'Rater' \(rater\) has 1 empty cell"):
        read_irep(io.StringIO("Item_ID,pool,Rater,joy\ni1,A,R1,1\ni1,A,,0\n"))
    saved_index = pd.read_csv(io.StringIO(IREP_CSV)).to_csv()  # a header cell left empty
    with pytest.raises(InputError, match=r"'Unnamed: 0' holds 2, 3, 4 .*index_col=0"):
        read_irep(io.StringIO(saved_index))
    frame = pd.read_csv(io.StringIO(saved_index), index_col=0)
    pd.testing.assert_frame_equal(read_irep(frame), read_irep(io.StringIO(IREP_CSV)))


def test_read_irep_does_not_modify_a_frame():
    raw = pd.read_csv(io.StringIO(IREP_CSV))
    before = raw.copy()
    out = read_irep(raw)
    pd.testing.assert_frame_equal(raw, before)
    out.iloc[0, 3] = 0
    pd.testing.assert_frame_equal(raw, before)


# --------------------------------------------------------------------------- simulation


def test_simulate_layout_and_reproducibility():
    df = simulate_replications(300, seed=5, coverage=0.8, single_rate=0.1)
    assert list(df.columns) == ["item_id", "pool", "rater", *PRESETS]
    assert all(df[c].dtype == np.int8 for c in PRESETS)
    assert set(np.unique(df[list(PRESETS)])) <= {0, 1}
    assert df["pool"].unique().tolist() == list(IREP_POOLS)
    assert set(df["rater"]) == {"Rater 1", "Rater 2"}
    per = df.groupby(["pool", "item_id"]).size()
    assert set(per) == {1, 2}
    assert 0.7 < per.groupby(level="pool").size().mean() / 300 < 0.9  # coverage
    assert not df.duplicated(["item_id", "pool", "rater"]).any()
    pd.testing.assert_frame_equal(df, simulate_replications(300, seed=5, coverage=0.8,
                                                             single_rate=0.1))
    assert not df.equals(simulate_replications(300, seed=6, coverage=0.8, single_rate=0.1))
    params = df.attrs["xrr_simulation"]
    assert params["pools"] == list(IREP_POOLS) and params["seed"] == 5
    assert set(params["labels"]) == set(PRESETS)


def test_simulate_ratings_follow_draw_propensities():
    """Same seed, same propensities: item means of many raters recover p_X(i)."""
    n, m = 40, 400
    spec = {"joy": LabelSpec(prevalence=0.3, concentration=1.0, shift={"A": 0.0, "B": 1.0},
                             noise=[0.2, 0.0])}
    df = simulate_replications(n, spec, pools=["A", "B"], raters_per_item=m, seed=9)
    p = draw_propensities(n, spec, pools=["A", "B"], seed=9)
    means = df.groupby(["item_id", "pool"])["joy"].mean().unstack("pool")
    gap = (means - p["joy"].loc[means.index]).abs()
    assert gap.to_numpy().max() < 0.1  # 4 sd of a mean of 400 Bernoullis


def test_truth_closed_form_matches_moments_of_the_propensities():
    """The derivation: alpha = V / (pi (1 - pi)), kappa_x = 2 C / De, from raw draws."""
    labels = {**PRESETS, "uneven": LabelSpec(prevalence=0.2, concentration=2.0,
                                             shift=[0.1, 0.3], noise=[0.3, 0.3],
                                             guess=[1.0, 0.0])}
    pools = ["X", "Y"]
    p = draw_propensities(300_000, labels, pools=pools, seed=3)
    truth = true_reliability(labels, pools)
    for name in labels:
        px, py = p[(name, "X")].to_numpy(), p[(name, "Y")].to_numpy()
        for pool, q in (("X", px), ("Y", py)):
            pi = q.mean()
            # the definitions: within-pool Do = E[2 p (1 - p)], De = 2 pi (1 - pi)
            alpha = 1 - np.mean(2 * q * (1 - q)) / (2 * pi * (1 - pi))
            assert truth.prevalence.loc[name, pool] == pytest.approx(pi, abs=0.003)
            assert truth.alpha.loc[name, pool] == pytest.approx(alpha, abs=0.01)
        do = np.mean(px * (1 - py) + py * (1 - px))
        de = px.mean() * (1 - py.mean()) + py.mean() * (1 - px.mean())
        assert truth.kappa_x.loc[name, ("X", "Y")] == pytest.approx(1 - do / de, abs=0.01)
        corr = np.corrcoef(px, py)[0, 1]
        assert truth.correlation.loc[name, ("X", "Y")] == pytest.approx(corr, abs=0.01)
    # unequal marginals: normalized kappa_x is below the correlation of item means
    assert truth.normalized.loc["uneven"].iloc[0] < truth.correlation.loc["uneven"].iloc[0] - 0.05
    # equal marginals: they coincide
    assert truth.normalized.loc["sadness"].iloc[0] == pytest.approx(
        truth.correlation.loc["sadness"].iloc[0], abs=1e-12)


# The heterogeneous case of the paper's "contentment" row: Mexico City and
# Budapest agree with each other, Kuala Lumpur agrees only internally, and the
# pools' marginals differ.
MIXED = LabelSpec(
    prevalence=0.15, concentration=0.5,
    shift={"Budapest": 0.08, "Kuala Lumpur": 1.0, "Mexico City": 0.08},
    noise={"Budapest": 0.4, "Kuala Lumpur": 0.05, "Mexico City": 0.2},
    guess={"Budapest": 0.5, "Kuala Lumpur": 0.15, "Mexico City": 0.3},
)


@pytest.mark.filterwarnings("ignore:normalized kappa_x exceeds 1")  # on other item sets
def test_large_simulation_estimates_match_the_truth():
    labels = {**PRESETS, "mixed": MIXED}
    df = simulate_replications(200_000, labels, seed=2021, coverage=0.9, single_rate=0.05)
    truth = true_reliability(df)
    alpha, kx, norm = xrr.irr(df), xrr.cross_kappa(df), xrr.normalized(df)
    pd.testing.assert_frame_equal(alpha, truth.alpha, atol=0.015, check_names=False)
    pd.testing.assert_frame_equal(kx, truth.kappa_x, atol=0.015, check_names=False)
    a = truth.alpha.to_numpy()
    pairs = [(0, 1), (0, 2), (1, 2)]
    tol = 0.01 / np.sqrt(np.column_stack([a[:, i] * a[:, j] for i, j in pairs]))
    gap = (norm - truth.normalized).abs().to_numpy()
    assert (gap < tol).all(), (norm - truth.normalized)
    # the paper's qualitative cases
    assert (norm.loc["perfect"] - 1).abs().max() < 0.02              # perfect replication
    assert (alpha.loc["sadness"] > 0.45).all()                        # high IRR that
    assert (norm.loc["sadness"] > 0.85).all()                         # generalizes
    assert (alpha.loc["contentment"] > 0.5).all()                     # high IRR that
    assert norm.loc["contentment"].abs().max() < 0.03                 # does not
    assert (alpha.loc["awe"] < 0.15).all()                            # low IRR,
    assert (kx.loc["awe"] < 0.1).all()                                # low kappa_x,
    assert (norm.loc["awe"] > 0.6).all()                              # good replication
    mixed = norm.loc["mixed"]
    assert mixed[("Budapest", "Mexico City")] > 0.75
    assert mixed[("Budapest", "Kuala Lumpur")] == pytest.approx(0, abs=0.05)
    assert mixed[("Kuala Lumpur", "Mexico City")] == pytest.approx(0, abs=0.05)


def test_cohen_kappa_has_the_same_limit_with_exchangeable_slots():
    df = simulate_replications(60_000, ["sadness", "awe"], pools=["A", "B"], seed=4)
    truth = true_reliability(df)
    cohen = xrr.irr(df, metric="cohen")
    pd.testing.assert_frame_equal(cohen, truth.alpha, atol=0.02, check_names=False)


def test_presets_population_values():
    truth = true_reliability(pools=["MC", "Bud"])
    assert truth.alpha.loc["perfect"].tolist() == pytest.approx([0.5, 0.5])
    assert truth.normalized.loc["perfect"].iloc[0] == pytest.approx(1.0)
    # the paper's Table 2 / Section 4 values, Mexico City x Budapest
    assert truth.alpha.loc["sadness", "MC"] == pytest.approx(0.516, abs=0.002)
    assert truth.kappa_x.loc["sadness"].iloc[0] == pytest.approx(0.471, abs=0.002)
    assert truth.normalized.loc["sadness"].iloc[0] == pytest.approx(0.912, abs=0.001)
    assert truth.kappa_x.loc["contentment"].iloc[0] == 0
    assert truth.alpha.loc["awe", "Bud"] == pytest.approx(0.119, abs=0.002)
    assert truth.normalized.loc["awe"].iloc[0] == pytest.approx(0.687, abs=0.001)
    # shapes follow the library's results
    assert truth.alpha.index.name == "label"
    assert truth.alpha.columns.name == "replication"
    assert truth.kappa_x.columns.names == ["replication", "replication_other"]


def test_shift_moves_similarity_not_irr_and_noise_the_reverse():
    base = LabelSpec(prevalence=0.2, concentration=1.0)
    spec = {"base": base,
            "shifted": LabelSpec(prevalence=0.2, concentration=1.0, shift=0.5),
            "noisy": LabelSpec(prevalence=0.2, concentration=1.0, noise=0.5)}
    truth = true_reliability(spec, ["A", "B"])
    assert truth.alpha.loc["shifted"].tolist() == pytest.approx(truth.alpha.loc["base"].tolist())
    assert truth.normalized.loc["shifted"].iloc[0] == pytest.approx(0.25)  # (1 - 0.5)^2
    assert truth.alpha.loc["noisy", "A"] == pytest.approx(0.25 * truth.alpha.loc["base", "A"])
    assert truth.normalized.loc["noisy"].iloc[0] == pytest.approx(1.0)


def test_simulation_input_errors_and_inputs_untouched():
    with pytest.raises(InputError, match="not a preset"):
        simulate_replications(10, preset="joy")
    with pytest.raises(InputError, match="not both"):
        simulate_replications(10, ["awe"], preset="awe")
    with pytest.raises(InputError, match=r"lacks pool\(s\) \['B'\]"):
        simulate_replications(10, {"j": LabelSpec(shift={"A": 0.1})}, pools=["A", "B"])
    with pytest.raises(InputError, match=r"noise of pool 'A' is 1.0"):
        simulate_replications(10, {"j": LabelSpec(noise=[1.0, 0.0])}, pools=["A", "B"])
    with pytest.raises(InputError, match="would be read as a role column"):
        simulate_replications(10, {"Item_ID": PRESETS["awe"]})
    with pytest.raises(InputError, match="prevalence"):
        LabelSpec(prevalence=0.0)
    with pytest.raises(InputError, match="no simulation parameters"):
        true_reliability(pd.DataFrame({"a": [1]}))
    shift = {"A": 0.1, "B": 0.2}
    spec = LabelSpec(shift=shift)
    shift["A"] = 0.9  # the spec keeps its own copy
    assert spec.shift["A"] == 0.1
    labels = {"j": spec}
    df = simulate_replications(10, labels, pools=["A", "B"])
    assert labels == {"j": spec}
    # a spec given for more pools serves a subset of them
    sub = true_reliability(df[df["pool"] == "B"], pools=["B"])
    assert sub.alpha.columns.tolist() == ["B"]
    assert sub.kappa_x.shape == (1, 0)


# --------------------------------------------------------------------------- textbook data

K2011_PUBLISHED = {"nominal": 0.743, "ordinal": 0.815, "interval": 0.849, "ratio": 0.797}


@pytest.mark.parametrize(("level", "published"), K2011_PUBLISHED.items())
def test_krippendorff2011_published_alphas(level, published):
    df = load_krippendorff2011()
    assert round(xrr.irr(df, level=level), 3) == published


def test_krippendorff2011_layout():
    df = load_krippendorff2011()
    assert list(df.columns) == ["item_id", "rater", "value"]
    assert len(df) == 41
    wide = df.pivot(index="item_id", columns="rater", values="value")
    # Krippendorff (2011), section C: observers A-D x units 1-12, NaN = no value
    nan = np.nan
    published = [[1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
                 [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
                 [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
                 [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan]]
    np.testing.assert_array_equal(wide.to_numpy(dtype=float).T, np.array(published))
    assert list(wide.columns) == ["A", "B", "C", "D"]
    assert list(wide.index) == list(range(1, 13))


def test_fleiss1971_published_kappa_and_bundled_copy():
    df = load_fleiss1971()
    assert round(xrr.irr(df, metric="fleiss")["diagnosis"], 3) == 0.430
    assert df.shape == (180, 3)
    assert df.groupby("item_id").size().eq(6).all()
    source = pd.read_csv(DATA / "fleiss1971_diagnoses.csv")
    assert df["item_id"].tolist() == source["item"].tolist()
    assert df["rater"].tolist() == source["rater"].tolist()
    assert df["diagnosis"].tolist() == source["value"].tolist()
