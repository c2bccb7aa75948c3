//! Names of everything a testbed creates in the kernel.
//!
//! Every name carries the run prefix so that `dualperf lab clean` can find
//! what a crashed run left behind, and so that parallel runs never collide:
//!
//! | object | form | example |
//! |---|---|---|
//! | network namespace | `dsp-<run>-<node>` | `dsp-k3x9a-router` |
//! | veth end | `dsp<run>-<link><a\|b>` | `dspk3x9a-0a` |
//!
//! Interface names must fit `IFNAMSIZ` (16 bytes with the terminating NUL,
//! so at most 15 visible bytes); [`interface_name`] is the only function that
//! builds them, which is what keeps that promise checkable.

use std::fmt;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::error::LabError;

/// Prefix of every network namespace dualperf creates.
pub const NAMESPACE_PREFIX: &str = "dsp-";
/// Prefix of every interface dualperf creates.
pub const INTERFACE_PREFIX: &str = "dsp";
/// Longest interface name the kernel accepts (`IFNAMSIZ` − 1), bytes.
pub const MAX_INTERFACE_NAME_BYTES: usize = 15;
/// Longest run id, characters: chosen so that [`interface_name`] stays within
/// [`MAX_INTERFACE_NAME_BYTES`] for up to [`MAX_LINKS`] links.
pub const MAX_RUN_ID_CHARS: usize = 7;
/// Most links one topology may have (link indices 0..=999).
pub const MAX_LINKS: usize = 1000;

/// The short identifier of one testbed run: 1 to 7 characters of `[a-z0-9]`.
#[derive(Clone, Debug, Eq, Hash, PartialEq, PartialOrd, Ord)]
pub struct RunId(String);

impl RunId {
    /// Checks and wraps a run id given by a user or a test.
    ///
    /// # Errors
    /// [`LabError::InvalidRunId`] unless `text` is 1..=7 characters of `[a-z0-9]`.
    pub fn new(text: impl Into<String>) -> Result<Self, LabError> {
        let text = text.into();
        let valid = !text.is_empty()
            && text.len() <= MAX_RUN_ID_CHARS
            && text
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit());
        if valid {
            Ok(RunId(text))
        } else {
            Err(LabError::InvalidRunId { run_id: text })
        }
    }

    /// A run id unique among the processes running now: the process id and a
    /// per-process counter in base 36, prefixed with a letter derived from the
    /// clock so that a recycled pid rarely repeats an id.
    pub fn unique() -> Self {
        static COUNTER: AtomicU32 = AtomicU32::new(0);
        let count = COUNTER.fetch_add(1, Ordering::Relaxed);
        let seconds = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        let letter = (b'a' + (seconds % 26) as u8) as char;
        // pid_max is at most 4 194 304 = "2hm7k" in base 36 (5 chars); the
        // counter takes the last character, so ids stay within 7 characters.
        let text = format!(
            "{letter}{}{}",
            base36(u64::from(std::process::id())),
            base36(u64::from(count % 36))
        );
        RunId(text)
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for RunId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

fn base36(mut value: u64) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = Vec::new();
    loop {
        out.push(DIGITS[(value % 36) as usize]);
        value /= 36;
        if value == 0 {
            break;
        }
    }
    out.reverse();
    String::from_utf8(out).expect("base-36 digits are ASCII")
}

/// Which end of a link: the first or the second node of `between`.
#[derive(Clone, Copy, Debug, Eq, Hash, PartialEq)]
pub enum LinkEnd {
    /// `between[0]`.
    A,
    /// `between[1]`.
    B,
}

impl LinkEnd {
    /// Both ends, A first.
    pub const BOTH: [LinkEnd; 2] = [LinkEnd::A, LinkEnd::B];

    /// 0 for A, 1 for B.
    pub fn index(self) -> usize {
        match self {
            LinkEnd::A => 0,
            LinkEnd::B => 1,
        }
    }

    /// The other end.
    pub fn peer(self) -> LinkEnd {
        match self {
            LinkEnd::A => LinkEnd::B,
            LinkEnd::B => LinkEnd::A,
        }
    }
}

/// The network namespace of `node` in run `run`: `dsp-<run>-<node>`.
pub fn namespace_name(run: &RunId, node: &str) -> String {
    format!("{NAMESPACE_PREFIX}{run}-{node}")
}

/// The prefix shared by every namespace of run `run`: `dsp-<run>-`.
pub fn run_namespace_prefix(run: &RunId) -> String {
    format!("{NAMESPACE_PREFIX}{run}-")
}

/// The veth end `end` of link number `link` in run `run`: `dsp<run>-<link><a|b>`,
/// at most 15 bytes because a [`RunId`] has at most 7 characters and a
/// topology at most [`MAX_LINKS`] links.
///
/// # Panics
/// If `link >= MAX_LINKS`: topology validation rejects such topologies, so
/// reaching this is a bug.
pub fn interface_name(run: &RunId, link: usize, end: LinkEnd) -> String {
    assert!(
        link < MAX_LINKS,
        "topology validation caps links at {MAX_LINKS}"
    );
    let letter = match end {
        LinkEnd::A => 'a',
        LinkEnd::B => 'b',
    };
    let name = format!("{INTERFACE_PREFIX}{run}-{link}{letter}");
    debug_assert!(name.len() <= MAX_INTERFACE_NAME_BYTES);
    name
}

/// A device a transition mechanism creates inside a node: `dsp<run>-<letter><index>`,
/// `t` for a tunnel device (sit, ip6tnl), `x` for a translator's TUN device
/// (TAYGA). At most 15 bytes: a [`RunId`] has at most 7 characters and the
/// index at most 3 digits.
///
/// # Panics
/// If `index >= 1000`.
pub fn mechanism_interface_name(run: &RunId, letter: char, index: usize) -> String {
    assert!(index < 1000, "at most 1000 mechanisms of a kind");
    let name = format!("{INTERFACE_PREFIX}{run}-{letter}{index}");
    debug_assert!(name.len() <= MAX_INTERFACE_NAME_BYTES);
    name
}

/// The directory a testbed keeps its files in (BPF objects, TAYGA's
/// configuration, state and pid file): `$TMPDIR/dsp-<run>`, removed with
/// the testbed.
pub fn work_dir(run: &RunId) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("{NAMESPACE_PREFIX}{run}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_longest_interface_name_fits_ifnamsiz() {
        let run = RunId::new("abcdefg").unwrap();
        let name = interface_name(&run, MAX_LINKS - 1, LinkEnd::B);
        assert_eq!(name, "dspabcdefg-999b");
        assert_eq!(name.len(), MAX_INTERFACE_NAME_BYTES);
    }

    #[test]
    fn interface_names_differ_per_link_and_end() {
        let run = RunId::new("x1").unwrap();
        assert_eq!(interface_name(&run, 0, LinkEnd::A), "dspx1-0a");
        assert_ne!(
            interface_name(&run, 0, LinkEnd::A),
            interface_name(&run, 0, LinkEnd::B)
        );
        assert_ne!(
            interface_name(&run, 1, LinkEnd::A),
            interface_name(&run, 10, LinkEnd::A)
        );
    }

    #[test]
    fn unique_run_ids_are_valid_and_distinct() {
        let first = RunId::unique();
        let second = RunId::unique();
        assert_ne!(first, second);
        for id in [&first, &second] {
            RunId::new(id.as_str()).unwrap();
            assert!(interface_name(id, 999, LinkEnd::A).len() <= MAX_INTERFACE_NAME_BYTES);
        }
    }

    #[test]
    fn run_ids_with_capitals_dashes_or_too_many_characters_are_rejected() {
        for bad in ["", "ABC", "a-b", "abcdefgh", "a b"] {
            assert!(RunId::new(bad).is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn mechanism_device_names_fit_ifnamsiz_and_carry_the_run_prefix() {
        let run = RunId::new("abcdefg").unwrap();
        let name = mechanism_interface_name(&run, 'x', 999);
        assert_eq!(name, "dspabcdefg-x999");
        assert_eq!(name.len(), MAX_INTERFACE_NAME_BYTES);
        assert!(work_dir(&run).ends_with("dsp-abcdefg"));
    }

    #[test]
    fn namespace_names_start_with_the_run_prefix() {
        let run = RunId::new("k3").unwrap();
        assert_eq!(namespace_name(&run, "router"), "dsp-k3-router");
        assert!(namespace_name(&run, "router").starts_with(&run_namespace_prefix(&run)));
    }
}
