"""accord.domains.seats: the kind, model and options of a seat's agent spec."""

from __future__ import annotations

from accord.domains.seats import agent_model


def test_llm_specs_give_their_model_and_code_agents_their_spec() -> None:
    assert agent_model("llm:openai/gpt-4o?temperature=1") == ("llm", "openai/gpt-4o",
                                                            {"temperature": 1})
    kind, model, opts = agent_model("llm-workflow:mock/dond?temperature=0")
    assert (kind, model, opts["temperature"]) == ("llm-workflow", "mock/dond", 0)
    assert agent_model("rational") == ("code", "rational", {})
    assert agent_model("not a spec ::")[0] == "code"
