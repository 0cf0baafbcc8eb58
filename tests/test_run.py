"""``shedding.run.run_policy``, the one dispatch by policy name: what it refuses for every policy."""

from __future__ import annotations

import pandas as pd
import pytest

from shedding.band.predicate import BandWorkload
from shedding.datasets import zipf_workload
from shedding.errors import ShedError
from shedding.run import run_policy


@pytest.mark.parametrize("policy", ["exact", "prob", "hazard", "opt", "optv"])
def test_an_unknown_estimator_is_refused_for_every_policy(policy):
    wl = zipf_workload(1.0, 10, 60, seed=1, window=10)
    with pytest.raises(ShedError, match="^unknown estimator 'bogus'; choose static or online$"):  # OPT ran
        run_policy(wl, policy, 4, estimator="bogus")


def test_a_group_is_refused_but_for_hazard():
    wl = zipf_workload(1.0, 10, 60, seed=1, window=10)
    wl.meta["payload"] = pd.DataFrame({"dest": pd.Categorical([i % 3 for i in range(len(wl))])})
    assert run_policy(wl, "hazardv", 4, estimator="online", group="dest").params["group"] == "dest"
    for policy in ("exact", "prob", "age", "opt"):  # OPT and EXACT ran, PROB and AGE read the column and ignored it
        with pytest.raises(ShedError, match=f"^group is HAZARD's payload column on an equi-join .*, not {policy}'s; "
                                            "leave it out$"):
            run_policy(wl, policy, 4, group="dest")
    with pytest.raises(ShedError, match="^group is HAZARD's payload column on an equi-join .*, not hazard's on a band "
                                        "join; leave it out$"):
        run_policy(BandWorkload.on_key(wl, 1), "hazard", 4, group="dest")


def test_simulate_refuses_a_group_but_for_hazard_as_run_policy_does():
    """The library's simulate() too: a group given to PROB or AGE would be read and ignored."""
    from shedding.online.simulator import simulate

    wl = zipf_workload(1.0, 10, 60, seed=1, window=10)
    wl.meta["payload"] = pd.DataFrame({"dest": pd.Categorical([i % 3 for i in range(len(wl))])})
    assert simulate(wl, "hazard", 4, estimator="online", group="dest").params["group"] == "dest"
    for policy in ("exact", "prob", "age"):
        with pytest.raises(ShedError, match=f"^group is HAZARD's payload column .*, not {policy}'s; leave it out$"):
            simulate(wl, policy, 4, group="dest")
