//! The BPF programs of the 6in4 recipe tunnel (`bpf-lwt`) and of link
//! emulation without netem (`linkem`), embedded.
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

/// The link-emulation program (section `tc`, clsact egress): Bernoulli loss
/// and the redirect into the user-space delay line (kernel-recipes §5).
pub const LINK_EMULATION: &[u8] = include_bytes!("../bpf/linkem.o");
/// The C source of [`LINK_EMULATION`].
pub const LINK_EMULATION_SOURCE: &str = include_str!("../bpf/linkem.c");
/// `skb->mark` of frames the delay line sends back out: the program lets
/// them pass (`LINKEM_MARK` in `bpf/linkem.c`).
pub const LINKEM_MARK: u32 = 0x0d5e_1a7e;
/// Sentinel of the loss threshold (drop when `prandom_u32 < threshold`).
const LOSS_THRESH_SENTINEL: u32 = 0xd510_0501;
/// Sentinel of the delay line's TAP ifindex (0: no delay line).
const DELAY_IFINDEX_SENTINEL: u32 = 0xd510_0502;

/// The loss threshold for `loss_ratio` (0.0..=1.0) on a uniform `u32`.
pub fn loss_threshold(loss_ratio: f64) -> u32 {
    (loss_ratio.clamp(0.0, 1.0) * 4_294_967_296.0).min(f64::from(u32::MAX)) as u32
}

/// [`LINK_EMULATION`] dropping `loss_ratio` of the packets and redirecting
/// the rest to interface `delay_ifindex` (0: none, the packet goes on).
///
/// # Panics
/// If a sentinel does not occur exactly once (a unit test guards this).
pub fn link_emulation_object(loss_ratio: f64, delay_ifindex: u32) -> Vec<u8> {
    let mut bytes = LINK_EMULATION.to_vec();
    for (sentinel, real) in [
        (LOSS_THRESH_SENTINEL, loss_threshold(loss_ratio)),
        (DELAY_IFINDEX_SENTINEL, delay_ifindex),
    ] {
        // the low 32 bits of a 64-bit immediate load, little-endian (x86 BPF)
        let needle = sentinel.to_le_bytes();
        let hits: Vec<usize> = bytes
            .windows(4)
            .enumerate()
            .filter(|(_, w)| *w == needle)
            .map(|(i, _)| i)
            .collect();
        assert_eq!(
            hits.len(),
            1,
            "sentinel {sentinel:#x} must occur once in linkem.o"
        );
        bytes[hits[0]..hits[0] + 4].copy_from_slice(&real.to_le_bytes());
    }
    bytes
}

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
    fn the_link_emulation_object_takes_its_threshold_and_ifindex() {
        let object = link_emulation_object(0.01, 4242);
        assert_eq!(object.len(), LINK_EMULATION.len());
        let count = |needle: [u8; 4]| object.windows(4).filter(|w| *w == needle).count();
        assert_eq!(count(loss_threshold(0.01).to_le_bytes()), 1);
        assert_eq!(count(4242u32.to_le_bytes()), 1);
        assert_eq!(count(LOSS_THRESH_SENTINEL.to_le_bytes()), 0);
        assert_eq!(count(LINKEM_MARK.to_le_bytes()), 1);
        assert_eq!(loss_threshold(0.0), 0);
        assert_eq!(loss_threshold(1.0), u32::MAX);
        assert_eq!(loss_threshold(0.5), 1 << 31);
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
        let objects = [
            ("encap6in4.o", Program::Encap.object()),
            ("decap6in4.o", Program::Decap.object()),
            ("linkem.o", LINK_EMULATION),
        ];
        for (file_name, object) in objects {
            let source = dir.join(file_name.replace(".o", ".c"));
            let built = out.join(file_name);
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
                rebuilt == object,
                "{file_name} differs from what bpf/make.sh builds from its source: run crates/dualperf-lab/bpf/make.sh and commit the object"
            );
        }
        let _ = std::fs::remove_dir_all(&out);
    }
}
