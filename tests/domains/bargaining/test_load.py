import textwrap

import pytest
import yaml

from accord.domains.bargaining import (
    ScenarioError,
    builtin_scenarios,
    load_scenario,
    parse_scenario,
)

ISSUE_EXAMPLE = textwrap.dedent("""
    name: laptop-sale
    issues:
      price: [900, 1000, 1100, 1200]
      warranty: [0, 1, 2]
    parties:
      buyer:
        batna: 0.3
        utility:
          type: linear_additive
          weights: {price: 0.7, warranty: 0.3}
          values:
            price: {900: 1.0, 1000: 0.7, 1100: 0.3, 1200: 0.0}
            warranty: {0: 0.0, 1: 0.6, 2: 1.0}
      seller:
        batna: 0.2
        utility:
          type: table          # explicit utility per outcome, keys "issue=value,..." in issue order
          default: 0.0
          table: {"price=1200,warranty=0": 1.0, "price=1100,warranty=0": 0.8}
""")


def test_issue_example_parses_exactly(tmp_path):
    path = tmp_path / "laptop.yaml"
    path.write_text(ISSUE_EXAMPLE)
    s = load_scenario(path)
    assert s.name == "laptop-sale" and s.party_names == ("buyer", "seller")
    assert s.space.size == 12
    assert s.party("buyer").batna == 0.3
    assert s.party("seller").utility({"price": 1100, "warranty": 0}) == 0.8


@pytest.mark.parametrize("mutate, key, problem", [
    (lambda d: d["parties"]["buyer"].pop("batna"), "parties.buyer.batna", "BATNA"),
    (lambda d: d["parties"]["buyer"]["utility"]["values"]["price"].pop(900),
     "parties.buyer.utility.values.price.900", "missing score"),
    (lambda d: d["parties"]["buyer"]["utility"]["weights"].update(colour=1),
     "parties.buyer.utility.weights.colour", "unknown issue"),
    (lambda d: d["parties"]["seller"]["utility"].update(type="magic"),
     "parties.seller.utility.type", "unknown type"),
    (lambda d: d["parties"]["seller"]["utility"]["table"].update({"price=1300,warranty=0": 1}),
     "parties.seller.utility.table.price=1300,warranty=0", "not a value"),
    (lambda d: d["parties"]["seller"]["utility"]["table"].update({"warranty=0,price=900": 1}),
     "parties.seller.utility.table.warranty=0,price=900", "in order"),
    (lambda d: d["issues"].update(price=[]), "issues.price", "non-empty list"),
    (lambda d: d["parties"]["buyer"].update(batna="high"), "parties.buyer.batna", "number"),
    (lambda d: d["parties"].pop("seller"), "parties", "two parties"),
])
def test_broken_files_name_file_key_and_problem(tmp_path, mutate, key, problem):
    data = yaml.safe_load(ISSUE_EXAMPLE)
    mutate(data)
    path = tmp_path / "broken.yaml"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(ScenarioError) as err:
        load_scenario(path)
    msg = str(err.value)
    assert str(path) in msg and key in msg and problem in msg


def test_invalid_yaml_and_missing_file(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: [unclosed")
    with pytest.raises(ScenarioError, match="invalid YAML"):
        load_scenario(bad)
    with pytest.raises(ScenarioError, match="cannot read"):
        load_scenario(tmp_path / "absent.yaml")


def test_builtins_present():
    assert {"buyer-seller", "procurement", "sprint-planning", "split"} <= set(builtin_scenarios())


def test_allocation_utility_in_files():
    s = parse_scenario({
        "name": "items", "issues": {"book": [0, 1], "hat": [0, 1, 2]},
        "parties": {
            "a": {"batna": 1, "utility": {"type": "allocation", "counts": {"book": 1, "hat": 2},
                                          "unit_values": {"book": 4, "hat": 3}}},
            "b": {"batna": 1, "utility": {"type": "allocation", "counts": {"book": 1, "hat": 2},
                                          "unit_values": {"book": 2, "hat": 4}, "side": 1}}}})
    assert s.party("a").utility({"book": 1, "hat": 1}) == 7
    assert s.party("b").utility({"book": 1, "hat": 1}) == 4


def test_broken_files_name_the_line_too(tmp_path):
    """docs/tutorial.md: a mistake is reported "with the file, the line and the key"."""
    text = ISSUE_EXAMPLE.replace("weights: {price: 0.7,", "weights: {price: abc,")
    path = tmp_path / "broken.yaml"
    path.write_text(text)
    line = next(i for i, ln in enumerate(text.splitlines(), 1) if "price: abc" in ln)
    with pytest.raises(ScenarioError) as err:
        load_scenario(path)
    assert str(err.value) == (f"{path}: parties.buyer.utility.weights.price: expected a "
                              f"number, got 'abc' (line {line})")
    # a name holding dots ('99.5%') is matched whole, not split at its dots
    path.write_text(textwrap.dedent("""\
        name: dots
        issues:
          sla: ["99.9%", "99.5%"]
        parties:
          a:
            batna: 0
            utility:
              weights: {sla: 1}
              values:
                sla: {"99.9%": 1,
                      "99.5%": zz}
          b:
            batna: 0
            utility: {weights: {sla: 1}, values: {sla: {"99.9%": 0, "99.5%": 1}}}
        """))
    with pytest.raises(ScenarioError) as err:
        load_scenario(path)
    assert str(err.value).endswith("parties.a.utility.values.sla.99.5%: expected a number, "
                                   "got 'zz' (line 11)")
