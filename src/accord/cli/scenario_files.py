"""Built-in scenarios as editable files (``accord scenarios show NAME``).

Each built-in domain that reads a scenario from a file gets its own file form: the
bargaining YAML scenario, a games file (JSON or YAML), a task-exchange scenario YAML (its
``tasks:`` universe pointed at the packaged task list, so the copy loads from anywhere),
a deliberation instance JSON (run with ``-p instance_file=FILE``). Deal or No Deal's
scenarios are dialogues of a downloaded data set and have no file form: asking for one is
refused with the reason. A plug-in domain may export ``scenario_file(name)`` returning
``(file name, text)`` from its package to take part.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


class NoFileForm(ValueError):
    """The scenario exists (or may) but has no file form, or the name is unknown."""


@dataclass(frozen=True)
class ScenarioFile:
    """A built-in scenario written out: its suggested file name, its text and the command
    that runs the written file."""

    filename: str
    text: str
    run: str


def _bargaining(name: str) -> ScenarioFile:
    from importlib import resources

    from accord.domains.bargaining.listing import list_scenarios

    if name not in list_scenarios():
        raise NoFileForm(_unknown("bargaining", name, list_scenarios()))
    text = resources.files("accord.domains.bargaining").joinpath(
        "data", f"{name}.yaml").read_text(encoding="utf-8")
    return ScenarioFile(f"{name}.yaml", text,
                        "accord run {file} --agents boulware,conceder")


def _games(name: str) -> ScenarioFile:
    from accord.domains.games.catalog import catalog_entry, catalog_names

    if name not in catalog_names():
        raise NoFileForm(_unknown("games", name, catalog_names()))
    path = Path(catalog_entry(name).path)
    return ScenarioFile(f"{name}{path.suffix}", path.read_text(encoding="utf-8"),
                        "accord run games/{file} --agents rational,rational")


_TASKS = re.compile(r"^tasks:[ \t]*(\S.*?)[ \t]*$", re.M)


def _task_exchange(name: str) -> ScenarioFile:
    from accord.domains.task_exchange.listing import SCENARIO_DIR, list_scenarios

    if name not in list_scenarios():
        raise NoFileForm(_unknown("task-exchange", name, list_scenarios()))
    path = SCENARIO_DIR / f"{name}.yaml"
    text = path.read_text(encoding="utf-8")

    def absolute(m: re.Match[str]) -> str:
        ref = m.group(1).strip("'\"")
        target = (path.parent / ref).resolve()
        return f"tasks: '{target}'  # the packaged task universe; point it at your own copy"

    return ScenarioFile(f"{name}.yaml", _TASKS.sub(absolute, text, count=1),
                        "accord run task-exchange/{file} --agents utility-aware,utility-aware")


def _deliberation(name: str) -> ScenarioFile:
    from accord.domains.deliberation.catalog import instance_paths
    from accord.domains.deliberation.listing import SETTINGS, TASK_SETTING

    setting, _, index = name.partition("/")
    if setting not in SETTINGS:
        raise NoFileForm(_unknown("deliberation", name, list(SETTINGS)))
    paths = instance_paths(setting)
    if not index.isdigit() or not 0 <= int(index) < len(paths):
        if index:
            raise NoFileForm(f"deliberation/{setting} has instances 0..{len(paths) - 1}, "
                             f"not {index!r}")
        index = "0"
    path = paths[int(index)]
    agents = ",".join(["share"] * (3 if setting == TASK_SETTING else 2))
    return ScenarioFile(f"{setting}-{int(index)}.json", path.read_text(encoding="utf-8"),
                        f"accord run deliberation/{setting} --agents {agents} "
                        "-p instance_file={file}")


def _dond(name: str) -> ScenarioFile:
    raise NoFileForm("deal-or-no-deal scenarios are dialogues of the downloaded data set "
                     "(`accord dond download`), not files: there is no file form to write; "
                     "run one by name with `accord run deal-or-no-deal/ID`")


#: the built-in domains' writers, by domain name
WRITERS: dict[str, Callable[[str], ScenarioFile]] = {
    "bargaining": _bargaining, "games": _games, "task-exchange": _task_exchange,
    "deliberation": _deliberation, "deal-or-no-deal": _dond}


def _unknown(domain: str, name: str, known: list[str]) -> str:
    from accord.core.names import unknown_name

    return unknown_name(f"{domain} scenario", name, known)


def scenario_file(target: str) -> ScenarioFile:
    """The file form of the built-in scenario ``DOMAIN/NAME`` (a bare name is looked up in
    bargaining); :class:`NoFileForm` says why there is none."""
    domain, sep, name = target.partition("/")
    if not sep:
        domain, name = "bargaining", target
    writer = WRITERS.get(domain)
    if writer is not None:
        return writer(name)
    from accord.domains import domain_module, domain_names

    module = domain_module(domain)
    if module is None:
        from accord.core.names import unknown_name

        raise NoFileForm(unknown_name("domain", domain, sorted({*WRITERS, *domain_names()})))
    hook = getattr(importlib.import_module(module), "scenario_file", None)
    if not callable(hook):
        raise NoFileForm(f"domain {domain!r} has no file form for its scenarios")
    filename, text = hook(name)
    return ScenarioFile(str(filename), str(text), f"accord run {domain}/{{file}}")
