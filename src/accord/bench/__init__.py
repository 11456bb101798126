"""Running many episodes: experiment specs, executors, the SQLite results store with
resume, aggregation and tables.

Typical use is the command line (``accord bench``, ``accord results``, ``accord show``);
the same steps are available as functions::

    config = load_config("configs/demo.yaml")
    report = run_bench(config, BenchOptions(concurrency=16))
    with Store.open(report.store, create=False) as store:
        table = aggregate(store.episodes(config.name))
"""

from accord.bench.aggregate import (
    Aggregate,
    AggregateError,
    Group,
    Stat,
    aggregate,
    aggregate_stream,
    default_group_by,
    episode_fields,
    metric_kinds,
    summarize,
    usage_totals,
)
from accord.bench.config import ExperimentConfig, Sweep, load_config, parse_config
from accord.bench.executors import (
    Executor,
    ExecutorChoice,
    LocalExecutor,
    ProcessExecutor,
    make_executor,
    parse_executor,
)
from accord.bench.expand import (
    Plan,
    PlannedEpisode,
    canonical_json,
    episode_id,
    episode_key,
    expand,
    import_plugins,
)
from accord.bench.lineups import Lineup
from accord.bench.progress import BenchProgress
from accord.bench.provenance import git_commit, provenance
from accord.bench.redact import MASK, is_secret_key, redact, redact_text
from accord.bench.runner import BenchOptions, BenchReport, run_bench, select, store_path
from accord.bench.store import EpisodeRow, Store, StoreError
from accord.bench.tables import (
    episode_rows,
    flat_rows,
    format_stat,
    print_table,
    rich_table,
    to_csv,
    to_json,
    to_markdown,
    write_parquet,
)
from accord.bench.worker import EpisodeRecord, EpisodeTask, execute, execute_sync, jsonable
from accord.bench.yamlpos import ConfigError

__all__ = [
    "MASK",
    "Aggregate",
    "AggregateError",
    "BenchOptions",
    "BenchProgress",
    "BenchReport",
    "ConfigError",
    "EpisodeRecord",
    "EpisodeRow",
    "EpisodeTask",
    "Executor",
    "ExecutorChoice",
    "ExperimentConfig",
    "Group",
    "Lineup",
    "LocalExecutor",
    "Plan",
    "PlannedEpisode",
    "ProcessExecutor",
    "Stat",
    "Store",
    "StoreError",
    "Sweep",
    "aggregate",
    "aggregate_stream",
    "canonical_json",
    "default_group_by",
    "episode_fields",
    "episode_id",
    "episode_key",
    "episode_rows",
    "execute",
    "execute_sync",
    "expand",
    "flat_rows",
    "format_stat",
    "git_commit",
    "import_plugins",
    "is_secret_key",
    "jsonable",
    "load_config",
    "make_executor",
    "metric_kinds",
    "parse_config",
    "parse_executor",
    "print_table",
    "provenance",
    "redact",
    "redact_text",
    "rich_table",
    "run_bench",
    "select",
    "store_path",
    "summarize",
    "to_csv",
    "to_json",
    "to_markdown",
    "usage_totals",
    "write_parquet",
]
