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

/// `bytes` decompressed when they are gzip, else as they are.
///
/// # Errors
/// When gzip data is truncated or corrupt.
pub(crate) fn decompress(bytes: Vec<u8>) -> std::io::Result<Vec<u8>> {
    if !is_gzip(&bytes) {
        return Ok(bytes);
    }
    let mut plain = Vec::with_capacity(bytes.len().saturating_mul(8));
    MultiGzDecoder::new(bytes.as_slice()).read_to_end(&mut plain)?;
    Ok(plain)
}

/// The contents of `path`, decompressed when the file is gzip.
///
/// # Errors
/// When the file cannot be read, or is gzip but truncated or corrupt.
pub(crate) fn read_document(path: &Path) -> anyhow::Result<Vec<u8>> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    decompress(bytes).with_context(|| {
        format!(
            "{} is a truncated or corrupt gzip file (RFC 1952)",
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
        assert_eq!(decompress(packed).unwrap(), body);
        assert_eq!(decompress(body.clone()).unwrap(), body);
    }

    #[test]
    fn a_truncated_gzip_is_an_error_not_a_panic() {
        let body = b"{\"a\": 1}\n".repeat(1000);
        let packed = compress(&body);
        for cut in [2, 10, packed.len() / 2, packed.len() - 4] {
            assert!(decompress(packed[..cut].to_vec()).is_err(), "cut at {cut}");
        }
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
