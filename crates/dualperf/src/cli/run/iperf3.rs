//! iperf3's client flags on `dualperf run` (docs/iperf3-flags.md maps every
//! one): those whose meaning dualperf has are wired to it (`-S` TOS byte,
//! `-O` omit = warm-up, `-C` congestion control, `-w`/`-M`/`-N`/`-B` in
//! tuning.rs, `-T` in title.rs, `--logfile`, `--get-server-output` (the
//! server's line per trial), `-n`/`-k` send budgets, `--json-stream` in
//! json_stream.rs). Every client flag of iperf3 3.x has its meaning here;
//! a flag whose meaning dualperf lacked would be refused with the reason
//! (exit 2), never accepted and ignored (serve's `-D` is: serve.rs).

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
    /// How long to wait for the server's control answers before a trial
    /// fails, as iperf3's --rcv-timeout: a bare number is milliseconds as
    /// in iperf3 (`--rcv-timeout 5000`), or a duration with its unit
    /// (`5s`); 100 ms to 10 min; default 15 s. A server that accepts and
    /// says nothing stops the run after three such waits.
    #[arg(long, value_name = "MS", value_parser = parse_rcv_timeout)]
    pub rcv_timeout: Option<std::time::Duration>,
    /// Print the server's own line for every trial after the run (what it
    /// received and sent, as its log says), as iperf3's
    /// --get-server-output; the server's meters and CPU are in the result
    /// (--json) either way.
    #[arg(long)]
    pub get_server_output: bool,
    /// Source address of the client's sockets, one per family, as
    /// iperf3's `-B` (repeat it for the other family: `-B 192.0.2.1 -B
    /// 2001:db8::1`); bound before connecting, control and data sockets
    /// alike. A family without one keeps the kernel's choice.
    #[arg(short = 'B', long = "bind", value_name = "ADDR")]
    pub bind: Vec<std::net::IpAddr>,
    /// Socket buffer size of both ends' data sockets (SO_SNDBUF and
    /// SO_RCVBUF), as iperf3's `-w`: bytes, K/M/G = 1024 (`-w 256K`; at most 256M). The
    /// sizes the kernel granted are printed (Linux doubles them).
    #[arg(short = 'w', long = "window", value_name = "SIZE", value_parser = parse_size_flag)]
    pub window: Option<u64>,
    /// TCP maximum segment size of the data connections (TCP_MAXSEG, 88 to
    /// 32767), as iperf3's `-M`; the MSS actually used (TCP_INFO) is printed.
    #[arg(short = 'M', long = "set-mss", value_name = "BYTES")]
    pub set_mss: Option<u32>,
    /// TCP_NODELAY (Nagle's algorithm off) on both ends' TCP data sockets,
    /// as iperf3's `-N` (tcp-rr and tcp-connect always set it).
    #[arg(short = 'N', long = "no-delay")]
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
    /// With -R (udp-stream only) the server sends the budget, as iperf3's does.
    #[arg(short = 'k', long = "blockcount", value_name = "N", value_parser = parse_budget_size, conflicts_with = "plan")]
    pub blockcount: Option<u64>,
    /// Both directions at once in one trial, as iperf3's --bidir: the
    /// tcp-stream test (or udp-stream with -u) runs client to server while
    /// its mirror image runs server to client; each direction is measured
    /// by its own meters and printed with its goodput (UDP: also jitter and
    /// loss, one line per direction); -b is each direction's rate.
    #[arg(long, conflicts_with_all = ["reverse", "load", "plan"])]
    pub bidir: bool,
    /// Prefix every line this run prints (standard output and error) with
    /// `STR:  `, as iperf3's `-T`.
    #[arg(short = 'T', long = "title", value_name = "STR")]
    pub title: Option<String>,
    /// One JSON object per line on standard output, as iperf3's
    /// --json-stream: each finished sample interval, each finished trial,
    /// then the whole result (`{"event":"end","data":…}`).
    #[arg(long, conflicts_with_all = ["json_stdout", "json"])]
    pub json_stream: bool,
}

/// `-w`: a size as iperf3 takes it (the one size parser, K = 1024).
fn parse_size_flag(text: &str) -> Result<u64, String> {
    dualperf_model::units::parse_size(text).map_err(|e| e.to_string())
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

/// `--get-server-output`: "Server output:" and the server's line of every
/// completed trial, named by arm, point and repetition.
pub(crate) fn server_output_lines(result: &dualperf_model::RunResult) -> Vec<String> {
    let mut lines = vec!["Server output:".to_string()];
    for trial in &result.trials {
        let dualperf_model::TrialOutcome::Ok(observations) = &trial.outcome else {
            continue;
        };
        lines.push(format!(
            "[{} {} #{}] {}",
            trial.arm,
            trial.spec.label(),
            trial.repetition + 1,
            observations.server_output.as_deref().unwrap_or(
                "(none: the far end sent no line; an older dualperf serve or another peer)"
            )
        ));
    }
    lines
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

/// `--rcv-timeout`: milliseconds when bare (iperf3's unit), else the one
/// duration parser's forms; 100 ms to 10 min.
fn parse_rcv_timeout(text: &str) -> Result<std::time::Duration, String> {
    let bare_ms = text
        .trim()
        .parse::<u64>()
        .ok()
        .map(std::time::Duration::from_millis);
    let wait = match bare_ms {
        Some(wait) => wait,
        None => dualperf_model::units::parse_duration(text, std::time::Duration::from_secs(600))
            .map_err(|e| e.to_string())?,
    };
    if !(std::time::Duration::from_millis(100)..=std::time::Duration::from_secs(600))
        .contains(&wait)
    {
        return Err(format!("{text}: the wait must be 100 ms to 10 min"));
    }
    Ok(wait)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rcv_timeout_is_milliseconds_when_bare_as_in_iperf3() {
        use std::time::Duration;
        assert_eq!(parse_rcv_timeout("5000"), Ok(Duration::from_secs(5)));
        assert_eq!(parse_rcv_timeout("2s"), Ok(Duration::from_secs(2)));
        assert_eq!(parse_rcv_timeout("750ms"), Ok(Duration::from_millis(750)));
        assert!(parse_rcv_timeout("50").is_err());
        assert!(parse_rcv_timeout("1h").is_err());
        assert!(parse_rcv_timeout("soon").is_err());
    }

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
}
