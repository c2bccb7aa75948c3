//! The database schema, as an append-only list of migration steps.
//!
//! Step `i` of [`MIGRATIONS`] takes a database from `user_version` `i` to
//! `i + 1`. Rules for whoever changes the schema:
//! 1. never edit a published step: append a new one;
//! 2. add the fixture database of the new version to `fixtures/`
//!    (`cargo test -p dualperf-store --test it -- --ignored write_fixture`
//!    writes the current version's); every version keeps its own, written by
//!    the code of its time, and `every_fixture_loads_with_the_current_code`
//!    opens them all;
//! 3. bump nothing else: [`LATEST_VERSION`] follows the list.
//!
//! Units are in the column names (`_ns`, `_ms`, `_bytes`), as everywhere in
//! dualperf; families are `v4`/`v6`; booleans are 0/1.

/// One step from the version before it to `version`.
#[derive(Debug)]
pub struct Migration {
    /// The `user_version` after this step.
    pub version: u32,
    /// What the step does, for people.
    pub description: &'static str,
    /// The SQL, run in one transaction together with the version bump.
    pub sql: &'static str,
}

/// Every migration, oldest first.
pub const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 1,
        description: "base schema",
        sql: V1_BASE,
    },
    Migration {
        version: 2,
        description: "run notes column and an index for history by date",
        sql: V2_NOTES_AND_DATE_INDEX,
    },
    Migration {
        version: 3,
        description: "how the analysis was computed (confidence level, thresholds, methods)",
        sql: V3_ANALYSIS_METHOD,
    },
    Migration {
        version: 4,
        description: "arms: trials, summaries, comparisons and missing metrics keyed by arm; \
                      the run_arms view; raw samples optional; application id",
        sql: V4_ARMS,
    },
    Migration {
        version: 5,
        description: "comparisons: p-value, multiple-comparison adjusted p-value, attribution",
        sql: V5_VERDICT_BASIS,
    },
    Migration {
        version: 6,
        description: "the per-flow and per-router analysis: load-flow summaries and \
                      comparisons, router CPU summaries",
        sql: V6_FLOW_ANALYSIS,
    },
    Migration {
        version: 7,
        description: "what set each point's pace: the regime per point and arm (JSON)",
        sql: V7_REGIMES,
    },
];

/// Version 7 (issue 23): `Analysis::regimes`, what set each point's pace
/// on each arm (network-bound, cpu-bound, unsaturated, with the figures),
/// as one JSON list per run; NULL for runs analysed before (no regimes).
const V7_REGIMES: &str = r#"
ALTER TABLE runs ADD COLUMN regimes_json TEXT;  -- [PointRegime]
"#;

/// Version 6 (issue 22): the analysis of a run's competing-load flows and
/// routers (`Analysis::load_flows`, `load_comparisons`, `routers`), so that
/// `report` reads what was analysed instead of recomputing it. Columns
/// follow `summaries` and `comparisons` (one word per concept from JSON to
/// SQL); `flow` is the flow's index in its load, `node` the router's name.
/// Runs analysed before have no rows here and `analysis_version` 2; runs
/// analysed from this version on have [`FLOW_ANALYSIS_VERSION`], and their
/// rows (possibly none: a run without loads or routers) are the analysis.
const V6_FLOW_ANALYSIS: &str = r#"
CREATE TABLE load_flow_summaries (
    run_id                   INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    seq                      INTEGER NOT NULL,  -- index in Analysis.load_flows
    point                    INTEGER NOT NULL,
    arm                      TEXT    NOT NULL,
    flow                     INTEGER NOT NULL,  -- index of the flow in its load
    label                    TEXT    NOT NULL,
    family                   TEXT    NOT NULL CHECK (family IN ('v4', 'v6')),
    marking_json             TEXT,              -- Marking; NULL when nothing is set
    metric                   TEXT    NOT NULL,  -- MetricId::name()
    count                    INTEGER NOT NULL,
    mean                     REAL    NOT NULL,
    standard_deviation       REAL,
    coefficient_of_variation REAL,
    min                      REAL    NOT NULL,
    max                      REAL    NOT NULL,
    median                   REAL    NOT NULL,
    ci95_low                 REAL,
    ci95_high                REAL,
    PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;

CREATE TABLE load_flow_comparisons (
    run_id                INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    seq                   INTEGER NOT NULL,  -- index in Analysis.load_comparisons
    point                 INTEGER NOT NULL,
    flow                  INTEGER NOT NULL,
    label                 TEXT    NOT NULL,
    metric                TEXT    NOT NULL,  -- MetricId::name()
    arm                   TEXT    NOT NULL,
    baseline              TEXT    NOT NULL,
    pairs                 INTEGER NOT NULL,
    difference_mean       REAL    NOT NULL,  -- arm - baseline, metric's unit
    difference_ci95_low   REAL,
    difference_ci95_high  REAL,
    significant           INTEGER NOT NULL CHECK (significant IN (0, 1)),
    arm_summary_json      TEXT    NOT NULL,  -- Summary
    baseline_summary_json TEXT    NOT NULL,  -- Summary
    PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;

CREATE TABLE router_summaries (
    run_id                   INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    seq                      INTEGER NOT NULL,  -- index in Analysis.routers
    point                    INTEGER NOT NULL,
    arm                      TEXT    NOT NULL,
    node                     TEXT    NOT NULL,  -- the router node
    count                    INTEGER NOT NULL,  -- RouterCpu::cores, over repetitions
    mean                     REAL    NOT NULL,
    standard_deviation       REAL,
    coefficient_of_variation REAL,
    min                      REAL    NOT NULL,
    max                      REAL    NOT NULL,
    median                   REAL    NOT NULL,
    ci95_low                 REAL,
    ci95_high                REAL,
    PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
"#;

/// Version 5 (issue 14): what a verdict rests on besides its interval — the
/// paired t-test's p-value, its Holm-adjusted p-value (headline
/// comparisons) and the attribution of the difference (JSON, `Attribution`).
/// NULL in rows written before.
const V5_VERDICT_BASIS: &str = r#"
ALTER TABLE comparisons ADD COLUMN p_value REAL;
ALTER TABLE comparisons ADD COLUMN adjusted_p_value REAL;
ALTER TABLE comparisons ADD COLUMN attribution_json TEXT;  -- Attribution
"#;

/// The schema version this code writes.
pub const LATEST_VERSION: u32 = MIGRATIONS[MIGRATIONS.len() - 1].version;

/// `PRAGMA application_id` of a dualperf database (schema version 4 on):
/// the ASCII bytes `DPRS` ("dualperf results store"), so that `file(1)` and
/// dualperf itself can tell a results database from another program's.
pub const APPLICATION_ID: i32 = 0x4450_5253;

/// `runs.analysis_version` of an analysis in the arm shape (schema v4 on).
/// Version 1 marks a per-family analysis (IPv6 − IPv4) translated by
/// migration 4: its numbers are in the arm-keyed tables, its wording is gone.
pub const ARM_ANALYSIS_VERSION: i64 = 2;

/// `runs.analysis_version` of an analysis written with its load flows and
/// routers (schema v6 on): the arm shape of [`ARM_ANALYSIS_VERSION`] plus the
/// rows of `load_flow_summaries`, `load_flow_comparisons` and
/// `router_summaries`. A run of version 2 has none of those rows; only for
/// such a run may a reader recompute them from the trials.
pub const FLOW_ANALYSIS_VERSION: i64 = 3;

/// Version 1: runs, points, trials with their time series and histograms,
/// and the analysis (summaries, comparisons, missing metrics).
const V1_BASE: &str = r#"
CREATE TABLE runs (
    id                    INTEGER PRIMARY KEY,
    run_id                TEXT    NOT NULL UNIQUE,
    result_schema         TEXT    NOT NULL,
    result_schema_version INTEGER NOT NULL,
    started_at_unix_ms    INTEGER NOT NULL,
    finished_at_unix_ms   INTEGER NOT NULL,  -- 0 while running (or killed)
    tool_version          TEXT    NOT NULL,
    hostname              TEXT    NOT NULL,
    testbed_name          TEXT,
    config_json           TEXT    NOT NULL,  -- RunConfig
    client_host_json      TEXT    NOT NULL,  -- HostFacts
    server_host_json      TEXT,              -- HostFacts
    testbed_json          TEXT,              -- TestbedFacts
    complete              INTEGER NOT NULL CHECK (complete IN (0, 1)),
    errors_json           TEXT    NOT NULL,  -- [String]
    analysed              INTEGER NOT NULL CHECK (analysed IN (0, 1))
);

CREATE TABLE points (
    run_id     INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    point      INTEGER NOT NULL,             -- index in RunConfig.points
    kind       TEXT    NOT NULL,             -- tcp-stream, udp-rr, ...
    size_bytes INTEGER NOT NULL,
    label      TEXT    NOT NULL,
    PRIMARY KEY (run_id, point)
);

CREATE TABLE trials (
    id                 INTEGER PRIMARY KEY,
    run_id             INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    seq                INTEGER NOT NULL,     -- order in which the trial ran
    point              INTEGER NOT NULL,
    family             TEXT    NOT NULL CHECK (family IN ('v4', 'v6')),
    repetition         INTEGER NOT NULL,
    started_at_unix_ms INTEGER NOT NULL,
    status             TEXT    NOT NULL CHECK (status IN ('ok', 'failed')),
    error              TEXT,                 -- set when status = 'failed'
    measured_ns        INTEGER,              -- key counters, NULL when failed
    sent_bytes         INTEGER,
    received_bytes     INTEGER,
    sent_packets       INTEGER,
    received_packets   INTEGER,
    interval_count     INTEGER NOT NULL,     -- rows in interval_samples
    bucket_count       INTEGER NOT NULL,     -- rows in latency_buckets
    trial_json         TEXT    NOT NULL,     -- Trial; its outcome is in status/error/observations_json
    observations_json  TEXT,                 -- Observations without intervals and histogram; NULL when failed
    UNIQUE (run_id, seq),
    FOREIGN KEY (run_id, point) REFERENCES points (run_id, point)
);

CREATE TABLE interval_samples (
    trial_id         INTEGER NOT NULL REFERENCES trials (id) ON DELETE CASCADE,
    seq              INTEGER NOT NULL,
    end_ns           INTEGER NOT NULL,
    length_ns        INTEGER NOT NULL,
    sent_bytes       INTEGER NOT NULL,
    sent_packets     INTEGER NOT NULL,
    received_bytes   INTEGER NOT NULL,
    received_packets INTEGER NOT NULL,
    lost_packets     INTEGER,
    mean_delay_ns    INTEGER,
    PRIMARY KEY (trial_id, seq)
) WITHOUT ROWID;

CREATE TABLE latency_buckets (
    trial_id INTEGER NOT NULL REFERENCES trials (id) ON DELETE CASCADE,
    seq      INTEGER NOT NULL,
    value_ns INTEGER NOT NULL,
    count    INTEGER NOT NULL,
    PRIMARY KEY (trial_id, seq)
) WITHOUT ROWID;

-- Two rows per MetricSummary (one per family); count IS NULL means "no summary".
CREATE TABLE summaries (
    run_id                   INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    seq                      INTEGER NOT NULL,
    family                   TEXT    NOT NULL CHECK (family IN ('v4', 'v6')),
    point                    INTEGER NOT NULL,
    metric                   TEXT    NOT NULL,
    unit                     TEXT    NOT NULL,
    higher_is_better         INTEGER NOT NULL,
    definition               TEXT    NOT NULL,
    count                    INTEGER,
    mean                     REAL,
    standard_deviation       REAL,
    coefficient_of_variation REAL,
    min                      REAL,
    max                      REAL,
    median                   REAL,
    ci95_low                 REAL,
    ci95_high                REAL,
    PRIMARY KEY (run_id, seq, family)
);

CREATE TABLE comparisons (
    run_id                        INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    seq                           INTEGER NOT NULL,
    point                         INTEGER NOT NULL,
    metric                        TEXT    NOT NULL,
    unit                          TEXT    NOT NULL,
    higher_is_better              INTEGER NOT NULL,
    definition                    TEXT    NOT NULL,
    pairs                         INTEGER NOT NULL,
    difference_mean               REAL    NOT NULL,  -- v6 - v4, metric's unit
    difference_ci95_low           REAL,
    difference_ci95_high          REAL,
    relative_difference           REAL,              -- (v6 - v4) / v4
    relative_difference_ci95_low  REAL,
    relative_difference_ci95_high REAL,
    significant                   INTEGER NOT NULL CHECK (significant IN (0, 1)),
    theoretical_relative_difference REAL,
    verdict                       TEXT    NOT NULL,
    warnings_json                 TEXT    NOT NULL,  -- [String]
    per_family_json               TEXT    NOT NULL,  -- PerFamily<Summary>
    PRIMARY KEY (run_id, seq)
);

CREATE TABLE missing_metrics (
    run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    seq    INTEGER NOT NULL,
    point  INTEGER NOT NULL,
    metric TEXT    NOT NULL,
    reason TEXT    NOT NULL,
    PRIMARY KEY (run_id, seq)
);

CREATE INDEX trials_by_point ON trials (run_id, point, family);
"#;

/// Version 2: free-text notes per run ("before kernel 6.8 upgrade") and an
/// index that keeps `dualperf history` fast on long histories.
const V2_NOTES_AND_DATE_INDEX: &str = r#"
ALTER TABLE runs ADD COLUMN notes TEXT;
CREATE INDEX runs_by_start ON runs (started_at_unix_ms);
"#;

/// Version 3: the stats stage's `AnalysisMethod` (confidence level, CV
/// threshold, percentile and pairing methods), as JSON, so a stored verdict
/// says how it was reached.
const V3_ANALYSIS_METHOD: &str = r#"
ALTER TABLE runs ADD COLUMN analysis_method_json TEXT;
"#;

/// Version 4: arms (issue 10). A run compares arms (family × path × marking
/// × load) with a baseline arm instead of IPv6 with IPv4.
///
/// - `trials.arm`: the arm's id; rows written before are their family's
///   native arm (`v4`/`v6`), which is what they measured.
/// - `summaries`: one row per point × arm × metric (was one per family pair);
///   the metric's unit, direction and definition follow from its name
///   ([`dualperf_model::MetricId`]), so they are no longer stored.
/// - `comparisons`: `arm` against `baseline`, the two summaries as JSON, the
///   warnings typed (`[ComparisonWarning]` as JSON); no verdict sentence
///   (wording is the report's). Old rows become `arm = 'v6'`,
///   `baseline = 'v4'` (what they computed: IPv6 − IPv4) without warnings;
///   `runs.analysis_version = 1` marks those runs, whose analysis the
///   reader hands back as absent so that the caller recomputes it from the
///   trials (they kept every raw sample).
/// - `probe_interval_samples`: the time series of a probe run under load
///   (`Observations::probe`), beside `interval_samples`; `arrivals`: the raw
///   per-datagram arrivals of a trial (`stream` 0) and of its probe
///   (`stream` 1), as rows a third the size of their JSON. Both were inside
///   `observations_json`, where old rows keep them.
/// - `missing_metrics.arm` (NULL in old rows).
/// - `runs.raw_samples`: 0 when the raw per-transaction times and per-packet
///   arrivals were left out (the default from version 4; old rows kept them).
/// - `run_arms`: a view of every run's arms, read from `config_json` (the
///   one source of truth; old configurations list `families`).
/// - `PRAGMA application_id` = [`APPLICATION_ID`].
const V4_ARMS: &str = r#"
PRAGMA application_id = 1146114643;

ALTER TABLE runs ADD COLUMN raw_samples INTEGER NOT NULL DEFAULT 1 CHECK (raw_samples IN (0, 1));
ALTER TABLE runs ADD COLUMN analysis_version INTEGER NOT NULL DEFAULT 1;

ALTER TABLE trials ADD COLUMN arm TEXT NOT NULL DEFAULT '';
UPDATE trials SET arm = family;
DROP INDEX trials_by_point;
CREATE INDEX trials_by_arm ON trials (run_id, point, arm);

CREATE TABLE summaries_v4 (
    run_id                   INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    seq                      INTEGER NOT NULL,  -- index in Analysis.summaries
    point                    INTEGER NOT NULL,
    arm                      TEXT    NOT NULL,
    metric                   TEXT    NOT NULL,  -- MetricId::name()
    count                    INTEGER NOT NULL,
    mean                     REAL    NOT NULL,
    standard_deviation       REAL,
    coefficient_of_variation REAL,
    min                      REAL    NOT NULL,
    max                      REAL    NOT NULL,
    median                   REAL    NOT NULL,
    ci95_low                 REAL,
    ci95_high                REAL,
    PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
INSERT INTO summaries_v4
SELECT run_id, seq * 2 + (family = 'v6'), point, family, metric, count, mean, standard_deviation,
       coefficient_of_variation, min, max, median, ci95_low, ci95_high
FROM summaries WHERE count IS NOT NULL;
DROP TABLE summaries;
ALTER TABLE summaries_v4 RENAME TO summaries;

CREATE TABLE comparisons_v4 (
    run_id                          INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    seq                             INTEGER NOT NULL,  -- index in Analysis.comparisons
    point                           INTEGER NOT NULL,
    metric                          TEXT    NOT NULL,  -- MetricId::name()
    arm                             TEXT    NOT NULL,
    baseline                        TEXT    NOT NULL,
    pairs                           INTEGER NOT NULL,
    difference_mean                 REAL    NOT NULL,  -- arm - baseline, metric's unit
    difference_ci95_low             REAL,
    difference_ci95_high            REAL,
    relative_difference             REAL,              -- (arm - baseline) / baseline
    relative_difference_ci95_low    REAL,
    relative_difference_ci95_high   REAL,
    significant                     INTEGER NOT NULL CHECK (significant IN (0, 1)),
    theoretical_relative_difference REAL,
    warnings_json                   TEXT    NOT NULL,  -- [ComparisonWarning]
    arm_summary_json                TEXT    NOT NULL,  -- Summary
    baseline_summary_json           TEXT    NOT NULL,  -- Summary
    PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
INSERT INTO comparisons_v4
SELECT run_id, seq, point, metric, 'v6', 'v4', pairs, difference_mean, difference_ci95_low,
       difference_ci95_high, relative_difference, relative_difference_ci95_low,
       relative_difference_ci95_high, significant, theoretical_relative_difference, '[]',
       json_extract(per_family_json, '$.v6'), json_extract(per_family_json, '$.v4')
FROM comparisons;
DROP TABLE comparisons;
ALTER TABLE comparisons_v4 RENAME TO comparisons;

CREATE TABLE probe_interval_samples (
    trial_id         INTEGER NOT NULL REFERENCES trials (id) ON DELETE CASCADE,
    seq              INTEGER NOT NULL,
    end_ns           INTEGER NOT NULL,
    length_ns        INTEGER NOT NULL,
    sent_bytes       INTEGER NOT NULL,
    sent_packets     INTEGER NOT NULL,
    received_bytes   INTEGER NOT NULL,
    received_packets INTEGER NOT NULL,
    lost_packets     INTEGER,
    mean_delay_ns    INTEGER,
    PRIMARY KEY (trial_id, seq)
) WITHOUT ROWID;

CREATE TABLE arrivals (
    trial_id INTEGER NOT NULL REFERENCES trials (id) ON DELETE CASCADE,
    stream   INTEGER NOT NULL CHECK (stream IN (0, 1)),  -- 0 the trial's datagrams, 1 its probe's
    seq      INTEGER NOT NULL,                           -- order of arrival
    sequence INTEGER NOT NULL,                           -- the sender's sequence number
    sent_ns  INTEGER NOT NULL,                           -- sender's clock
    delay_ns INTEGER NOT NULL,                           -- received_ns - sent_ns
    PRIMARY KEY (trial_id, stream, seq)
) WITHOUT ROWID;

ALTER TABLE missing_metrics ADD COLUMN arm TEXT;

CREATE VIEW run_arms AS
SELECT r.id AS run_row, r.run_id AS run_id, CAST(a.key AS INTEGER) AS position,
       json_extract(a.value, '$.id') AS arm,
       json_extract(a.value, '$.label') AS label,
       json_extract(a.value, '$.family') AS family,
       json_extract(a.value, '$.path') AS path_json,
       json_extract(a.value, '$.marking') AS marking_json,
       json_extract(a.value, '$.load') AS load_json,
       json_extract(a.value, '$.target') AS target,
       json_extract(a.value, '$.id') = json_extract(r.config_json, '$.baseline') AS is_baseline
FROM runs r, json_each(r.config_json, '$.arms') a
UNION ALL
SELECT r.id, r.run_id, CAST(f.key AS INTEGER), f.value,
       CASE f.value WHEN 'v4' THEN 'IPv4' ELSE 'IPv6' END, f.value,
       '{"kind":"native"}', NULL, '{"condition":"idle"}',
       json_extract(r.config_json, '$.targets.' || f.value),
       f.value = coalesce(
           (SELECT value FROM json_each(r.config_json, '$.families') WHERE value = 'v4'),
           json_extract(r.config_json, '$.families[0]'))
FROM runs r, json_each(r.config_json, '$.families') f
WHERE json_type(r.config_json, '$.arms') IS NULL;
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migration_versions_count_up_from_one_without_gaps() {
        for (index, step) in MIGRATIONS.iter().enumerate() {
            assert_eq!(step.version as usize, index + 1, "{}", step.description);
        }
    }

    #[test]
    fn the_application_id_in_the_sql_is_the_constant() {
        let pragma = format!("PRAGMA application_id = {APPLICATION_ID};");
        assert!(V4_ARMS.contains(&pragma), "{pragma}");
        assert_eq!(&APPLICATION_ID.to_be_bytes(), b"DPRS");
    }
}
