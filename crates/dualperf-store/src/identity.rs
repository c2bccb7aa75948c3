//! Is a file a dualperf results database? Asked before anything touches it,
//! so that neither a reading nor a writing command changes another
//! program's file (issue 16, item 7).
//!
//! A dualperf database has `PRAGMA application_id` = [`APPLICATION_ID`]
//! (schema version 4 on), or, written before version 4, application id 0,
//! a `user_version` of at least 1 and a `runs` table with dualperf's
//! columns. A new, empty file may become one (writing only). Anything else
//! is foreign and refused.

use std::io::Read;
use std::path::Path;

use rusqlite::Connection;

use crate::schema::APPLICATION_ID;

/// What a file is.
#[derive(Debug, PartialEq)]
pub(crate) enum Identity {
    /// No tables and no version yet: a new file (possibly 0 bytes).
    Empty,
    /// A dualperf results database, any schema version.
    Dualperf,
    /// Something else; the reason, for people.
    Foreign(String),
}

/// The first 100 bytes of an SQLite file: the database header.
const HEADER_BYTES: usize = 100;
const MAGIC: &[u8; 16] = b"SQLite format 3\0";

/// What the file's header says, read with plain file I/O (SQLite never
/// opens a file that is not a database): `None` when the header cannot
/// decide (application id 0, which both a dualperf database written before
/// schema version 4 and a foreign one have), with whether the file is in
/// WAL mode.
pub(crate) struct Header {
    pub(crate) verdict: Option<Identity>,
    pub(crate) wal: bool,
}

/// Reads the header of `path`.
pub(crate) fn read_header(path: &Path) -> std::io::Result<Header> {
    let mut bytes = Vec::with_capacity(HEADER_BYTES);
    std::fs::File::open(path)?
        .take(HEADER_BYTES as u64)
        .read_to_end(&mut bytes)?;
    if bytes.is_empty() {
        return Ok(Header {
            verdict: Some(Identity::Empty),
            wal: false,
        });
    }
    if bytes.len() < HEADER_BYTES || !bytes.starts_with(MAGIC) {
        return Ok(Header {
            verdict: Some(Identity::Foreign("not an SQLite database".into())),
            wal: false,
        });
    }
    // Offsets from https://sqlite.org/fileformat.html §1.3: 18/19 the
    // write/read format versions (2 = WAL), 68 the application id.
    let wal = bytes[18] == 2 || bytes[19] == 2;
    let application_id = i32::from_be_bytes([bytes[68], bytes[69], bytes[70], bytes[71]]);
    let verdict = match application_id {
        APPLICATION_ID => Some(Identity::Dualperf),
        0 => None,
        other => Some(Identity::Foreign(foreign_application(other))),
    };
    Ok(Header { verdict, wal })
}

fn foreign_application(id: i32) -> String {
    let bytes = id.to_be_bytes();
    let text: String = if bytes.iter().all(u8::is_ascii_graphic) {
        format!(" (\"{}\")", String::from_utf8_lossy(&bytes))
    } else {
        String::new()
    };
    format!("an SQLite database of another program: application id {id:#010x}{text}")
}

/// What the open `connection` holds, from its schema (authoritative: the
/// header in the main file can lag behind a WAL).
pub(crate) fn identify(connection: &Connection) -> rusqlite::Result<Identity> {
    let application_id: i32 = connection.query_row("PRAGMA application_id", [], |r| r.get(0))?;
    if application_id == APPLICATION_ID {
        return Ok(Identity::Dualperf);
    }
    if application_id != 0 {
        return Ok(Identity::Foreign(foreign_application(application_id)));
    }
    let user_version: i64 = connection.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    let tables: i64 = connection.query_row(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table'",
        [],
        |r| r.get(0),
    )?;
    if tables == 0 && user_version == 0 {
        return Ok(Identity::Empty);
    }
    // The columns every dualperf schema since version 1 has in `runs`.
    let dualperf_columns: i64 = connection.query_row(
        "SELECT count(*) FROM pragma_table_info('runs')
         WHERE name IN ('run_id', 'result_schema', 'config_json', 'client_host_json')",
        [],
        |r| r.get(0),
    )?;
    Ok(if user_version >= 1 && dualperf_columns == 4 {
        Identity::Dualperf
    } else if dualperf_columns == 0 {
        let plural = if tables == 1 { "" } else { "s" };
        Identity::Foreign(format!(
            "an SQLite database of another program: {tables} table{plural}, none of them dualperf's"
        ))
    } else {
        Identity::Foreign(format!(
            "an SQLite database with a `runs` table that is not dualperf's \
             (user_version {user_version})"
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_header_names_another_programs_application_id() {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("other.db");
        let connection = Connection::open(&path).unwrap();
        connection
            .execute_batch(&format!(
                "PRAGMA application_id = {}; CREATE TABLE t (x);",
                i32::from_be_bytes(*b"FLAH")
            ))
            .unwrap();
        drop(connection);
        let header = read_header(&path).unwrap();
        assert!(!header.wal);
        match header.verdict {
            Some(Identity::Foreign(reason)) => assert!(reason.contains("\"FLAH\""), "{reason}"),
            _ => panic!("not recognised as foreign"),
        }
    }

    #[test]
    fn an_empty_file_and_text_are_told_apart() {
        let directory = tempfile::tempdir().unwrap();
        let empty = directory.path().join("empty");
        std::fs::write(&empty, "").unwrap();
        assert_eq!(read_header(&empty).unwrap().verdict, Some(Identity::Empty));
        let text = directory.path().join("text");
        std::fs::write(&text, "hello").unwrap();
        assert!(matches!(
            read_header(&text).unwrap().verdict,
            Some(Identity::Foreign(_))
        ));
    }

    #[test]
    fn a_table_named_runs_is_not_enough() {
        let connection = Connection::open_in_memory().unwrap();
        connection
            .execute_batch("CREATE TABLE runs (id INTEGER, run_id TEXT); PRAGMA user_version = 3;")
            .unwrap();
        assert!(matches!(
            identify(&connection).unwrap(),
            Identity::Foreign(_)
        ));
    }
}
