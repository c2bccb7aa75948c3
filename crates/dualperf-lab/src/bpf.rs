//! The BPF programs of the 6in4 recipe tunnel (`bpf-lwt`), embedded.
//!
//! **How they are built, and why.** The C sources live in
//! `crates/dualperf-lab/bpf/` next to the objects clang made from them
//! (`bpf/make.sh`); both are committed, and this module embeds the objects
//! with `include_bytes!`. So building and running dualperf needs neither
//! clang nor libbpf-dev — only iproute2, which loads the ELF objects itself
//! (`ip route … encap bpf xmit obj FILE`, `tc filter … bpf da obj FILE`).
//! A unit test rebuilds the objects with clang when it is installed and
//! fails if they differ from the committed ones (same clang version), so a
//! source edited without `bpf/make.sh` cannot slip through; `dev/install-deps`
//! installs clang and libbpf-dev for that.
//!
//! Each object is compiled once with two **sentinel** addresses
//! (192.0.2.201 for this end, 192.0.2.202 for the peer). Their
//! little-endian immediates are ≥ 2^31, so clang keeps each in one 64-bit
//! immediate load; [`patched`] replaces the 4 bytes of each sentinel with a
//! real address and checks it found each exactly once. The encapsulator
//! leaves the IPv4 header checksum 0 for the kernel to fill in, so patching
//! never leaves a stale checksum (kernel-recipes §2.2).

use std::net::Ipv4Addr;

/// The encapsulator: an `lwt_xmit` program (section `lwt_xmit`).
pub const ENCAP_6IN4: &[u8] = include_bytes!("../bpf/encap6in4.o");
/// The decapsulator: a tc `cls_bpf` direct-action program (section `tc`).
pub const DECAP_6IN4: &[u8] = include_bytes!("../bpf/decap6in4.o");
/// The C source of [`ENCAP_6IN4`].
pub const ENCAP_6IN4_SOURCE: &str = include_str!("../bpf/encap6in4.c");
/// The C source of [`DECAP_6IN4`].
pub const DECAP_6IN4_SOURCE: &str = include_str!("../bpf/decap6in4.c");

/// The sentinel standing for this end's address (`TUN_SRC`, `LOCAL_V4`).
pub const LOCAL_SENTINEL: Ipv4Addr = Ipv4Addr::new(192, 0, 2, 201);
/// The sentinel standing for the peer's address (`TUN_DST`, `PEER_V4`).
pub const PEER_SENTINEL: Ipv4Addr = Ipv4Addr::new(192, 0, 2, 202);

/// Which of the two programs.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Program {
    /// `encap6in4.o`, attached to a route.
    Encap,
    /// `decap6in4.o`, attached to an interface's clsact ingress.
    Decap,
}

impl Program {
    /// The embedded object.
    pub fn object(self) -> &'static [u8] {
        match self {
            Program::Encap => ENCAP_6IN4,
            Program::Decap => DECAP_6IN4,
        }
    }

    /// The object's file name in the repository.
    pub fn file_name(self) -> &'static str {
        match self {
            Program::Encap => "encap6in4.o",
            Program::Decap => "decap6in4.o",
        }
    }

    /// The ELF section holding the program.
    pub fn section(self) -> &'static str {
        match self {
            Program::Encap => "lwt_xmit",
            Program::Decap => "tc",
        }
    }

    /// The clang command that builds an equivalent object for these
    /// addresses directly (for a person rebuilding the testbed by hand).
    pub fn clang_command(self, local: Ipv4Addr, peer: Ipv4Addr) -> String {
        let (source, local_macro, peer_macro) = match self {
            Program::Encap => ("encap6in4.c", "TUN_SRC", "TUN_DST"),
            Program::Decap => ("decap6in4.c", "LOCAL_V4", "PEER_V4"),
        };
        format!(
            "clang -O2 -target bpf -I/usr/include/x86_64-linux-gnu -D{local_macro}={:#010x} -D{peer_macro}={:#010x} -c crates/dualperf-lab/bpf/{source}",
            u32::from(local),
            u32::from(peer)
        )
    }
}

/// The 4 bytes an address occupies in an instruction's immediate: the
/// network-order bytes, as `bpf_htonl(A)` stores them.
fn immediate(address: Ipv4Addr) -> [u8; 4] {
    address.octets()
}

/// `program`'s object with `local` and `peer` in place of the sentinels.
///
/// # Panics
/// If a sentinel does not occur exactly once in the embedded object; a unit
/// test guards this for the committed objects.
pub fn patched(program: Program, local: Ipv4Addr, peer: Ipv4Addr) -> Vec<u8> {
    let mut bytes = program.object().to_vec();
    for (sentinel, real) in [(LOCAL_SENTINEL, local), (PEER_SENTINEL, peer)] {
        let needle = immediate(sentinel);
        let hits: Vec<usize> = bytes
            .windows(4)
            .enumerate()
            .filter(|(_, w)| *w == needle)
            .map(|(i, _)| i)
            .collect();
        assert_eq!(
            hits.len(),
            1,
            "sentinel {sentinel} must occur exactly once in {}",
            program.file_name()
        );
        bytes[hits[0]..hits[0] + 4].copy_from_slice(&immediate(real));
    }
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;
    use std::process::Command;

    #[test]
    fn each_sentinel_occurs_once_and_patching_puts_the_addresses_in() {
        let local = Ipv4Addr::new(10, 180, 1, 1);
        let peer = Ipv4Addr::new(10, 180, 3, 2);
        for program in [Program::Encap, Program::Decap] {
            let object = patched(program, local, peer);
            assert_eq!(object.len(), program.object().len());
            let count = |needle: [u8; 4]| object.windows(4).filter(|w| *w == needle).count();
            assert_eq!(count(local.octets()), 1, "{program:?}");
            assert_eq!(count(peer.octets()), 1, "{program:?}");
            assert_eq!(count(LOCAL_SENTINEL.octets()), 0);
            assert_eq!(count(PEER_SENTINEL.octets()), 0);
            assert!(object.starts_with(b"\x7fELF"));
        }
    }

    #[test]
    fn the_objects_hold_their_sections_and_license() {
        for program in [Program::Encap, Program::Decap] {
            let object = program.object();
            let has = |text: &str| object.windows(text.len()).any(|w| w == text.as_bytes());
            assert!(has(program.section()), "{program:?}");
            assert!(has("GPL"));
        }
    }

    /// The committed objects are what `bpf/make.sh` builds from the committed
    /// sources. Needs clang (dev/install-deps); compares byte for byte when
    /// the local clang is the version that built them (bpf/clang-version.txt).
    #[test]
    fn the_committed_objects_match_their_sources() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("bpf");
        let Ok(version) = Command::new("clang").arg("--version").output() else {
            assert!(
                std::env::var_os("DUALPERF_REQUIRE_CLANG").is_none(),
                "clang is required (DUALPERF_REQUIRE_CLANG) but not installed: dev/install-deps"
            );
            eprintln!("skipped: clang not installed (dev/install-deps installs it)");
            return;
        };
        let local_version = String::from_utf8_lossy(&version.stdout)
            .lines()
            .next()
            .unwrap_or_default()
            .trim()
            .to_string();
        let recorded = std::fs::read_to_string(dir.join("clang-version.txt")).unwrap();
        if local_version != recorded.trim() {
            eprintln!(
                "skipped: objects were built by `{}`, this is `{local_version}`",
                recorded.trim()
            );
            return;
        }
        let out = std::env::temp_dir().join(format!("dualperf-bpf-check-{}", std::process::id()));
        std::fs::create_dir_all(&out).unwrap();
        let multiarch = Command::new("gcc")
            .arg("-print-multiarch")
            .output()
            .ok()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| "x86_64-linux-gnu".into());
        for program in [Program::Encap, Program::Decap] {
            let source = dir.join(program.file_name().replace(".o", ".c"));
            let built = out.join(program.file_name());
            let status = Command::new("clang")
                .args(["-O2", "-target", "bpf"])
                .arg(format!("-I/usr/include/{multiarch}"))
                .arg("-c")
                .arg(&source)
                .arg("-o")
                .arg(&built)
                .status()
                .unwrap();
            assert!(status.success(), "clang failed on {}", source.display());
            let rebuilt = std::fs::read(&built).unwrap();
            assert!(
                rebuilt == program.object(),
                "{} differs from what bpf/make.sh builds from its source: run crates/dualperf-lab/bpf/make.sh and commit the object",
                program.file_name()
            );
        }
        let _ = std::fs::remove_dir_all(&out);
    }
}
