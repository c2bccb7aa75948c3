//! Small input files read whole (a configuration, a key): each has a size
//! cap, so `/dev/zero` or a huge file named by mistake is a clear usage
//! error (exit code 2), never a read until memory runs out. Result and plan
//! documents have their own cap ([`crate::pipeline::gzip::MAX_DOCUMENT_BYTES`]).

use std::path::Path;

use crate::cli::Failure;

/// Largest configuration file (`dualperf exporter --config`), bytes (1 MiB).
pub(crate) const MAX_CONFIG_BYTES: u64 = 1 << 20;
/// Largest key file (`--auth-key-file`, `auth_key_file`), bytes (64 KiB).
pub(crate) const MAX_KEY_FILE_BYTES: u64 = 64 << 10;

/// The bytes of `path`, at most `cap` of them; `what` names the file in
/// errors ("the key file").
///
/// # Errors
/// A usage error when the file cannot be read or holds more than `cap` bytes.
pub(crate) fn read_capped(path: &Path, cap: u64, what: &str) -> anyhow::Result<Vec<u8>> {
    let unreadable =
        |e: std::io::Error| Failure::usage(format!("cannot read {what} {}: {e}", path.display()));
    let file = std::fs::File::open(path).map_err(unreadable)?;
    crate::pipeline::gzip::read_capped(file, cap)
        .map_err(unreadable)?
        .ok_or_else(|| {
            Failure::usage(format!(
                "{what} {} is larger than {cap} bytes, its limit",
                path.display()
            ))
        })
}

/// [`read_capped`] as UTF-8 text.
///
/// # Errors
/// As [`read_capped`], and when the bytes are not UTF-8.
pub(crate) fn read_text_capped(path: &Path, cap: u64, what: &str) -> anyhow::Result<String> {
    String::from_utf8(read_capped(path, cap, what)?)
        .map_err(|_| Failure::usage(format!("{what} {} is not UTF-8 text", path.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dev_zero_is_refused_at_the_cap() {
        let error = read_capped(Path::new("/dev/zero"), 4096, "the key file").unwrap_err();
        assert!(
            format!("{error:#}").contains("larger than 4096 bytes"),
            "{error:#}"
        );
    }
}
