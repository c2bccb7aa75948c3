//! The arguments of `dualperf run` (clap), the examples of its `--help`,
//! and the value parsers of its own flags (`--repeat`, `-i`, `--experiment`,
//! `--peer`).
//! Turning them into a plan is `plan.rs`'s job.

use std::path::PathBuf;

use dualperf_model::{BitRate, PeerKind, RepetitionOrder};

use super::{iperf3, load, media};

/// The standard battery.
pub(crate) const DEFAULT_TESTS: &str = "tcp-stream,udp-stream,tcp-rr,udp-rr,tcp-connect";

/// Examples shown at the end of `dualperf run --help`.
const RUN_EXAMPLES: &str = "Examples:
  dualperf run --loopback                      127.0.0.1 against ::1, server in-process
  dualperf -c hostb -t 2 -J                    iperf3's words: both families, JSON on stdout
  dualperf run --loopback --repeat 5 --csv out.csv
  dualperf run --loopback --repeat auto        until ±2.5 % at 99 % (3 to 10 repetitions)
  dualperf run hostb.example.net               both families against `dualperf serve` on hostb
  dualperf run --v4 192.0.2.7 --v6 2001:db8::7 --sizes papers --json result.json
  dualperf run hostb -6 --tests tcp-stream -P 4 --reverse -t 10
  dualperf run hostb --tests udp-stream -b 100M --sizes 64,1408
  dualperf run hostb --tests tcp-stream --probe    one-way delay under load
  dualperf run --loopback --test media --media g711 -t 10   RTP voice: delay, jitter, loss, MOS
  dualperf run hostb --media video:cif -R -t 20    H.261-like video from the server, 50 ms series
  dualperf run hostb --media opus:24k -i 20ms      Opus at 24 kbit/s, 20 ms samples
  dualperf run --loopback --tests tcp-rr,udp-rr --pin   both ends on CPU 0
  dualperf run --loopback --baseline v6         compare IPv4 against IPv6 instead
  dualperf run hostb -S ef -L 12345 -u -b 10M   EF-marked UDP, IPv6 flow label 12345
  dualperf run --plan results/X/result.json --v4 192.0.2.7 --v6 2001:db8::7   repeat a stored run
  dualperf run --peer iperf3 iperf.example.net     against a public iperf3 server: tcp-stream, udp-stream
  dualperf -c iperf.example.net --peer iperf3 -u -b 10M -R   UDP from the iperf3 server at 10 Mbit/s

  dualperf run --peer stamp --v4 192.0.2.7 --v6 2001:db8::7 -t 10   against a STAMP reflector
  dualperf run --loopback --peer stamp -S ef    STAMP against an in-process reflector

  dualperf -c 127.0.0.1 -u -b 85M               one family: its values, the other said missing
  dualperf -p 5201 -c hostb -S 0xb8 -l 1K -O 0.5   iperf3's flags anywhere (docs/iperf3-flags.md)
  dualperf -c hostb --json-stream               a JSON line per interval and trial, then the result
  dualperf -c hostb -w 256K -M 1400 -N -B 192.0.2.1 -B 2001:db8::1   socket options, source per family
  dualperf -c hostb --bidir -T lab1 --get-server-output   both directions at once, titled lines
  dualperf -c hostb -u -b 1G -l 1408 -k 1000000   1 M datagrams per trial (the Gigabit UDP study), capped at 30 s";

/// Arguments of `dualperf run`.
///
/// Size presets for --sizes: `papers` = 64,128,256,512,1024,1408,2048,4096,
/// 8192,16384,32768,65507 (64 KiB for TCP); `small` = 64,512,1408; `default`
/// = one size per test: tcp-stream 128 KiB writes, udp-stream 1024 B,
/// tcp-rr/udp-rr 64 B.
#[derive(clap::Args, Debug)]
#[command(verbatim_doc_comment, after_help = RUN_EXAMPLES)]
pub(crate) struct Args {
    /// Server host name or address; resolved to its A and AAAA addresses.
    pub host: Option<String>,
    /// The server, as iperf3 says it (`-c HOST` is the same as HOST).
    #[arg(
        short = 'c',
        long = "client",
        value_name = "HOST",
        conflicts_with = "host"
    )]
    pub client: Option<String>,
    /// Run the plan in FILE (a run configuration as JSON, or a result whose
    /// configuration is repeated) instead of building one from flags. The
    /// plan's arms keep their targets unless --loopback, --v4 or --v6 say otherwise.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["tests", "media", "sizes", "time", "warmup", "repeat", "parallel", "reverse", "bitrate", "interval_ms", "quick", "probe", "probe_interval", "only_v4", "only_v6", "order", "dscp", "flow_label", "load"])]
    pub plan: Option<PathBuf>,
    /// The arm every other arm is compared with [default: v4, else the first arm].
    #[arg(long, value_name = "ARM")]
    pub baseline: Option<String>,
    /// Start a server in this process and compare 127.0.0.1 with ::1.
    #[arg(long, conflicts_with = "host")]
    pub loopback: bool,
    /// IPv4 address of the server (instead of resolving HOST).
    #[arg(long, value_name = "ADDR")]
    pub v4: Option<std::net::Ipv4Addr>,
    /// IPv6 address of the server (instead of resolving HOST).
    #[arg(long, value_name = "ADDR")]
    pub v6: Option<std::net::Ipv6Addr>,
    /// Measure IPv4 only.
    #[arg(short = '4', long = "version4", conflicts_with = "only_v6")]
    pub only_v4: bool,
    /// Measure IPv6 only.
    #[arg(short = '6', long = "version6")]
    pub only_v6: bool,
    /// Server control port [default: 5180; 5201 with --peer iperf3].
    #[arg(short, long)]
    pub port: Option<u16>,
    /// Tests to run, comma-separated: tcp-stream,udp-stream,tcp-rr,udp-rr,tcp-connect,udp-probe,media.
    #[arg(
        long,
        alias = "test",
        value_name = "LIST",
        default_value = DEFAULT_TESTS
    )]
    pub tests: String,
    /// UDP, as iperf3 says it: the tests become udp-stream (unless --tests names others).
    #[arg(short = 'u', long = "udp")]
    pub udp: bool,
    /// Message sizes in bytes, comma-separated, or a preset: `papers` =
    /// 64,128,256,512,1024,1408,2048,4096,8192,16384,32768,65507 (the
    /// end-user applications study's sweep; 64 KiB for TCP), `small` = 64,512,1408, `default` = one
    /// size per test (tcp-stream 128 KiB writes, udp-stream 1024 B, rr 64 B).
    /// UDP sizes above a family's maximum datagram (65507 B IPv4, 65527 B
    /// IPv6) are rejected; sizes above the path MTU are sent fragmented.
    #[arg(
        short = 'l',
        long,
        alias = "length",
        value_name = "LIST|PRESET",
        default_value = "default"
    )]
    pub sizes: String,
    /// Measured seconds per trial (warm-up excluded) [default: 1]; with
    /// -n/-k the time cap of the budgeted trials [default: 30].
    #[arg(short = 't', long = "time", value_name = "SECS")]
    pub time: Option<f64>,
    /// Warm-up seconds per trial, excluded from the results.
    #[arg(long, value_name = "SECS", default_value_t = 0.25)]
    pub warmup: f64,
    /// Repetitions of every point per arm (3 or more for a significance claim) [default: 3].
    /// More repetitions give narrower confidence intervals. `auto` repeats
    /// each point until its headline metric is known within ±2.5 % at 99 %
    /// confidence on every arm, 3 to 10 times (netperf's -I 99,5 -i 10,3).
    #[arg(long, value_name = "R|auto", value_parser = parse_repeat, conflicts_with = "precision")]
    pub repeat: Option<Repeat>,
    /// Repeat until every headline comparison's 95 % CI half-width is at
    /// most P (e.g. `2%`) or the budget is spent: Stein's two-stage rule —
    /// 3 interleaved repetitions, then as many as their spread asks for
    /// (docs/metrics.md, "Stopping rule"). The output says per point
    /// whether the goal was reached.
    #[arg(long, value_name = "P", value_parser = crate::cli::goal::parse_precision)]
    pub precision: Option<f64>,
    /// Time budget of a `--precision` run, e.g. `5m`, `90s` [default: 5m].
    #[arg(long, value_name = "TIME", value_parser = crate::cli::goal::parse_budget_ms, requires = "precision")]
    pub budget: Option<u64>,
    /// Order of repetitions: interleaved across arms (v4, v6, v4 …) or blocked.
    #[arg(long, value_enum, default_value = "interleaved")]
    pub order: OrderArg,
    /// Parallel streams (tcp-stream, udp-stream).
    #[arg(short = 'P', long, value_name = "N", default_value_t = 1)]
    pub parallel: u32,
    /// The server sends, the client receives.
    #[arg(short = 'R', long)]
    pub reverse: bool,
    /// The media profile of `--test media` (implies it when --tests is not
    /// given): g711, g729, opus:24k (voice, 20 ms packets; `g711:30ms`),
    /// video:cif (H.261 CIF, about 16 KB/s, as the OpenH323 experiments) or
    /// video:fps=25,frame=16000,iperiod=12,iratio=5,mtu=1200. Sent as
    /// RTP (RFC 3550) over UDP; -i defaults to 50 ms for media.
    #[arg(long, value_name = "NAME", value_parser = media::parse_media)]
    pub media: Option<dualperf_model::MediaProfile>,
    /// Target UDP payload rate per stream (e.g. 100M); unlimited if unset
    /// (unlike iperf3's 1 Mbit/s default: mind shared paths).
    #[arg(short = 'b', long, value_name = "RATE")]
    pub bitrate: Option<BitRate>,
    /// Length of one time-series sample, as iperf3: seconds (`1`, `0.05`)
    /// or with a unit (`50ms`); at least 10 ms, at most 60 s
    /// [default: a tenth of the trial, 10 ms to 1 s].
    #[arg(short = 'i', long = "interval", value_name = "TIME", value_parser = parse_interval_ms)]
    pub interval_ms: Option<u64>,
    /// Write the full result (schema dualperf.run v2) to this file; `-` for standard output.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write the full result as JSON to standard output (= `--json -`), like iperf3 -J.
    #[arg(short = 'J', conflicts_with = "json")]
    pub json_stdout: bool,
    /// Indent the JSON result.
    #[arg(long)]
    pub pretty: bool,
    /// Keep every raw series in the JSON and the database: each transaction's
    /// time and each datagram's arrival (several MB per run; by default
    /// histograms, counters, time series and probe arrivals are kept).
    #[arg(long)]
    pub raw: bool,
    /// Write the comparison as tidy CSV (one row per point × arm × metric).
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Write the run as OpenMetrics text, atomically, for node_exporter's
    /// textfile collector (e.g. /var/lib/node_exporter/dualperf.prom).
    #[arg(long, value_name = "FILE")]
    pub openmetrics: Option<PathBuf>,
    /// Results database the run is appended to
    /// [default: $XDG_DATA_HOME/dualperf/results.sqlite].
    #[arg(long, value_name = "PATH", env = "DUALPERF_DB")]
    pub db: Option<PathBuf>,
    /// Also print the per-metric comparison table after the verdicts.
    #[arg(short = 'v', long, alias = "raw-table")]
    pub verbose: bool,
    /// Measuring child of `dualperf lab`: write the raw, unanalysed result to
    /// FILE and nothing else (the lab analyses, stores and reports once).
    #[arg(
        long = "measure-only",
        value_name = "FILE",
        hide = true,
        requires = "plan"
    )]
    pub measure_only: Option<PathBuf>,
    /// Measuring child of `dualperf lab`: process ids of the testbed's own
    /// user-space forwarders (TAYGA), whose CPU is the path's, not foreign load.
    #[arg(
        long = "path-pids",
        value_name = "PIDS",
        hide = true,
        value_delimiter = ','
    )]
    pub path_pids: Vec<i32>,
    /// Measuring child of `dualperf lab`: routers whose receive processing
    /// the lab steered to CPUs of their own, `NODE:CPU[+CPU…]`; each trial
    /// records their softirq CPU.
    #[arg(
        long = "router-cpus",
        value_name = "NODE:CPU",
        hide = true,
        value_delimiter = ','
    )]
    pub router_cpus: Vec<String>,
    /// Declare the two hosts' clocks synchronised (PTP, NTP…): one-way delay
    /// is then reported between hosts too, with an error bound of half the
    /// minimum RTT. Without it, one-way delay is reported only when both ends
    /// share one kernel clock (loopback, a namespace lab).
    #[arg(long)]
    pub clocks_synchronised: bool,
    /// Do not append the run to the results database (wins over --db).
    #[arg(long)]
    pub no_store: bool,
    /// Do not print a line per finished sample interval while a trial runs
    /// (printed, like iperf3's, only when standard output is a terminal and
    /// the JSON does not go there).
    #[arg(long)]
    pub no_intervals: bool,
    /// A quick look: 0.5 s per trial, three repetitions (about 25 s in all).
    #[arg(long)]
    pub quick: bool,
    /// File holding the shared secret of a server started with a key
    /// (also: DUALPERF_AUTH_KEY).
    #[arg(long, value_name = "FILE", conflicts_with = "auth_key")]
    pub auth_key_file: Option<PathBuf>,
    /// The shared secret on the command line (visible in `ps`: prefer
    /// --auth-key-file or DUALPERF_AUTH_KEY); never recorded.
    #[arg(long, value_name = "KEY")]
    pub auth_key: Option<String>,
    /// Pin the client's measuring threads to these CPUs (e.g. 0 or 0,2-3).
    #[arg(long, value_name = "LIST")]
    pub client_cpus: Option<String>,
    /// Ask the server to pin its measuring threads to these CPUs.
    #[arg(long, value_name = "LIST")]
    pub server_cpus: Option<String>,
    /// Shorthand for --client-cpus 0 --server-cpus 0 (request/response on one CPU).
    #[arg(long)]
    pub pin: bool,
    /// udp-probe: one probe every MS milliseconds (isochronous, RFC 3432;
    /// default 10 ms, a G.711 cadence; 1 to 1000). The probe payload is
    /// the udp-probe size (--sizes; default 172 B).
    #[arg(long, value_name = "MS", default_value_t = 10.0)]
    pub probe_interval: f64,
    /// Run a trial again, up to N times, when the scheduler delayed the
    /// tool enough to matter for its metric (contended: its own threads
    /// waited for a CPU; see docs/metrics.md, "Contention"); the
    /// last attempt is kept and says how often it was repeated. Contended
    /// trials that remain are never the basis of a significance claim.
    #[arg(long, value_name = "N", default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=5))]
    pub rerun_contended: u32,
    /// Capture the trials' packets (tcpdump, on this host's interface
    /// towards the server) and check them against what the engine reported:
    /// udp-stream datagram counts within 0.1 %, family, DSCP and flow label
    /// as asked. A disagreement is a finding in the result and withholds
    /// significance. Exit code 3 without tcpdump (see docs/metrics.md).
    #[arg(long)]
    pub verify_wire: bool,
    /// Latency under load: run a udp-probe stream (--probe-interval, 172 B)
    /// alongside every tcp-stream and udp-stream trial, in the same
    /// direction, and report its one-way delay, jitter and loss.
    #[arg(long)]
    pub probe: bool,
    /// Mark the data packets of both ends with this DiffServ codepoint:
    /// 0..63 or an RFC 4594 name (ef, af11..af43, cs0..cs7, le, be); set with
    /// IP_TOS / IPV6_TCLASS on every data socket. Arms are named for it (v6-ef).
    /// (`-S` is iperf3's TOS byte: see --tos.)
    #[arg(long = "dscp", value_name = "DSCP")]
    pub dscp: Option<dualperf_model::Dscp>,
    /// IPv6 flow label (RFC 6437) of both ends' data packets, TCP and UDP
    /// alike: 0..1048575 or 0x hex. IPv4 arms are unaffected.
    #[arg(
        short = 'L',
        long = "flow-label",
        alias = "flowlabel",
        value_name = "N"
    )]
    pub flow_label: Option<dualperf_model::FlowLabel>,
    /// A competing load flow, repeatable: `udp` or `tcp` with `,key=value`
    /// options (rate, size, streams, dscp, family, cc, reverse). Every arm
    /// gets a twin measured under the load (v6 → v6-loaded); the load starts
    /// 1 s before each of its trials and halts when the trial's own flows end.
    /// Example: --load udp,rate=50M,dscp=be --load tcp,streams=2,dscp=cs1
    #[arg(long = "load", value_name = "FLOW", value_parser = load::parse_load_flow)]
    pub load: Vec<dualperf_model::LoadFlow>,
    /// Run a designed experiment instead of the standard tests: `rrul`
    /// (latency under load: probes and request/response beside bulk TCP up
    /// and down, idle against loaded, IPv6 against IPv4). Its points, arms,
    /// loads and contrasts come from the design (dualperf-design); --quick
    /// gives its short timing, --repeat its repetitions; -t, --tests and
    /// --sizes do not apply. Example: dualperf run --experiment rrul hostb
    #[arg(long, value_name = "NAME", value_parser = parse_design, conflicts_with_all = ["plan", "load"])]
    pub experiment: Option<dualperf_design::Design>,
    /// The far end: `dualperf` (`dualperf serve`, every test), `iperf3`
    /// (an iperf3 3.x server, port 5201: tcp-stream and udp-stream, UDP at
    /// 1 Mbit/s unless -b says otherwise) or `stamp` (a STAMP Session-Reflector,
    /// RFC 8762: udp-probe points to UDP port 862; --auth-key-file makes the
    /// session authenticated).
    /// Example: dualperf run --peer iperf3 --v4 192.0.2.7 --v6 2001:db8::7 -b 20M
    #[arg(long, value_name = "KIND", default_value = "dualperf", value_parser = parse_peer)]
    pub peer: PeerKind,
    /// iperf3's client flags (`-S`, `-O`, `-C`, `--logfile` …; iperf3.rs).
    #[command(flatten)]
    pub iperf3: iperf3::Iperf3Flags,
}

/// `--repeat`: a count, or `auto` (until precise; see `--help`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Repeat {
    /// This many repetitions per arm.
    Count(u32),
    /// netperf's -I 99,5 -i 10,3 ([`dualperf_stats::repetition::NETPERF`]).
    Auto,
}

/// `--repeat N` or `--repeat auto`.
pub(crate) fn parse_repeat(text: &str) -> Result<Repeat, String> {
    match text.trim() {
        "auto" => Ok(Repeat::Auto),
        number => number
            .parse()
            .map(Repeat::Count)
            .map_err(|_| format!("`{text}` is not a number of repetitions or `auto`")),
    }
}

/// `--order` values.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum OrderArg {
    /// v4, v6, v4, v6 …
    Interleaved,
    /// v4, v4, …, v6, v6 …
    Blocked,
}

impl From<OrderArg> for RepetitionOrder {
    fn from(order: OrderArg) -> Self {
        match order {
            OrderArg::Interleaved => RepetitionOrder::Interleaved,
            OrderArg::Blocked => RepetitionOrder::Blocked,
        }
    }
}

/// The server the user named, positionally or with `-c`.
pub(super) fn server_name(args: &Args) -> Option<&str> {
    args.host.as_deref().or(args.client.as_deref())
}

/// `-i` as iperf3 takes it: seconds, or a duration with a unit (`50ms`,
/// `2s`; the one duration parser, [`dualperf_model::units::parse_duration`]);
/// 10 ms to 60 s.
pub(crate) fn parse_interval_ms(text: &str) -> Result<u64, String> {
    let text = text.trim();
    let bare = !dualperf_model::units::duration_has_unit(text);
    let hint = |value: f64| {
        if bare && value >= 10.0 {
            format!(" (seconds, as in iperf3; did you mean {value}ms?)")
        } else {
            String::new()
        }
    };
    let interval =
        match dualperf_model::units::parse_duration(text, std::time::Duration::from_secs(60)) {
            Ok(interval) => interval,
            Err(dualperf_model::ParseUnitError::TooLarge { .. }) => {
                let value = text.parse::<f64>().unwrap_or(0.0);
                return Err(format!("{text} is outside 10 ms to 60 s{}", hint(value)));
            }
            Err(e) => return Err(format!("-i: {e}")),
        };
    if interval < std::time::Duration::from_millis(10) {
        return Err(format!("{text} is outside 10 ms to 60 s"));
    }
    Ok((interval.as_secs_f64() * 1e3).round() as u64)
}

/// `--experiment NAME`: a design of dualperf-design, or a usage error listing them.
fn parse_design(name: &str) -> Result<dualperf_design::Design, String> {
    dualperf_design::Design::from_name(name).ok_or_else(|| {
        let known: Vec<String> = dualperf_design::Design::ALL
            .iter()
            .map(|d| format!("{} ({})", d.name(), d.summary()))
            .collect();
        format!("no experiment `{name}`; known: {}", known.join("; "))
    })
}

/// `--peer` values: dualperf, iperf3, stamp.
pub(crate) fn parse_peer(text: &str) -> Result<PeerKind, String> {
    [PeerKind::Dualperf, PeerKind::Iperf3, PeerKind::Stamp]
        .into_iter()
        .find(|peer| peer.name() == text.trim())
        .ok_or_else(|| format!("unknown peer `{text}`; known peers: dualperf, iperf3, stamp"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peers_parse_by_their_one_name() {
        assert_eq!(parse_peer("iperf3"), Ok(PeerKind::Iperf3));
        assert_eq!(parse_peer("stamp"), Ok(PeerKind::Stamp));
        assert!(parse_peer("netperf").unwrap_err().contains("known peers"));
    }

    #[test]
    fn repeat_takes_a_count_or_auto() {
        assert_eq!(parse_repeat("5"), Ok(Repeat::Count(5)));
        assert_eq!(parse_repeat("auto"), Ok(Repeat::Auto));
        assert!(parse_repeat("many").unwrap_err().contains("auto"));
    }

    #[test]
    fn intervals_read_as_iperf3_seconds_or_with_a_unit() {
        assert_eq!(parse_interval_ms("1"), Ok(1000));
        assert_eq!(parse_interval_ms("0.05"), Ok(50));
        assert_eq!(parse_interval_ms("50ms"), Ok(50));
        assert_eq!(parse_interval_ms("2s"), Ok(2000));
        assert_eq!(parse_interval_ms("50"), Ok(50_000));
        let error = parse_interval_ms("100").unwrap_err();
        assert!(error.contains("did you mean 100ms"), "{error}");
        assert!(parse_interval_ms("5ms").is_err());
        assert!(parse_interval_ms("soon").is_err());
    }
}
