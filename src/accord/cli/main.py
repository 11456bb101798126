"""The ``accord`` command: thin wiring from arguments to the library.

Start-up is kept small: this module and the command modules import only typer and the
standard library at load time; each command imports the library parts it needs when it
runs, so ``accord --help`` does not load numpy, the domains or the LLM SDKs, and
``accord --version`` does not even load typer.

The annotations here are evaluated when the module is defined (no ``from __future__
import annotations``): typer reads every command's signature with ``get_type_hints`` when
the command line is built, which would otherwise compile and evaluate each of the ~40
annotation strings of ``run`` at every start.
"""

import importlib
from collections.abc import Sequence
from difflib import get_close_matches
from pathlib import Path
from typing import Any

import typer
from typer.core import TyperGroup

from accord._version import __version__
from accord.cli import common as c
from accord.cli import end_startup

GROUPS = c.GROUPS


class LazyGroup(TyperGroup):
    """The root command: the command groups (accord's own :data:`GROUPS` and the domains'
    ``accord.commands`` entry points) and the commands of :data:`LAZY_COMMANDS` are
    imported and built only when one of theirs runs or ``--help`` lists them, so ``accord
    run`` does not pay for every other command. A domain's command module imports only
    typer and the CLI helpers (domain packages export lazily), so listing them stays
    cheap."""

    def _groups(self) -> dict[str, str]:
        groups: dict[str, str] | None = getattr(self, "_group_map", None)
        if groups is None:
            groups = c.command_groups()
            self._group_map = groups
        return groups

    def list_commands(self, ctx: Any) -> list[str]:
        """The eager commands, the lazy commands, then the lazy groups."""
        eager = super().list_commands(ctx)
        return [*eager, *(n for n in LAZY_COMMANDS if n not in eager),
                *(g for g in self._groups() if g not in self.commands)]

    def get_command(self, ctx: Any, name: str) -> Any:
        """A command by name, building a lazy command or group on first use."""
        cmd = super().get_command(ctx, name)
        if cmd is None and name in LAZY_COMMANDS:
            cmd = _lazy_command(name)
            self.add_command(cmd, name)
            return cmd
        target = self._groups().get(name) if cmd is None else None
        if target is not None:
            module, _, attr = target.partition(":")
            sub = getattr(importlib.import_module(module), attr or "app")
            cmd = typer.main.get_command(sub)
            cmd.name = name
            self.add_command(cmd, name)
        return cmd

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        """typer's, with its "Did you mean" drawn from every command, lazy ones included
        (typer looks only at the commands built so far)."""
        try:
            return super().resolve_command(ctx, args)
        except Exception as exc:  # click's UsageError, vendored by typer
            message = getattr(exc, "message", None)
            if (args and isinstance(message, str) and message.startswith("No such command")
                    and "Did you mean" not in message):
                matches = get_close_matches(args[0], self.list_commands(ctx))
                if matches:
                    exc.message = (f"{message.rstrip('.')}. Did you mean "  # type: ignore[attr-defined]
                                   f"{', '.join(repr(m) for m in matches)}?")
            raise

    def main(self, args: Sequence[str] | None = None, prog_name: str | None = None,
             complete_var: str | None = None, standalone_mode: bool = True,
             windows_expand_args: bool = True, **extra: Any) -> Any:
        """Run a command inside the one error boundary (:mod:`accord.cli.boundary`): bad
        input exits 2 with its message, internal errors exit 1 with a one-line reason, the
        traceback only with ``--debug``; ``--json`` always gets one JSON document."""
        from accord.cli.boundary import run_guarded

        return run_guarded(super().main, args, standalone_mode=standalone_mode,
                           prog_name=prog_name, complete_var=complete_var,
                           windows_expand_args=windows_expand_args, **extra)

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        """The command list of ``--help``, with the help of the lazy groups and commands
        taken from :data:`GROUPS`, :data:`LAZY_HELP` and :data:`GROUP_HELP` instead of
        importing them (``accord --help`` imports no command module)."""
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max(len(n) for n in names)
        rows = []
        for name in names:
            if name in GROUPS and name not in self.commands:
                rows.append((name, GROUPS[name][1]))
                continue
            listed = None if name in self.commands else _listed_help(name, self._groups())
            if listed is not None:  # the short help click would make from the command's help
                rows.append((name, typer.core.TyperCommand(name, help=listed)
                             .get_short_help_str(limit=limit)))
                continue
            cmd = self.get_command(ctx, name)
            if cmd is not None and not cmd.hidden:
                rows.append((name, cmd.get_short_help_str(limit=limit)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


app = typer.Typer(
    name="accord",
    cls=LazyGroup,
    help="Negotiation and deliberation between agents: run, analyse and benchmark.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"accord {__version__}")
        raise typer.Exit()


#: commands that end the start-up (:func:`accord.cli.end_startup`) themselves, once they
#: have imported and loaded what they need (the root callback ends it for every other)
ENDS_OWN_STARTUP = frozenset({"run"})


@app.callback()
def _root(ctx: typer.Context,
          version: bool = typer.Option(False, "--version", "-V", callback=_version,
                                       is_eager=True, help="Print the version and exit."),
          debug: bool = typer.Option(False, "--debug", help="Print the Python traceback of "
                                     "an error (also ACCORD_DEBUG=1; accepted after the "
                                     "command too)."),
          verbose: bool = typer.Option(False, "--verbose", help="Say more on stderr: "
                                       "notices of slow LLM calls ('waiting for MODEL (32 s, "
                                       "attempt 1 of 4)') even when stderr is not a "
                                       "terminal (also ACCORD_VERBOSE=1)."),
          ) -> None:
    """accord: negotiation and deliberation between agents."""
    if ctx.invoked_subcommand not in ENDS_OWN_STARTUP:
        end_startup()
    c.install_wait_notices(verbose)


@app.command(epilog=c.example(
    "accord run bargaining/buyer-seller --agents boulware,conceder",
    "accord run bargaining/buyer-seller -a boulware,conceder --json --out run.jsonl",
    "accord run games/stag-hunt --agents rational,rational",
    "accord run deal-or-no-deal/<datapoint-id> --agents workflow,workflow --data DIR",
    "accord run bargaining/procurement -a boulware,conceder --save runs/deals.db "
    "--require-approval"))
def run(
    target: str = typer.Argument(..., metavar="TARGET",
        help="DOMAIN/SCENARIO (e.g. bargaining/buyer-seller) "
                                 "or a scenario PATH.yaml (bargaining, or DOMAIN/PATH.yaml) "
                                 "or FORMAT:PATH (genius:DIR, geniusweb:DIR; see accord "
                                 "import)"),
    agents: str = typer.Option(..., "--agents", "-a", metavar="SPECS",
        help="Comma-separated agent specs, "
                               "one per party, e.g. boulware,conceder; human is you, "
                               "playing at this terminal."),
    seed: int = c.seed_option(),
    max_rounds: int | None = typer.Option(
        None, "--max-rounds", help="Round cap (games: cheap-talk rounds before play)."),
    out: Path | None = c.out_option("Write the episode's trajectory (every event) as JSONL."),
    log: Path | None = c.alias_option("--log"),
    as_json: bool = c.json_option(),
    quiet: bool = c.quiet_option(
        "Print only the outcome, in one line (no transcript, tables or notes); errors, "
        "warnings and --save's 'stored as' line still go to stderr; --json is unaffected."),
    mediator: str | None = typer.Option(None, "--mediator", help="Bargaining: mediator "
                                        "spec: midpoint, pareto (trusted: sees the "
                                        "utilities, never reveals them) or llm:MODEL."),
    judge: str | None = typer.Option(None, "--judge", help="Bargaining: termination judge "
                                     "spec (rules, or llm:MODEL)."),
    stagnation_rounds: int | None = typer.Option(
        None, "--stagnation-rounds", help="Bargaining: rounds without concession before the "
        "stagnation rule fires (0 disables). Default: 3 when an LLM party, a mediator or an "
        "LLM stagnation scorer takes part, else 0 (off) for code strategies and people."),
    stagnation: str | None = typer.Option(
        None, "--stagnation", metavar="code|llm:MODEL", help="Bargaining: who judges "
        "stagnation: the code check (default) or the seed's Stagnation Scorer as an LLM "
        "(answers STAGNANT or MOVING)."),
    stagnation_measure: str | None = typer.Option(
        None, "--stagnation-measure", metavar="utility|issues", help="Bargaining: measure "
        "a proposer's move in its own utility (default) or per issue (ordinal distance, "
        "seed 002: 'on any issue')."),
    stagnation_epsilon: float | None = typer.Option(
        None, "--stagnation-epsilon", min=0, help="Bargaining: a move up to this is no "
        "move (utility units, or the 0..1 per-issue distance; default 1e-9)."),
    stagnation_order: str | None = typer.Option(
        None, "--stagnation-order", metavar="walk-first|mediator-first", help="Bargaining: "
        "when stagnation fires, a party below its BATNA walks before the mediator is asked "
        "(walk-first, the seed's order, default) or the mediator goes first."),
    acceptance: int | None = typer.Option(None, "--acceptance", help="Bargaining: k-of-n "
                                          "acceptance (default unanimous)."),
    max_offers: int | None = typer.Option(None, "--max-offers", help="Bargaining: cap on "
                                          "offers made."),
    wall_clock: float | None = typer.Option(None, "--wall-clock", help="Bargaining: "
                                            "wall-clock limit in seconds."),
    max_outcomes: int | None = typer.Option(None, "--max-outcomes", min=1, metavar="N",
                                            help="Bargaining: refuse scenario files with "
                                            "more outcomes than this (default 10^6)."),
    strategy: str | None = typer.Option(None, "--strategy",
                                        help="Task exchange: utility-aware | baseline."),
    instance: int | None = typer.Option(None, "--instance", help="Deliberation: instance "
                                        "number (default 0)."),
    tools: bool | None = typer.Option(None, "--tools", help="Deliberation: give agents tools.",
                                      show_default=False),
    param: list[str] = typer.Option([], "--param", "-p", metavar="KEY=VALUE",
                                    help="A domain parameter (any domain, repeatable); VALUE "
                                    "is read as YAML: 3, 0.5, true, [a, b], text."),
    plugin: list[str] = typer.Option([], "--plugin", metavar="MODULE|FILE.py",
                                     help="Import a module (or a Python file, e.g. "
                                     "./myagent.py) that registers domains or agent kinds "
                                     "first (as a bench config's plugins:); repeatable."),
    data: Path | None = c.data_option(),
    cache: Path | None = c.cache_option(),
    cache_mode: str = c.cache_mode_option(),
    llm_option: list[str] = c.llm_option_option(),
    llm_timeout: float | None = c.llm_timeout_option(),
    log_prompts: bool = c.log_prompts_option(),
    store: Path | None = typer.Option(None, "--save", metavar="STORE", help="Also save the "
                                      "episode to this results store (run 'accord-run'), "
                                      "for accord show / results / serve."),
    require_approval: bool = typer.Option(False, "--require-approval", help="Store an "
                                          "agreement as pending a person's approval "
                                          "(accord approve, accord serve); needs --save."),
) -> None:
    """Run one episode and print its transcript and record (or JSON).

    Exit status: 0 agreement, completed game or clean no-deal, 1 the episode ended in
    status error (its record is still printed), 2 bad input.
    """
    from accord.cli.run import import_plugins, parse_params, run_target

    import_plugins(plugin)
    out = c.pick(out, log, "--log", "--out")
    if require_approval and store is None:
        raise c.fail("--require-approval needs --save STORE: the results store that keeps "
                     "the agreement and its approval (e.g. --save runs/deals.db)")
    if store is not None and store.is_dir():
        raise c.fail(f"--save {store} is a directory; give a store file such as runs/x.db")
    llm = c.llm_settings(cache, cache_mode, options=c.parse_llm_options(llm_option),
                         timeout=llm_timeout, log_prompts=log_prompts)
    c.check_out_path(out)
    if wall_clock is not None and not (0 < wall_clock < float("inf")):
        raise c.fail(f"--wall-clock must be a positive number of seconds, got {wall_clock}")
    options = {"max_rounds": max_rounds, "mediator": mediator, "judge": judge,
               "stagnation_rounds": stagnation_rounds, "stagnation": stagnation,
               "stagnation_measure": stagnation_measure,
               "stagnation_epsilon": stagnation_epsilon, "stagnation_order": stagnation_order,
               "acceptance": acceptance, "max_offers": max_offers, "wall_clock": wall_clock,
               "max_outcomes": max_outcomes, "strategy": strategy, "instance": instance,
               "tools": tools}
    run_target(target, agents, seed, options, parse_params(param), out, as_json, llm, quiet,
               data, store, require_approval)


@app.command(epilog=c.example("accord analyze bargaining/procurement",
                              "accord analyze my-scenario.yaml --json"))
def analyze(
    target: str = typer.Argument(..., metavar="TARGET",
        help="bargaining/<scenario>, PATH.yaml or FORMAT:PATH (genius:DIR, geniusweb:DIR)"),
    as_json: bool = c.json_option(),
    max_outcomes: int | None = typer.Option(None, "--max-outcomes", min=1, metavar="N",
                                            help="Refuse scenarios with more outcomes than "
                                            "this (default 10^6)."),
    time: float = typer.Option(0.0, "--time", min=0.0, max=1.0, metavar="T",
                               help="Relative time in [0, 1] at which time-discounted "
                               "utilities are taken (u x delta^T; default 0, undiscounted)."),
) -> None:
    """Pareto frontier and Nash, Kalai, Kalai-Smorodinsky and max-welfare points."""
    from accord.cli.run import analyze_target

    analyze_target(target, as_json, max_outcomes, time)


@app.command(epilog=c.example("accord demo", "accord demo --quick"))
def demo(quick: bool = typer.Option(False, "--quick", help="A shorter tour.")) -> None:
    """The built-in offline tour: no API key, no server."""
    from accord.cli.demo import tour

    tour(c.console(), quick=quick)


#: the commands that live in their own modules: name -> (module, function, epilog
#: constant). Each is imported and built on first use (:class:`LazyGroup`), so ``accord
#: run`` does not import the bench, serve or fork machinery nor build their options.
LAZY_COMMANDS: dict[str, tuple[str, str, str]] = {
    "bench": ("accord.cli.bench", "bench_command", "BENCH_EXAMPLES"),
    "results": ("accord.cli.bench", "results_command", "RESULTS_EXAMPLES"),
    "show": ("accord.cli.bench", "show_command", "SHOW_EXAMPLES"),
    "leaderboard": ("accord.cli.leaderboard", "leaderboard_command", "LEADERBOARD_EXAMPLES"),
    "serve": ("accord.cli.serve", "serve_command", "SERVE_EXAMPLES"),
    "approve": ("accord.cli.serve", "approve_command", "APPROVE_EXAMPLES"),
    "report": ("accord.cli.serve", "report_command", "REPORT_EXAMPLES"),
    "import": ("accord.cli.importer", "import_command", "IMPORT_EXAMPLES"),
    "fork": ("accord.cli.fork", "fork_command", "FORK_EXAMPLES"),
    "export": ("accord.cli.export", "export_command", "EXPORT_EXAMPLES"),
    "series": ("accord.cli.series", "series_command", "SERIES_EXAMPLES"),
}


#: the first sentence of each lazy command's help (all click shows in a command list, at
#: any width), so ``accord --help`` lists the commands without importing their modules
#: (which load numpy, the bench machinery and rich); tests/cli/test_help_listing.py keeps
#: each equal to the command's own help
LAZY_HELP: dict[str, str] = {
    "bench": "Run (or resume) every episode of an experiment spec into a SQLite store.",
    "results": "Aggregate a results store: mean ± SD/SE, counts and rates per group.",
    "show": "Print one episode: its spec, outcome, metrics and transcript (or error).",
    "leaderboard": "Rate agents from every stored episode, with 95% bootstrap intervals, "
                   "win/draw/loss counts and a head-to-head matrix.",
    "serve": "Browse results stores in a local web app: runs, episodes, transcripts, "
             "approvals.",
    "approve": "Approve (or reject) an agreement awaiting approval (require_approval runs).",
    "report": "Write one self-contained HTML file: per run the summary first (charts and the "
              "aggregate table per line-up), the leaderboard, an episode index, then "
              "transcripts.",
    "import": "Import another tool's negotiation domain as an accord bargaining scenario "
              "file (or, with negotiationarena-log, its logs as read-only episodes of a "
              "results store).",
    "fork": "Re-run a stored episode from round ROUND with other agents, models or "
            "parameters.",
    "export": "Write stored episodes as chat training examples, each party's own view only.",
    "series": "Repeated play: the same parties meet N times, each LLM party remembering its "
              "earlier episodes (outcomes, its own results, the other side's offers; never "
              "the other side's private values), optionally coached by a critic between "
              "episodes.",
}
#: the same for the command groups accord's own package declares as ``accord.commands``
#: entry points, keyed by the entry point's ``module:app`` (a plug-in's group, or one
#: that replaces these, is imported to list it, as before)
GROUP_HELP: dict[str, str] = {
    "accord.domains.deliberation.cli:app": "Deliberative collaboration under partial "
                                           "observability: menu design and task allocation.",
    "accord.domains.deal_or_no_deal.cli:app": "Deal or No Deal: data statistics, download "
                                              "and play.",
    "accord.domains.games.cli:app": "Classic games: list the catalog, solve games, play them "
                                    "with code or LLM agents.",
    "accord.domains.task_exchange.cli:app": "Utility-aware task decomposition and exchange "
                                            "between two agents.",
}


def _listed_help(name: str, groups: dict[str, str]) -> str | None:
    """The help text ``accord --help`` lists for the lazy command or group ``name`` without
    importing it (None: import it to ask)."""
    if name in LAZY_COMMANDS:
        return LAZY_HELP.get(name)
    target = groups.get(name)
    return None if target is None else GROUP_HELP.get(target)


def _lazy_command(name: str) -> Any:
    """The click command ``name`` of :data:`LAZY_COMMANDS`, built as the root builds its
    own (plain help, ``-h`` inherited from the root's context)."""
    module_name, function, epilog = LAZY_COMMANDS[name]
    module = importlib.import_module(module_name)
    one = typer.Typer(add_completion=False, pretty_exceptions_enable=False,
                      rich_markup_mode=None)
    one.command(name, epilog=getattr(module, epilog))(getattr(module, function))
    return typer.main.get_command(one)


def command_tree() -> list[tuple[str, Any]]:
    """``(path, click command)`` for every group and command of ``accord`` (lazy groups
    included, built on the way), parents before children: ``("run", ...)``,
    ``("dond", ...)``, ``("dond play", ...)``."""
    root = typer.main.get_command(app)
    out: list[tuple[str, Any]] = []

    def walk(group: Any, prefix: list[str]) -> None:
        ctx = group.context_class(group, info_name=" ".join(prefix) or "accord")
        for name in group.list_commands(ctx):
            cmd = group.get_command(ctx, name)
            out.append((" ".join([*prefix, name]), cmd))
            if hasattr(cmd, "list_commands"):
                walk(cmd, [*prefix, name])

    walk(root, [])
    return out


def main() -> None:
    """Run the ``accord`` command (the console script goes through :func:`accord.cli.main`
    first, which answers ``--version`` without importing this module)."""
    app()
