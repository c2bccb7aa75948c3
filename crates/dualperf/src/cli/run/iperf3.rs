//! iperf3's client flags on `dualperf run` (docs/iperf3-flags.md maps every
//! one): those whose meaning dualperf has are wired to it (`-S` TOS byte,
//! `-O` omit = warm-up, `-C` congestion control, `--logfile`,
//! `--get-server-output`, `-n`/`-k` send budgets, `--json-stream` in json_stream.rs); those it lacks are accepted by the parser only to
//! be refused with the reason (exit 2) — never accepted and ignored.

use std::path::PathBuf;

use dualperf_model::{Dscp, RunConfig, TestKind};

use crate::cli::Failure;

/// iperf3's client flags, flattened into `dualperf run`'s arguments (the
/// refused ones hidden from `--help`; docs/iperf3-flags.md lists them).
#[derive(clap::Args, Debug, Default)]
pub(crate) struct Iperf3Flags {
    /// The IP TOS byte, as iperf3 takes it: decimal (184), hex (0xb8) or
    /// octal (0270), or a DSCP name (ef, af41, cs1, le). dualperf sets the
    /// DSCP (the upper six bits: 0xb8 = EF); a value with ECN bits set is
    /// refused. `--dscp` takes the codepoint itself (46 = EF).
    #[arg(short = 'S', long = "tos", value_name = "TOS", value_parser = parse_tos, conflicts_with_all = ["dscp", "plan"])]
    pub tos: Option<Dscp>,
    /// iperf3's omit: seconds at the start of each trial left out of the
    /// results, which is dualperf's warm-up (`--warmup`).
    #[arg(short = 'O', long = "omit", value_name = "SECS", conflicts_with_all = ["warmup", "plan"])]
    pub omit: Option<f64>,
    /// TCP congestion control of both ends' data sockets (cubic, bbr, reno;
    /// see /proc/sys/net/ipv4/tcp_available_congestion_control); a trial
    /// fails when either end lacks it. UDP points are unaffected.
    #[arg(
        short = 'C',
        long = "congestion",
        value_name = "ALGO",
        conflicts_with = "plan"
    )]
    pub congestion: Option<String>,
    /// Write everything this run prints (standard output and standard
    /// error) to FILE, appended, as iperf3's --logfile.
    #[arg(long, value_name = "FILE")]
    pub logfile: Option<PathBuf>,
    /// Accepted for iperf3 scripts: the server's side of every trial (its
    /// meters and CPU) is always part of dualperf's result.
    #[arg(long)]
    pub get_server_output: bool,
    /// Refused: iperf3's client source address (`-B`). See docs/iperf3-flags.md.
    #[arg(hide = true, short = 'B', long = "bind", value_name = "ADDR")]
    pub bind: Vec<String>,
    /// Refused: iperf3's socket buffer size (`-w`). See docs/iperf3-flags.md.
    #[arg(hide = true, short = 'w', long = "window", value_name = "SIZE")]
    pub window: Option<String>,
    /// Refused: iperf3's TCP maximum segment size (`-M`). See docs/iperf3-flags.md.
    #[arg(hide = true, short = 'M', long = "set-mss", value_name = "BYTES")]
    pub set_mss: Option<String>,
    /// Refused: iperf3's TCP_NODELAY (`-N`). See docs/iperf3-flags.md.
    #[arg(hide = true, short = 'N', long = "no-delay")]
    pub no_delay: bool,
    /// Send budget in bytes, as iperf3's -n: each tcp-stream and
    /// udp-stream trial ends once the client has sent this many payload
    /// bytes after its warm-up (rounded up to whole writes/datagrams), or at
    /// the time cap (-t, default 30 s here), whichever comes first; the
    /// result records the budget and what was sent and received. K/M/G =
    /// 1024 (`-n 100M`). Other tests stay timed (1 s, or -t).
    #[arg(short = 'n', long = "bytes", value_name = "SIZE", value_parser = parse_budget_size, conflicts_with_all = ["blockcount", "plan"])]
    pub bytes: Option<u64>,
    /// Send budget in blocks, as iperf3's -k: datagrams for udp-stream,
    /// writes of the size (-l) for tcp-stream; K/M/G = 1024, so the Gigabit
    /// UDP study's 1 M packets are `-k 1000000`. Time cap and other tests as -n.
    #[arg(short = 'k', long = "blockcount", value_name = "N", value_parser = parse_budget_size, conflicts_with = "plan")]
    pub blockcount: Option<u64>,
    /// Refused: both directions at once (`--bidir`). See docs/iperf3-flags.md.
    #[arg(hide = true, long)]
    pub bidir: bool,
    /// Refused: iperf3's title prefix (`-T`). See docs/iperf3-flags.md.
    #[arg(hide = true, short = 'T', long = "title", value_name = "STR")]
    pub title: Option<String>,
    /// One JSON object per line on standard output, as iperf3's
    /// --json-stream: each finished sample interval, each finished trial,
    /// then the whole result (`{"event":"end","data":…}`).
    #[arg(long, conflicts_with_all = ["json_stdout", "json"])]
    pub json_stream: bool,
}

/// `-S`: iperf3's TOS byte (strtol base 0: decimal, 0x hex, 0 octal) or a
/// DSCP name; the DSCP is the byte's upper six bits (RFC 2474 §3), the lower
/// two are ECN (RFC 3168) and must be 0.
pub(crate) fn parse_tos(text: &str) -> Result<Dscp, String> {
    let trimmed = text.trim();
    let lower = trimmed.to_ascii_lowercase();
    let number = if let Some(hex) = lower.strip_prefix("0x") {
        u8::from_str_radix(hex, 16).ok()
    } else if lower.len() > 1 && lower.starts_with('0') {
        u8::from_str_radix(&lower[1..], 8).ok()
    } else if lower.bytes().all(|b| b.is_ascii_digit()) && !lower.is_empty() {
        lower.parse::<u8>().ok()
    } else {
        // A name: ef, af41, cs1, le, be.
        return trimmed.parse::<Dscp>().map_err(|e| {
            format!("`{text}` is neither a TOS byte (0..255, 0xb8) nor a DSCP name: {e}")
        });
    };
    let tos = number.ok_or_else(|| format!("`{text}` is not a TOS byte (0..255, 0xb8, 0270)"))?;
    if tos & 0b11 != 0 {
        return Err(format!(
            "TOS {tos:#04x} sets the ECN bits ({:02b}); dualperf sets the DSCP only: use {:#04x} (DSCP {})",
            tos & 0b11,
            tos & !0b11,
            tos >> 2
        ));
    }
    Dscp::new(tos >> 2).map_err(|e| format!("TOS {tos:#04x}: {e}"))
}

/// `-n`/`-k`: a count with iperf3's K/M/G (1024) through the one size
/// parser ([`dualperf_model::units::parse_size`]).
fn parse_budget_size(text: &str) -> Result<u64, String> {
    dualperf_model::units::parse_size(text).map_err(|e| e.to_string())
}

/// The send budget of `-n`/`-k`, if either was given.
pub(crate) fn send_budget(flags: &Iperf3Flags) -> Option<dualperf_model::SendBudget> {
    use dualperf_model::SendBudget;
    flags
        .bytes
        .map(SendBudget::Bytes)
        .or(flags.blockcount.map(SendBudget::Packets))
}

/// Why each flag dualperf lacks is refused, or `Ok` when none was given.
///
/// # Errors
/// A usage error (exit 2) naming the first refused flag and the reason.
pub(crate) fn refuse_missing(flags: &Iperf3Flags) -> anyhow::Result<()> {
    let refused: [(bool, &str, &str); 6] = [
        (!flags.bind.is_empty(), "-B/--bind", "the client's source address is chosen by the kernel's routing (RFC 6724 for IPv6); bind a source per family is not implemented"),
        (flags.window.is_some(), "-w/--window", "socket buffers are sized by the engine per test (and recorded in the result); a fixed size per run is not implemented"),
        (flags.set_mss.is_some(), "-M/--set-mss", "TCP_MAXSEG is not implemented; the segment size follows the path MTU, which `dualperf path` measures"),
        (flags.no_delay, "-N/--no-delay", "tcp-rr and tcp-connect already set TCP_NODELAY; tcp-stream keeps Nagle as a bulk transfer would, and no flag changes it yet"),
        (flags.bidir, "--bidir", "a trial runs one direction; use -R for the other, or --load tcp,reverse to measure one direction while the other is loaded"),
        (flags.title.is_some(), "-T/--title", "runs are named by their run id; a title prefix is not implemented"),
    ];
    match refused.iter().find(|(given, _, _)| *given) {
        Some((_, flag, why)) => Err(Failure::usage(format!("{flag} is not supported: {why}"))),
        None => Ok(()),
    }
}

/// `-C`: the congestion control of every TCP point of `config`.
pub(crate) fn apply_congestion(config: &mut RunConfig, congestion: Option<&str>) {
    let Some(name) = congestion else {
        return;
    };
    let tcp = [TestKind::TcpStream, TestKind::TcpRr, TestKind::TcpConnect];
    for point in config.points.iter_mut().filter(|p| tcp.contains(&p.kind)) {
        point.congestion_control = Some(name.to_string());
    }
}

/// `--logfile FILE`: standard output and standard error appended to FILE
/// from here on (as iperf3 does), so every line the run prints lands there.
///
/// # Errors
/// A usage error when FILE cannot be opened for appending.
pub(crate) fn redirect_to_logfile(path: &std::path::Path) -> anyhow::Result<()> {
    use std::os::fd::AsRawFd;
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| Failure::usage(format!("--logfile {}: {e}", path.display())))?;
    for target in [libc::STDOUT_FILENO, libc::STDERR_FILENO] {
        // SAFETY: dup2 on two descriptors this process owns; `file` stays
        // open until after the call, the duplicate outlives it.
        if unsafe { libc::dup2(file.as_raw_fd(), target) } < 0 {
            return Err(Failure::usage(format!(
                "--logfile {}: {}",
                path.display(),
                std::io::Error::last_os_error()
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tos_takes_iperf3_bytes_and_dscp_names() {
        assert_eq!(parse_tos("0xb8"), Ok(Dscp::EF));
        assert_eq!(parse_tos("184"), Ok(Dscp::EF));
        assert_eq!(parse_tos("0270"), Ok(Dscp::EF));
        assert_eq!(parse_tos("ef"), Ok(Dscp::EF));
        assert_eq!(parse_tos("0"), Ok(Dscp::new(0).unwrap()));
        assert_eq!(parse_tos("0x20"), Ok(Dscp::new(8).unwrap()));
        let ecn = parse_tos("0xb9").unwrap_err();
        assert!(ecn.contains("ECN") && ecn.contains("0xb8"), "{ecn}");
        assert!(parse_tos("256").is_err());
        assert!(parse_tos("0xzz").is_err());
        assert!(parse_tos("fast").is_err());
    }

    #[test]
    fn every_missing_flag_is_refused_with_its_reason() {
        assert!(refuse_missing(&Iperf3Flags::default()).is_ok());
        let cases: Vec<(Iperf3Flags, &str)> = vec![
            (
                Iperf3Flags {
                    bidir: true,
                    ..Default::default()
                },
                "--bidir",
            ),
            (
                Iperf3Flags {
                    window: Some("1M".into()),
                    ..Default::default()
                },
                "-w/--window",
            ),
            (
                Iperf3Flags {
                    title: Some("t".into()),
                    ..Default::default()
                },
                "-T/--title",
            ),
        ];
        for (flags, name) in cases {
            let error = refuse_missing(&flags).unwrap_err();
            let failure = error.downcast_ref::<Failure>().unwrap();
            assert_eq!(failure.code, crate::exit::USAGE);
            assert!(failure.message.starts_with(name), "{}", failure.message);
        }
    }
}
