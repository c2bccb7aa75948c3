//! The shared key of `run` and `serve` (HMAC-SHA256 challenge; the key never
//! crosses the wire): where it comes from, and keeping it out of everything
//! dualperf writes.
//!
//! Sources, in this order of preference:
//!
//! 1. `--auth-key-file FILE`: the file's bytes, one trailing newline removed;
//! 2. `DUALPERF_AUTH_KEY`: the environment variable, when no flag is given;
//! 3. `--auth-key KEY`: still accepted, with a warning — every user of the
//!    host sees it in `ps`.
//!
//! An empty key is refused (exit code 2): it would be a key anyone knows.
//! The recorded command line (result JSON, database, reports) goes through
//! [`redact_command_line`], so an `--auth-key` given on it is never stored.

use std::ffi::OsString;
use std::path::Path;

use crate::cli::Failure;

/// The environment variable holding the shared key.
pub(crate) const ENV_KEY: &str = "DUALPERF_AUTH_KEY";

/// What replaces a key in a recorded command line.
pub(crate) const REDACTED: &str = "<redacted>";

/// The flags whose value is a secret.
const SECRET_FLAGS: [&str; 1] = ["--auth-key"];

/// Loads the shared key from `--auth-key-file`, `--auth-key` or
/// `DUALPERF_AUTH_KEY` (read from the process environment).
///
/// # Errors
/// A usage error (exit code 2) for an unreadable file or an empty key.
pub(crate) fn load_auth_key(
    file: Option<&Path>,
    inline: Option<&str>,
) -> anyhow::Result<Option<Vec<u8>>> {
    load_auth_key_from(file, inline, std::env::var_os(ENV_KEY))
}

/// [`load_auth_key`] with the environment variable's value passed in (tests).
///
/// # Errors
/// As [`load_auth_key`].
pub(crate) fn load_auth_key_from(
    file: Option<&Path>,
    inline: Option<&str>,
    environment: Option<OsString>,
) -> anyhow::Result<Option<Vec<u8>>> {
    if file.is_some() && inline.is_some() {
        return Err(Failure::usage(
            "give the key once: --auth-key-file or --auth-key, not both",
        ));
    }
    let key = if let Some(path) = file {
        let mut bytes =
            super::files::read_capped(path, super::files::MAX_KEY_FILE_BYTES, "the key file")?;
        if bytes.ends_with(b"\n") {
            bytes.pop();
            if bytes.ends_with(b"\r") {
                bytes.pop();
            }
        }
        if bytes.is_empty() {
            return Err(Failure::usage(format!(
                "the key file {} is empty; a shared key must not be empty",
                path.display()
            )));
        }
        warn_if_readable_by_others(path);
        bytes
    } else if let Some(text) = inline {
        if text.is_empty() {
            return Err(Failure::usage(
                "--auth-key is empty; a shared key must not be empty",
            ));
        }
        eprintln!(
            "dualperf: warning: --auth-key is visible to every user of this host (ps, /proc); \
             prefer --auth-key-file FILE or {ENV_KEY}"
        );
        text.as_bytes().to_vec()
    } else if let Some(value) = environment {
        use std::os::unix::ffi::OsStringExt;
        let bytes = value.into_vec();
        if bytes.is_empty() {
            return Err(Failure::usage(format!(
                "{ENV_KEY} is set but empty; a shared key must not be empty (unset it for no key)"
            )));
        }
        bytes
    } else {
        return Ok(None);
    };
    Ok(Some(key))
}

/// Warns when a key file can be read by other users.
fn warn_if_readable_by_others(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    if let Ok(metadata) = std::fs::metadata(path) {
        let mode = metadata.permissions().mode();
        if mode & 0o077 != 0 {
            eprintln!(
                "dualperf: warning: the key file {} can be read by other users (mode {:o}); chmod 600 it",
                path.display(),
                mode & 0o777
            );
        }
    }
}

/// The command line with every secret value replaced by [`REDACTED`]:
/// `--auth-key KEY` and `--auth-key=KEY` (the file name of
/// `--auth-key-file` is kept: it is not the secret).
pub(crate) fn redact_command_line(args: &[String]) -> Vec<String> {
    let mut redacted = Vec::with_capacity(args.len());
    let mut secret_next = false;
    for arg in args {
        if secret_next {
            redacted.push(REDACTED.to_string());
            secret_next = false;
            continue;
        }
        if arg == "--" {
            // Everything after `--` is positional; nothing to recognise.
            redacted.push(arg.clone());
            continue;
        }
        if SECRET_FLAGS.contains(&arg.as_str()) {
            secret_next = true;
            redacted.push(arg.clone());
        } else if let Some(flag) = SECRET_FLAGS
            .iter()
            .find(|flag| arg.starts_with(&format!("{flag}=")))
        {
            redacted.push(format!("{flag}={REDACTED}"));
        } else {
            redacted.push(arg.clone());
        }
    }
    redacted
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(args: &[&str]) -> Vec<String> {
        args.iter().map(|a| a.to_string()).collect()
    }

    #[test]
    fn both_spellings_of_the_key_are_redacted_and_the_rest_is_kept() {
        let line = strings(&[
            "dualperf",
            "run",
            "--auth-key",
            "s3cret",
            "--auth-key=s3cret",
            "--auth-key-file",
            "/etc/key",
            "host",
        ]);
        let redacted = redact_command_line(&line);
        assert_eq!(
            redacted,
            strings(&[
                "dualperf",
                "run",
                "--auth-key",
                REDACTED,
                "--auth-key=<redacted>",
                "--auth-key-file",
                "/etc/key",
                "host"
            ])
        );
        assert!(!redacted.join(" ").contains("s3cret"));
    }

    #[test]
    fn a_key_file_loses_one_trailing_newline_and_an_empty_one_is_refused() {
        let dir = std::env::temp_dir().join(format!("dualperf-secret-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("key");
        std::fs::write(&file, "k3y\n").unwrap();
        assert_eq!(
            load_auth_key_from(Some(&file), None, None).unwrap(),
            Some(b"k3y".to_vec())
        );
        std::fs::write(&file, "\n").unwrap();
        let error = load_auth_key_from(Some(&file), None, None).unwrap_err();
        assert!(error.to_string().contains("empty"), "{error}");
        let missing = load_auth_key_from(Some(&dir.join("none")), None, None).unwrap_err();
        assert!(missing.to_string().contains("cannot read"), "{missing}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn empty_keys_are_refused_from_every_source_and_no_source_means_no_key() {
        assert!(load_auth_key_from(None, Some(""), None).is_err());
        assert!(load_auth_key_from(None, None, Some(OsString::new())).is_err());
        assert_eq!(load_auth_key_from(None, None, None).unwrap(), None);
        assert_eq!(
            load_auth_key_from(None, None, Some("env".into())).unwrap(),
            Some(b"env".to_vec())
        );
        // A flag wins over the environment.
        assert_eq!(
            load_auth_key_from(None, Some("flag"), Some("env".into())).unwrap(),
            Some(b"flag".to_vec())
        );
    }
}
