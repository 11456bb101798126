-- accord results store, schema version 2 (see accord/bench/store.py): as version 1 plus
-- the zdicts table; summary, metrics, usage, error and jsonl hold zstd frames (BLOB).
CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

-- one row per experiment name; config is the latest resolved config (credentials masked)
CREATE TABLE runs (
  name           TEXT PRIMARY KEY,
  config         TEXT NOT NULL,
  source         TEXT,
  accord_version TEXT NOT NULL,
  git_commit     TEXT,            -- commit of the accord source tree, NULL outside git
  created        REAL NOT NULL,   -- unix time
  updated        REAL NOT NULL
);

-- one row per `accord bench` invocation on a run
CREATE TABLE sessions (
  id             INTEGER PRIMARY KEY AUTOINCREMENT,
  run            TEXT NOT NULL REFERENCES runs(name),
  started        REAL NOT NULL,
  finished       REAL,
  state          TEXT NOT NULL,   -- running | finished | interrupted
  accord_version TEXT NOT NULL,
  git_commit     TEXT,
  cwd_commit     TEXT,            -- commit of the working directory's repository, if any
  host           TEXT,
  config         TEXT NOT NULL,
  executor       TEXT,
  concurrency    INTEGER,
  planned        INTEGER,
  queued         INTEGER,
  done           INTEGER,
  failed         INTEGER
);

CREATE TABLE episodes (
  run        TEXT NOT NULL REFERENCES runs(name),
  id         TEXT NOT NULL,       -- hash of the canonical episode spec
  seq        INTEGER NOT NULL,    -- position in the expanded plan
  spec       TEXT NOT NULL,       -- EpisodeSpec.to_dict() + repeat (JSON)
  labels     TEXT NOT NULL,       -- display labels: line-up and agent names (JSON)
  status     TEXT NOT NULL DEFAULT 'pending',  -- pending | done | failed
  outcome    TEXT,                -- the episode's own status: agreement | no_deal | error
  summary    TEXT,                -- EpisodeResult.summary() (JSON)
  metrics    TEXT,                -- Domain.metrics() (JSON)
  usage      TEXT,                -- token usage per agent role (JSON), when present
  error      TEXT,                -- error text of a failed episode
  wall_time  REAL,                -- seconds in the worker
  started    REAL,
  finished   REAL,
  attempts   INTEGER NOT NULL DEFAULT 0,
  session    INTEGER,
  worker     TEXT,                -- host:pid that ran it
  PRIMARY KEY (run, id)
);
CREATE INDEX episodes_by_status ON episodes (run, status);
CREATE INDEX episodes_by_seq ON episodes (run, seq);

CREATE TABLE trajectories (
  run   TEXT NOT NULL,
  id    TEXT NOT NULL,
  jsonl TEXT NOT NULL,            -- accord.core.trajectory JSONL (a zstd frame, format 2)
  PRIMARY KEY (run, id)
);

-- zstd dictionaries the compressed values name by id (accord/bench/compact.py)
CREATE TABLE zdicts (
  id    INTEGER PRIMARY KEY,      -- the dictionary's zstd id
  dict  BLOB NOT NULL
);
