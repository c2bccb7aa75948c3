//! `.json.gz` result documents: written compressed when the user names an
//! output ending in `.gz` (`--json out.json.gz`), read back anywhere a
//! result or plan path is accepted. Reading detects gzip by its magic bytes
//! (`1f 8b`, RFC 1952), not by the name, so a renamed file still loads; a
//! truncated or corrupt file is an error that says so, never a panic.

use std::io::{Read, Write};
use std::path::Path;

use anyhow::Context;
use flate2::read::MultiGzDecoder;
use flate2::write::GzEncoder;
use flate2::Compression;

/// The first two bytes of every gzip member (RFC 1952 §2.3.1).
pub(crate) const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// True when `path` names a file to be written gzip-compressed (`*.gz`).
pub(crate) fn is_gzip_name(path: &Path) -> bool {
    path.extension().is_some_and(|extension| extension == "gz")
}

/// True when `bytes` start with the gzip magic.
pub(crate) fn is_gzip(bytes: &[u8]) -> bool {
    bytes.starts_with(&GZIP_MAGIC)
}

/// `body` gzip-compressed at the default level.
pub(crate) fn compress(body: &[u8]) -> Vec<u8> {
    let mut encoder = GzEncoder::new(Vec::with_capacity(body.len() / 8), Compression::default());
    encoder
        .write_all(body)
        .and_then(|()| encoder.finish())
        .expect("compressing into memory cannot fail")
}

/// Largest result or plan document, bytes, on disk and once decompressed
/// (256 MiB; a default lab run is about 4 MB of JSON, one with `--raw`
/// tens of MB). A gzip bomb or `/dev/zero` is refused at this size instead
/// of expanding until memory runs out.
pub(crate) const MAX_DOCUMENT_BYTES: u64 = 256 << 20;

/// Reads `reader` to its end into memory, or `None` once it yields more
/// than `cap` bytes. The buffer grows by doubling to at most `cap` (a power
/// of two stays within `cap`), never beyond.
pub(crate) fn read_capped(mut reader: impl Read, cap: u64) -> std::io::Result<Option<Vec<u8>>> {
    let mut body = Vec::new();
    let mut chunk = vec![0u8; 64 << 10];
    loop {
        let n = match reader.read(&mut chunk) {
            Ok(0) => return Ok(Some(body)),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if body.len() as u64 + n as u64 > cap {
            return Ok(None);
        }
        body.extend_from_slice(&chunk[..n]);
    }
}

/// `bytes` decompressed when they are gzip (every member, RFC 1952 §2.2),
/// else as they are; `None` when they expand beyond `cap`.
///
/// # Errors
/// When gzip data is truncated or corrupt.
pub(crate) fn decompress_capped(bytes: Vec<u8>, cap: u64) -> std::io::Result<Option<Vec<u8>>> {
    if !is_gzip(&bytes) {
        return Ok((bytes.len() as u64 <= cap).then_some(bytes));
    }
    read_capped(MultiGzDecoder::new(bytes.as_slice()), cap)
}

/// The contents of `path`, decompressed when the file is gzip, at most
/// [`MAX_DOCUMENT_BYTES`] either way.
///
/// # Errors
/// When the file cannot be read, is larger than the cap on disk or once
/// decompressed, or is gzip but truncated or corrupt.
pub(crate) fn read_document(path: &Path) -> anyhow::Result<Vec<u8>> {
    let limit = MAX_DOCUMENT_BYTES >> 20;
    let file = std::fs::File::open(path).with_context(|| format!("reading {}", path.display()))?;
    let bytes = read_capped(file, MAX_DOCUMENT_BYTES)
        .with_context(|| format!("reading {}", path.display()))?
        .with_context(|| {
            format!(
                "{} is larger than {limit} MiB, the limit of a result or plan file",
                path.display()
            )
        })?;
    decompress_capped(bytes, MAX_DOCUMENT_BYTES)
        .with_context(|| {
            format!(
                "{} is a truncated or corrupt gzip file (RFC 1952)",
                path.display()
            )
        })?
        .with_context(|| {
            format!(
                "{} expands to more than {limit} MiB (a gzip bomb?), the limit of a result or plan file",
                path.display()
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_document_survives_compression_and_plain_text_passes_through() {
        let body = br#"{"schema":"dualperf.run","trials":[1,2,3]}"#.repeat(100);
        let packed = compress(&body);
        assert!(is_gzip(&packed) && packed.len() < body.len() / 4);
        assert_eq!(decompress_capped(packed, 1 << 20).unwrap().unwrap(), body);
        assert_eq!(
            decompress_capped(body.clone(), 1 << 20).unwrap().unwrap(),
            body
        );
    }

    #[test]
    fn a_truncated_gzip_is_an_error_not_a_panic() {
        let body = b"{\"a\": 1}\n".repeat(1000);
        let packed = compress(&body);
        for cut in [2, 10, packed.len() / 2, packed.len() - 4] {
            assert!(
                decompress_capped(packed[..cut].to_vec(), 1 << 20).is_err(),
                "cut at {cut}"
            );
        }
    }

    #[test]
    fn a_document_expanding_beyond_the_cap_is_refused() {
        let packed = compress(&vec![0u8; 1 << 20]);
        assert!(decompress_capped(packed.clone(), 1 << 20)
            .unwrap()
            .is_some());
        assert!(decompress_capped(packed, (1 << 20) - 1).unwrap().is_none());
        assert!(read_capped(std::io::repeat(0), 1 << 16).unwrap().is_none());
    }

    #[test]
    fn only_names_ending_in_gz_are_written_compressed() {
        assert!(is_gzip_name(Path::new("results/x/result.json.gz")));
        assert!(!is_gzip_name(Path::new("result.json")));
        assert!(!is_gzip_name(Path::new("-")));
    }

    #[test]
    fn a_plan_file_may_be_a_gzipped_result() {
        let directory = std::env::temp_dir().join(format!("dpe-gz-plan-{}", std::process::id()));
        std::fs::create_dir_all(&directory).unwrap();
        let path = directory.join("result.json.gz");
        let result = dualperf_fixtures::synthetic::small_synthetic_run();
        crate::pipeline::output::write_json(&path, &result, false).unwrap();
        assert!(is_gzip(&std::fs::read(&path).unwrap()));
        let config = crate::pipeline::plan::load(&path).unwrap().config;
        assert_eq!(config, result.config);
        std::fs::remove_dir_all(&directory).unwrap();
    }
}
