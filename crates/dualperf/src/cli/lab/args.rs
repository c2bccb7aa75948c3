//! The options of `dualperf lab [PRESET|FILE]`: the main job's flags, read
//! by the job itself and by the experiments that plan its measurement.

use std::path::PathBuf;

use dualperf_lab::preset;

/// Options of the main job.
#[derive(clap::Args, Debug)]
pub(crate) struct JobArgs {
    /// Built-in topology (see `dualperf lab list`) or path to a topology TOML file.
    #[arg(default_value = preset::DEFAULT_PRESET)]
    pub topology: String,
    /// A first look in under a minute: fewer tests, sizes and repetitions.
    #[arg(long)]
    pub quick: bool,
    /// Run a udp-probe stream beside every tcp-stream and udp-stream trial
    /// (latency under load: one-way delay, PDV, loss).
    #[arg(long)]
    pub probe: bool,
    /// Repetitions of each point per arm, exactly (3 or more for a
    /// significance claim); without it the battery repeats to a precision
    /// goal (`--precision`); `auto`: until the headline metric is known
    /// within ±2.5 % at 99 % on every arm, 3 to 10 times (as `run --repeat auto`).
    #[arg(long, value_name = "R|auto", value_parser = crate::cli::run::parse_repeat, conflicts_with = "precision")]
    pub repeat: Option<crate::cli::run::Repeat>,
    /// The battery's precision goal: repeat until every headline
    /// comparison's 95 % CI half-width is at most P or the budget is spent
    /// (Stein's two-stage rule, as `run --precision`) [default: 3% for the
    /// battery, off with --quick and for experiments].
    #[arg(long, value_name = "P", value_parser = crate::cli::goal::parse_precision)]
    pub precision: Option<f64>,
    /// Time budget of the precision goal, e.g. `5m` [default: 5m].
    #[arg(long, value_name = "TIME", value_parser = crate::cli::goal::parse_budget_ms)]
    pub budget: Option<u64>,
    /// Run a contended trial again, up to N times (as `run --rerun-contended`).
    #[arg(long, value_name = "N", default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=5))]
    pub rerun_contended: u32,
    /// Tests to run, comma-separated [default: tcp-stream,udp-stream,tcp-rr,udp-rr,tcp-connect].
    #[arg(long, value_name = "LIST")]
    pub tests: Option<String>,
    /// Message sizes in bytes, comma-separated, or a preset
    /// [default: 64,256,1024,1408,4096,16384; one size per test with --quick].
    #[arg(long, value_name = "LIST")]
    pub sizes: Option<String>,
    /// Measured seconds per trial [default: 1; 0.5 with --quick].
    #[arg(short = 't', long = "time", value_name = "SECS")]
    pub time_seconds: Option<f64>,
    /// Length of one time-series sample: seconds (`0.05`) or with a unit
    /// (`50ms`), as `run -i` [default: a tenth of the trial, 10 ms to 1 s].
    #[arg(short = 'i', long = "interval", value_name = "TIME", value_parser = crate::cli::run::parse_interval_ms)]
    pub interval_ms: Option<u64>,
    /// The arm every other arm is compared with [default: v4].
    #[arg(long, value_name = "ARM")]
    pub baseline: Option<String>,
    /// Also print the per-metric comparison table after the verdicts.
    #[arg(long = "table")]
    pub table: bool,
    /// CPUs to pin the client to, e.g. `0`.
    #[arg(long, value_name = "LIST", requires = "server_cpus")]
    pub client_cpus: Option<String>,
    /// CPUs to pin the server to, e.g. `1`.
    #[arg(long, value_name = "LIST", requires = "client_cpus")]
    pub server_cpus: Option<String>,
    /// TCP/UDP port the server listens on inside the testbed.
    #[arg(short = 'p', long, default_value_t = 5211)]
    pub port: u16,
    /// Folder that receives `<stamp>-<run>/result.json` and `report.html`.
    #[arg(long, value_name = "DIR", default_value = "results")]
    pub results: PathBuf,
    /// Results database the run is appended to
    /// [default: $XDG_DATA_HOME/dualperf/results.sqlite].
    #[arg(long, value_name = "PATH", env = "DUALPERF_DB")]
    pub db: Option<PathBuf>,
    /// Do not append the run to the results database (wins over --db).
    #[arg(long)]
    pub no_store: bool,
    /// Keep every raw series (each transaction's time, each datagram's
    /// arrival) in result.json and the database; several MB per run.
    #[arg(long)]
    pub raw: bool,
    /// The dualperf executable that provides `serve` and `run` (default: this one).
    #[arg(long, value_name = "PATH")]
    pub engine: Option<PathBuf>,
    /// Print the commands that would build the testbed and run the measurement; change nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Echo every kernel command before it runs.
    #[arg(short, long)]
    pub verbose: bool,
    /// Capture the server node's interface (tcpdump; the pcap is removed
    /// once checked) and check every trial against it: udp-stream
    /// datagram counts within 0.1 %, family, DSCP and flow label as asked.
    /// Exit code 3 without tcpdump.
    #[arg(long)]
    pub verify_wire: bool,
    /// The far end in the server node: `dualperf` (dualperf serve) or
    /// `stamp` (dualperf serve --stamp answering STAMP test packets on the
    /// lab's port: udp-probe points, RFC 8762).
    #[arg(long, value_name = "PEER", default_value = "dualperf", value_parser = crate::cli::run::parse_peer)]
    pub peer: dualperf_model::PeerKind,
    /// Rate of every link, both ways, shaped with htb, for a topology that
    /// sets no rate of its own: a number with K/M/G (`1G`, `250M`), or
    /// `none` for unshaped veth, where the CPUs and not the path set the
    /// rate (compare CPU cost there: `lab stack-cost`) [default: 100M]; udp-stream is paced at
    /// the link rate on shaped links.
    #[arg(long, value_name = "RATE|none", value_parser = parse_link_rate)]
    pub link_rate: Option<dualperf_lab::link_rate::LinkRateChoice>,
    /// Target UDP payload rate of every udp-stream point, as `run -b`
    /// (`500M`, `1G`) [default: the link rate on shaped links: --link-rate,
    /// or the slowest link of a preset with its own rates (10 Mbit/s on
    /// bottleneck); unlimited on unshaped links]. `-b 0`: unpaced, as
    /// iperf3's. Experiments whose rates are their design (diffserv,
    /// realtime, rrul, calibrate) refuse it.
    #[arg(short = 'b', long = "bitrate", value_name = "RATE")]
    pub bitrate: Option<dualperf_model::BitRate>,
    /// Send budget in bytes of every tcp-stream and udp-stream trial, as
    /// `run -n`: the trial ends once sent (-t is then the time cap,
    /// default 30 s). K/M/G = 1024.
    #[arg(short = 'n', long = "bytes", value_name = "SIZE", value_parser = parse_budget_size, conflicts_with = "blockcount")]
    pub bytes: Option<u64>,
    /// Send budget in datagrams (udp-stream) or writes (tcp-stream) of
    /// every stream trial, as `run -k`; `lab gigabit` sends 100000 per
    /// trial unless told (`-k 1000000`: the paper's 1 M packets).
    #[arg(short = 'k', long = "blockcount", value_name = "N", value_parser = parse_budget_size)]
    pub blockcount: Option<u64>,
}

impl JobArgs {
    /// The udp-stream rate: `-b` (`-b 0`: unpaced, `None`), else `default`.
    pub(crate) fn udp_rate(
        &self,
        default: Option<dualperf_model::BitRate>,
    ) -> Option<dualperf_model::BitRate> {
        match self.bitrate {
            Some(rate) if rate.bits_per_second() == 0 => None,
            Some(rate) => Some(rate),
            None => default,
        }
    }

    /// The send budget of `-n`/`-k`, if either was given.
    pub(crate) fn send_budget(&self) -> Option<dualperf_model::SendBudget> {
        use dualperf_model::SendBudget;
        self.bytes
            .map(SendBudget::Bytes)
            .or(self.blockcount.map(SendBudget::Packets))
    }
}

/// `-n`/`-k`: a count through the one size parser (K/M/G = 1024).
fn parse_budget_size(text: &str) -> Result<u64, String> {
    dualperf_model::units::parse_size(text).map_err(|e| e.to_string())
}

/// `--link-rate`: `none` or a rate in range.
fn parse_link_rate(text: &str) -> Result<dualperf_lab::link_rate::LinkRateChoice, String> {
    text.parse()
        .map_err(|e: dualperf_lab::LabError| e.to_string())
}

/// `dualperf lab ARGS…` parsed as clap would (for tests).
#[cfg(test)]
pub(super) fn parse_job_args(args: &[&str]) -> JobArgs {
    #[derive(clap::Parser)]
    struct Cli {
        #[command(flatten)]
        args: JobArgs,
    }
    let all = std::iter::once("lab").chain(args.iter().copied());
    <Cli as clap::Parser>::try_parse_from(all).unwrap().args
}
