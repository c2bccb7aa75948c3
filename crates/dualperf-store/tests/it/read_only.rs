//! Reading commands open the database read-only: another program's file is
//! refused and left byte for byte as it was (issue 16, item 7), and a
//! dualperf database is read without being changed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use dualperf_store::schema::LATEST_VERSION;
use dualperf_store::{Store, StoreError, WriteOptions};

use crate::{synthetic_run, temporary_store};

/// Every file in `directory` with its bytes.
fn snapshot(directory: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    std::fs::read_dir(directory)
        .unwrap()
        .map(|entry| {
            let path = entry.unwrap().path();
            let bytes = std::fs::read(&path).unwrap();
            (path, bytes)
        })
        .collect()
}

/// Another program's database: two tables, some rows, in `journal_mode`.
fn foreign_database(directory: &Path, journal_mode: &str) -> PathBuf {
    let path = directory.join("inventory.db");
    let connection = rusqlite::Connection::open(&path).unwrap();
    connection
        .execute_batch(&format!(
            "PRAGMA journal_mode = {journal_mode};
             CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT);
             CREATE TABLE runs (id INTEGER PRIMARY KEY, km REAL);
             INSERT INTO items (name) VALUES ('bolt'), ('nut');
             INSERT INTO runs (km) VALUES (5.2);"
        ))
        .unwrap();
    drop(connection); // the last connection checkpoints and removes the -wal
    path
}

fn assert_refused(result: Result<Store, StoreError>, name: &str) {
    match result {
        Err(err @ StoreError::NotDualperf { .. }) => {
            let text = err.to_string();
            assert!(text.contains(name), "{text}");
            assert!(text.contains("not a dualperf results database"), "{text}");
        }
        other => panic!("{name}: expected NotDualperf, got {other:?}"),
    }
}

#[test]
fn a_foreign_database_is_refused_and_left_byte_for_byte_unchanged() {
    for journal_mode in ["DELETE", "WAL"] {
        let directory = tempfile::tempdir().unwrap();
        let path = foreign_database(directory.path(), journal_mode);
        let before = snapshot(directory.path());
        assert_eq!(before.len(), 1, "{journal_mode}: only the database file");
        assert_refused(Store::open_read_only(&path), "inventory.db");
        assert_eq!(
            snapshot(directory.path()),
            before,
            "{journal_mode}: the directory changed (no -wal, -shm or -journal may appear)"
        );
        // A writing command refuses it as well, before touching it.
        assert_refused(Store::open(&path), "inventory.db");
        assert_eq!(snapshot(directory.path()), before, "{journal_mode}");
    }
}

#[test]
fn another_programs_application_id_text_and_empty_files_are_refused() {
    let directory = tempfile::tempdir().unwrap();
    let tagged = directory.path().join("tagged.db");
    rusqlite::Connection::open(&tagged)
        .unwrap()
        .execute_batch(&format!(
            "PRAGMA application_id = {}; CREATE TABLE t (x);",
            i32::from_be_bytes(*b"FLAH")
        ))
        .unwrap();
    let text = directory.path().join("notes.txt");
    std::fs::write(
        &text,
        "not a database at all, and long enough to fill a header. ".repeat(4),
    )
    .unwrap();
    let empty = directory.path().join("empty.sqlite");
    std::fs::write(&empty, "").unwrap();
    let before = snapshot(directory.path());
    assert_refused(Store::open_read_only(&tagged), "tagged.db");
    assert_refused(Store::open(&tagged), "tagged.db");
    assert_refused(Store::open_read_only(&text), "notes.txt");
    assert_refused(Store::open_read_only(&empty), "empty.sqlite");
    assert_eq!(snapshot(directory.path()), before);
}

#[test]
fn a_missing_file_is_reported_and_not_created() {
    let directory = tempfile::tempdir().unwrap();
    let path = directory.path().join("nowhere.sqlite");
    let err = Store::open_read_only(&path).unwrap_err();
    assert!(matches!(err, StoreError::NotFound { .. }), "{err}");
    assert!(err.to_string().contains("nowhere.sqlite"), "{err}");
    assert!(!path.exists());
}

#[test]
fn a_dualperf_database_reads_the_same_and_its_main_file_is_unchanged() {
    let (directory, path, mut store) = temporary_store();
    let run = synthetic_run("r-read");
    store.save_run_with(&run, WriteOptions::RAW).unwrap();
    drop(store);
    let before = std::fs::read(&path).unwrap();

    let mut reader = Store::open_read_only(&path).unwrap();
    assert!(reader.is_read_only());
    assert_eq!(reader.schema_version().unwrap(), LATEST_VERSION);
    assert_eq!(reader.load_run("r-read").unwrap(), run);
    assert_eq!(reader.list_runs().unwrap().len(), 1);
    assert_eq!(reader.latest_run_id().unwrap().as_deref(), Some("r-read"));
    assert_eq!(
        reader
            .runs_to_prune(dualperf_store::Retention::KeepNewest(0))
            .unwrap(),
        ["r-read"]
    );
    // Every write is refused (SQLite would refuse too: see the unit tests).
    let refused = [
        reader.save_run(&synthetic_run("r-other")).map(|_| ()),
        reader.set_notes("r-read", Some("x")),
        reader.prune(0).map(|_| ()),
        reader.vacuum(),
    ];
    for result in refused {
        assert!(
            matches!(result, Err(StoreError::ReadOnly { .. })),
            "{result:?}"
        );
    }
    drop(reader);
    assert_eq!(std::fs::read(&path).unwrap(), before);
    let mode: String = rusqlite::Connection::open(&path)
        .unwrap()
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    drop(directory);
}

#[test]
fn an_older_database_is_read_through_a_migrated_copy_and_stays_old() {
    let directory = tempfile::tempdir().unwrap();
    let path = directory.path().join("v3.sqlite");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/v3-synthetic.sqlite"),
        &path,
    )
    .unwrap();
    let before = snapshot(directory.path());
    let reader = Store::open_read_only(&path).unwrap();
    let runs = reader.list_runs().unwrap();
    assert_eq!(runs.len(), 1);
    let run = reader.load_run(&runs[0].run_id).unwrap();
    assert!(run.trials.iter().all(|t| !t.arm.is_unset()));
    drop(reader);
    assert_eq!(
        snapshot(directory.path()),
        before,
        "the v3 file was changed"
    );
}

#[test]
fn a_reader_sees_what_a_writer_committed_while_the_writer_is_open() {
    let (_directory, path, mut writer) = temporary_store();
    let run = synthetic_run("r-live");
    let mut begun = run.clone();
    begun.trials.clear();
    begun.analysis = None;
    let mut handle = writer.begin_run(&begun).unwrap();
    for trial in &run.trials[..3] {
        writer.append_trial(&mut handle, trial).unwrap();
    }
    let reader = Store::open_read_only(&path).unwrap();
    assert_eq!(reader.load_run("r-live").unwrap().trials.len(), 3);
    writer.append_trial(&mut handle, &run.trials[3]).unwrap();
    assert_eq!(reader.load_run("r-live").unwrap().trials.len(), 4);
}

#[test]
fn a_database_from_a_newer_dualperf_is_refused_read_only_too() {
    let (_directory, path, store) = temporary_store();
    drop(store);
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute_batch("PRAGMA user_version = 99")
        .unwrap();
    let err = Store::open_read_only(&path).unwrap_err();
    assert!(
        matches!(err, StoreError::SchemaTooNew { found: 99, .. }),
        "{err}"
    );
}
