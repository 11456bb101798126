"""The policy registry lists every registered policy whatever was imported before."""

from __future__ import annotations

import json
import subprocess
import sys


def _fresh(code: str) -> object:
    """Run ``code`` in a new interpreter (nothing imported yet); its printed JSON."""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=120)
    return json.loads(out.stdout)


def test_listing_loads_entry_point_policies_in_a_fresh_interpreter() -> None:
    # only the stub's generic policies are imported here: the bargaining negotiator is
    # registered by accord.domains.bargaining.stub (an entry point), which nothing imported
    listed = _fresh(
        "import json, sys\n"
        "from accord.testing.stub import POLICIES, make_policy\n"
        "before = 'accord.domains.bargaining.stub' in sys.modules\n"
        "make_policy('echo')\n"
        "print(json.dumps({'before': before, 'names': sorted(POLICIES),\n"
        "                  'len': len(POLICIES), 'keys': sorted(POLICIES.keys()),\n"
        "                  'in': 'dond' in POLICIES}))\n")
    assert isinstance(listed, dict)
    assert listed["before"] is False
    assert {"echo", "negotiator", "dond"} <= set(listed["names"])
    assert listed["keys"] == listed["names"] and listed["len"] == len(listed["names"])
    assert listed["in"] is True


def test_membership_of_an_unloaded_name_loads_the_entry_points() -> None:
    found = _fresh("import json\n"
                   "from accord.llm.policy import POLICIES\n"
                   "print(json.dumps(['negotiator' in POLICIES, 'no-such' in POLICIES]))\n")
    assert found == [True, False]
