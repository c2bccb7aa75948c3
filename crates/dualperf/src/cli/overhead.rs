//! `dualperf overhead`: the header-overhead theory as a table.
//!
//! A thin front end over `dualperf_stats::overhead`: it parses the options,
//! asks the model for every path, and prints a table (Table 1 layout for up
//! to four paths, one row per path beyond), JSON or CSV.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context;
use dualperf_model::BitRate;
use dualperf_stats::overhead::table::table_one_rows;
use dualperf_stats::overhead::{
    message_cost, packet_overhead, Encapsulation, LinkType, MessageCost, OverheadSettings,
    PacketOverhead, PathKind, Transport, DEFAULT_MTU_BYTES, LINUX_TCP_OPTION_BYTES,
};
use serde::Serialize;

/// Arguments of `dualperf overhead`: header-overhead theory (payload per
/// packet, header bytes, overhead %, efficiency, expected goodput) for IPv4
/// and IPv6, TCP and UDP, plain or tunnelled. The `--help` text after the
/// options is [`EXAMPLES`].
#[derive(clap::Args, Debug)]
#[command(after_help = EXAMPLES)]
pub(crate) struct Args {
    /// IP MTU of the link in bytes.
    #[arg(long, default_value_t = DEFAULT_MTU_BYTES, value_name = "BYTES")]
    pub mtu: u32,

    /// Link layer: `ethernet` (14-byte header) or `raw` (no link header).
    #[arg(long, default_value = "ethernet", value_parser = parse_link)]
    pub link: LinkType,

    /// TCP option bytes on every segment (12 = Linux timestamps).
    #[arg(long, default_value_t = LINUX_TCP_OPTION_BYTES, value_name = "BYTES", conflicts_with = "textbook")]
    pub tcp_options: u32,

    /// Textbook settings: no TCP options. With the other defaults (Ethernet,
    /// MTU 1500, no --wire) this is Table 1 of the papers.
    #[arg(long)]
    pub textbook: bool,

    /// Count on-wire extras per Ethernet frame: preamble + SFD 8, FCS 4, inter-frame gap 12.
    #[arg(long)]
    pub wire: bool,

    /// Tunnels or translations to add, comma-separated: 6in4, 4in6, gre, vxlan, nat64.
    #[arg(long, value_delimiter = ',', value_name = "LIST")]
    pub encap: Vec<String>,

    /// Show every path: plain, 6in4, 4in6, GRE, VXLAN and both sides of NAT64.
    #[arg(long, conflicts_with = "encap")]
    pub all: bool,

    /// Link rate for the expected goodput, e.g. 100M, 1G, 10G.
    #[arg(long, value_name = "RATE")]
    pub rate: Option<BitRate>,

    /// Also show what one message of this many bytes costs: TCP segments or
    /// IP fragments of a UDP datagram, bytes on the link, efficiency.
    #[arg(long, value_name = "BYTES")]
    pub size: Option<u32>,

    /// Print JSON instead of a table.
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,

    /// Print CSV (one row per path) instead of a table.
    #[arg(long)]
    pub csv: bool,
}

/// Shown after the options in `dualperf overhead --help`.
const EXAMPLES: &str = "\
Overhead % is header bytes / payload bytes, as the papers define it
((14 + 20 + 20) / 1460 = 3.7 % for IPv4 TCP); efficiency is payload / frame.
The default TCP options are Linux's 12 bytes of timestamps.

Examples:
  dualperf overhead --textbook             Table 1 of the IPv4-vs-IPv6 papers
  dualperf overhead --rate 1G --wire       best goodput on gigabit Ethernet
  dualperf overhead --size 8192            fragments of an 8 KiB UDP datagram
  dualperf overhead --encap 6in4,vxlan     tunnel overheads
  dualperf overhead --all --csv            every path, as CSV";

fn parse_link(text: &str) -> Result<LinkType, String> {
    match text {
        "ethernet" | "eth" => Ok(LinkType::Ethernet),
        "raw" | "none" => Ok(LinkType::Raw),
        _ => Err(format!("unknown link type `{text}`; known: ethernet, raw")),
    }
}

/// One path's figures, as JSON and CSV carry them.
#[derive(Serialize)]
struct PathFigures {
    /// The path in words, e.g. "IPv6 TCP in 6in4".
    label: String,
    #[serde(flatten)]
    packet: PacketOverhead,
    /// Link rate × efficiency, bit/s (with --rate).
    expected_goodput_bps: Option<f64>,
    /// The cost of one message of --size bytes.
    message: Option<MessageCost>,
    /// Expected goodput with such messages, bit/s (with --rate and --size).
    message_expected_goodput_bps: Option<f64>,
}

/// The whole answer.
#[derive(Serialize)]
struct Report {
    settings: OverheadSettings,
    rate_bps: Option<u64>,
    size_bytes: Option<u32>,
    paths: Vec<PathFigures>,
}

/// Runs `dualperf overhead`.
pub(crate) fn run(args: Args) -> anyhow::Result<ExitCode> {
    let report = build(&args)?;
    let text = if args.json {
        let mut json = serde_json::to_string_pretty(&report).context("encoding JSON")?;
        json.push('\n');
        json
    } else if args.csv {
        csv_text(&report)?
    } else {
        table_text(&report)
    };
    std::io::stdout()
        .write_all(text.as_bytes())
        .context("writing to standard output")?;
    Ok(ExitCode::SUCCESS)
}

fn settings_of(args: &Args) -> OverheadSettings {
    OverheadSettings {
        link: args.link,
        mtu_bytes: args.mtu,
        tcp_option_bytes: if args.textbook { 0 } else { args.tcp_options },
        count_wire_extras: args.wire,
    }
}

fn paths_of(args: &Args) -> anyhow::Result<Vec<PathKind>> {
    if args.all {
        return Ok(PathKind::all());
    }
    let mut paths = PathKind::TABLE_1.to_vec();
    for name in &args.encap {
        let encapsulations: Vec<Encapsulation> = match name.trim() {
            "nat64" => vec![Encapsulation::Nat64Ipv6Side, Encapsulation::Nat64Ipv4Side],
            other => vec![other.parse().map_err(super::Failure::usage)?],
        };
        for encapsulation in encapsulations {
            for transport in [Transport::Tcp, Transport::Udp] {
                for &family in encapsulation.inner_families() {
                    paths.push(PathKind {
                        family,
                        transport,
                        encapsulation,
                    });
                }
            }
        }
    }
    paths.dedup();
    Ok(paths)
}

fn build(args: &Args) -> anyhow::Result<Report> {
    let settings = settings_of(args);
    let rate = args.rate.map(|r| r.bits_per_second() as f64);
    let mut paths = Vec::new();
    for path in paths_of(args)? {
        let packet = packet_overhead(path, &settings)
            .map_err(|error| super::Failure::usage(error.to_string()))?;
        let message = args
            .size
            .map(|size| message_cost(path, &settings, size))
            .transpose()
            .map_err(|error| super::Failure::usage(error.to_string()))?;
        paths.push(PathFigures {
            label: path.to_string(),
            expected_goodput_bps: rate.map(|r| packet.expected_goodput_bps(r)),
            message_expected_goodput_bps: rate
                .and_then(|r| message.as_ref().map(|m| m.expected_goodput_bps(r))),
            packet,
            message,
        });
    }
    Ok(Report {
        settings,
        rate_bps: args.rate.map(|r| r.bits_per_second()),
        size_bytes: args.size,
        paths,
    })
}

fn describe(settings: &OverheadSettings) -> String {
    let link = match settings.link {
        LinkType::Ethernet => "Ethernet",
        LinkType::Raw => "no link header",
    };
    let options = match settings.tcp_option_bytes {
        0 => "no TCP options".to_string(),
        LINUX_TCP_OPTION_BYTES => "12 B TCP options (Linux timestamps)".to_string(),
        n => format!("{n} B TCP options"),
    };
    let extras = if settings.count_wire_extras {
        "on-wire extras counted (preamble+SFD 8, FCS 4, gap 12)"
    } else {
        "on-wire extras not counted"
    };
    format!("{link}, MTU {} B, {options}, {extras}", settings.mtu_bytes)
}

fn percent(ratio: f64) -> String {
    format!("{:.2}%", ratio * 100.0)
}

fn rate_text(bps: f64) -> String {
    BitRate::from_bits_per_second(bps.round() as u64).to_string()
}

/// Lays out rows as aligned columns: the first left-aligned, the rest right-aligned.
fn columns(rows: &[Vec<String>]) -> String {
    let width = |i: usize| {
        rows.iter()
            .map(|r| r.get(i).map_or(0, |c| c.chars().count()))
            .max()
            .unwrap_or(0)
    };
    let count = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..count).map(width).collect();
    let mut out = String::new();
    for row in rows {
        let mut line = String::new();
        for (i, cell) in row.iter().enumerate() {
            let pad = widths[i] - cell.chars().count();
            if i == 0 {
                line.push_str(cell);
                line.push_str(&" ".repeat(pad));
            } else {
                line.push_str("  ");
                line.push_str(&" ".repeat(pad));
                line.push_str(cell);
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn table_text(report: &Report) -> String {
    let mut out = format!("Header overhead: {}\n\n", describe(&report.settings));
    let paths = &report.paths;
    if paths.len() <= 4 {
        // Table 1 layout: one column per path.
        let mut rows = vec![std::iter::once(String::new())
            .chain(paths.iter().map(|p| p.label.clone()))
            .collect()];
        let packets: Vec<PacketOverhead> = paths.iter().map(|p| p.packet).collect();
        for (label, cells) in table_one_rows(&packets) {
            rows.push(std::iter::once(label).chain(cells).collect());
        }
        let mut add = |label: String, cell: &dyn Fn(&PathFigures) -> String| {
            rows.push(
                std::iter::once(label)
                    .chain(paths.iter().map(cell))
                    .collect(),
            );
        };
        add("Efficiency (payload/frame)".into(), &|p| {
            percent(p.packet.efficiency_ratio)
        });
        if let Some(rate) = report.rate_bps {
            add(format!("Max goodput @ {}", rate_text(rate as f64)), &|p| {
                p.expected_goodput_bps.map(rate_text).unwrap_or_default()
            });
        }
        if let Some(size) = report.size_bytes {
            add(format!("Packets for {size} B"), &|p| {
                message_packets(p.message.as_ref())
            });
            add(format!("Link bytes for {size} B"), &|p| {
                p.message
                    .as_ref()
                    .map(|m| m.wire_bytes.to_string())
                    .unwrap_or_default()
            });
            add(format!("Efficiency at {size} B"), &|p| {
                p.message
                    .as_ref()
                    .map(|m| percent(m.efficiency_ratio))
                    .unwrap_or_default()
            });
            if report.rate_bps.is_some() {
                add(format!("Max goodput at {size} B"), &|p| {
                    p.message_expected_goodput_bps
                        .map(rate_text)
                        .unwrap_or_default()
                });
            }
        }
        out.push_str(&columns(&rows));
    } else {
        let mut header = vec![
            "path",
            "payload B",
            "headers B",
            "frame B",
            "overhead",
            "efficiency",
        ];
        if report.rate_bps.is_some() {
            header.push("max goodput");
        }
        if report.size_bytes.is_some() {
            header.extend(["packets", "size eff."]);
        }
        let mut rows = vec![header.into_iter().map(String::from).collect::<Vec<_>>()];
        for p in paths {
            let mut row = vec![
                p.label.clone(),
                p.packet.payload_bytes.to_string(),
                p.packet.header_bytes.to_string(),
                p.packet.frame_bytes.to_string(),
                percent(p.packet.overhead_ratio),
                percent(p.packet.efficiency_ratio),
            ];
            if report.rate_bps.is_some() {
                row.push(p.expected_goodput_bps.map(rate_text).unwrap_or_default());
            }
            if report.size_bytes.is_some() {
                row.push(message_packets(p.message.as_ref()));
                row.push(
                    p.message
                        .as_ref()
                        .map(|m| percent(m.efficiency_ratio))
                        .unwrap_or_default(),
                );
            }
            rows.push(row);
        }
        out.push_str(&columns(&rows));
    }
    out.push_str(&comparison_note(paths));
    out.push_str(
        "\nOverhead % = header bytes / payload bytes (the papers' definition); \
         efficiency = payload / (frame + counted extras).\n",
    );
    out
}

fn message_packets(message: Option<&MessageCost>) -> String {
    match message {
        Some(m) if m.fragmented => format!("{} fragments", m.packets),
        Some(m) => m.packets.to_string(),
        None => String::new(),
    }
}

/// "IPv6 vs IPv4 (plain): TCP goodput −1.38 %, UDP −1.36 %" for the plain paths.
fn comparison_note(paths: &[PathFigures]) -> String {
    let plain = |family, transport| {
        paths
            .iter()
            .find(|p| p.packet.path == PathKind::plain(family, transport))
    };
    let mut parts = Vec::new();
    for transport in [Transport::Tcp, Transport::Udp] {
        if let (Some(v4), Some(v6)) = (
            plain(dualperf_model::IpFamily::V4, transport),
            plain(dualperf_model::IpFamily::V6, transport),
        ) {
            let full = v6.packet.efficiency_ratio / v4.packet.efficiency_ratio - 1.0;
            let mut part = format!("{} {:+.2} %", transport.label(), full * 100.0);
            if let (Some(m4), Some(m6)) = (&v4.message, &v6.message) {
                let sized = m6.efficiency_ratio / m4.efficiency_ratio - 1.0;
                part.push_str(&format!(
                    " ({:+.2} % at {} B)",
                    sized * 100.0,
                    m4.size_bytes
                ));
            }
            parts.push(part);
        }
    }
    if parts.is_empty() {
        return String::new();
    }
    format!(
        "\nExpected IPv6 goodput relative to IPv4 on a byte-bound link: {}\n",
        parts.join(", ")
    )
}

/// CSV text, one row per path.
fn csv_text(report: &Report) -> anyhow::Result<String> {
    #[derive(Serialize)]
    struct Row<'a> {
        path: &'a str,
        family: &'static str,
        transport: &'static str,
        encapsulation: &'static str,
        mtu_bytes: u32,
        tcp_option_bytes: u32,
        payload_bytes: u32,
        transport_header_bytes: u32,
        ip_payload_bytes: u32,
        ip_header_bytes: u32,
        encapsulation_bytes: u32,
        link_header_bytes: u32,
        frame_bytes: u32,
        wire_extra_bytes: u32,
        header_bytes: u32,
        overhead_ratio: f64,
        efficiency_ratio: f64,
        expected_goodput_bps: Option<f64>,
        size_bytes: Option<u32>,
        size_packets: Option<u32>,
        size_fragmented: Option<bool>,
        size_wire_bytes: Option<u64>,
        size_efficiency_ratio: Option<f64>,
        size_expected_goodput_bps: Option<f64>,
    }
    let mut writer = csv::Writer::from_writer(Vec::new());
    for p in &report.paths {
        let packet = &p.packet;
        writer
            .serialize(Row {
                path: &p.label,
                family: packet.path.family.key(),
                transport: match packet.path.transport {
                    Transport::Tcp => "tcp",
                    Transport::Udp => "udp",
                },
                encapsulation: packet.path.encapsulation.name(),
                mtu_bytes: report.settings.mtu_bytes,
                tcp_option_bytes: report.settings.tcp_option_bytes,
                payload_bytes: packet.payload_bytes,
                transport_header_bytes: packet.transport_header_bytes,
                ip_payload_bytes: packet.ip_payload_bytes,
                ip_header_bytes: packet.ip_header_bytes,
                encapsulation_bytes: packet.encapsulation_bytes,
                link_header_bytes: packet.link_header_bytes,
                frame_bytes: packet.frame_bytes,
                wire_extra_bytes: packet.wire_extra_bytes,
                header_bytes: packet.header_bytes,
                overhead_ratio: packet.overhead_ratio,
                efficiency_ratio: packet.efficiency_ratio,
                expected_goodput_bps: p.expected_goodput_bps,
                size_bytes: p.message.as_ref().map(|m| m.size_bytes),
                size_packets: p.message.as_ref().map(|m| m.packets),
                size_fragmented: p.message.as_ref().map(|m| m.fragmented),
                size_wire_bytes: p.message.as_ref().map(|m| m.wire_bytes),
                size_efficiency_ratio: p.message.as_ref().map(|m| m.efficiency_ratio),
                size_expected_goodput_bps: p.message_expected_goodput_bps,
            })
            .context("encoding CSV")?;
    }
    let bytes = writer.into_inner().context("finishing CSV")?;
    String::from_utf8(bytes).context("CSV is UTF-8")
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Wrapper {
        #[command(flatten)]
        args: Args,
    }

    fn args(line: &[&str]) -> Args {
        Wrapper::try_parse_from(std::iter::once("overhead").chain(line.iter().copied()))
            .unwrap()
            .args
    }

    #[test]
    fn textbook_table_prints_table_1_of_the_papers() {
        let text = table_text(&build(&args(&["--textbook"])).unwrap());
        let cells = |label: &str| -> Vec<String> {
            let line = text
                .lines()
                .find(|l| l.starts_with(label))
                .unwrap_or_else(|| panic!("{text}"));
            line[label.len()..]
                .split_whitespace()
                .map(String::from)
                .collect()
        };
        assert_eq!(cells("TCP/UDP Payload"), ["1460", "1440", "1472", "1452"]);
        assert_eq!(
            cells("Total Ethernet MTU"),
            ["1514", "1514", "1514", "1514"]
        );
        assert_eq!(cells("Overhead %"), ["3.7%", "5.14%", "2.85%", "4.27%"]);
        let columns = ["IPv4", "TCP", "IPv6", "TCP", "IPv4", "UDP", "IPv6", "UDP"];
        assert!(
            text.lines().any(|l| l.split_whitespace().eq(columns)),
            "{text}"
        );
    }

    #[test]
    fn linux_defaults_use_twelve_bytes_of_tcp_options() {
        let report = build(&args(&[])).unwrap();
        assert_eq!(report.paths[0].packet.payload_bytes, 1448);
        assert_eq!(report.paths[1].packet.payload_bytes, 1428);
    }

    #[test]
    fn rate_and_size_add_goodput_and_fragments() {
        let report = build(&args(&["--rate", "1G", "--wire", "--size", "8192"])).unwrap();
        let text = table_text(&report);
        assert!(text.contains("Max goodput @ 1.000 Gbit/s"), "{text}");
        assert!(text.contains("6 fragments"), "{text}");
    }

    #[test]
    fn encapsulations_switch_to_one_row_per_path() {
        let text = table_text(&build(&args(&["--encap", "6in4,nat64"])).unwrap());
        assert!(text.contains("IPv6 TCP in 6in4"), "{text}");
        assert!(text.contains("IPv4 UDP via NAT64 (IPv4 side)"), "{text}");
    }

    #[test]
    fn unknown_encapsulation_is_a_usage_error() {
        let error = build(&args(&["--encap", "ipsec"])).err().unwrap();
        assert!(
            error.to_string().contains("unknown encapsulation `ipsec`"),
            "{error}"
        );
    }

    #[test]
    fn a_tiny_mtu_is_a_usage_error() {
        let error = build(&args(&["--mtu", "40"])).err().unwrap();
        assert!(error.to_string().contains("MTU of 40 bytes"), "{error}");
    }

    #[test]
    fn csv_has_one_row_per_path_and_json_parses() {
        let report = build(&args(&["--all"])).unwrap();
        let csv = csv_text(&report).unwrap();
        assert_eq!(csv.lines().count(), 1 + report.paths.len());
        let json = serde_json::to_value(&report).unwrap();
        assert_eq!(json["paths"][0]["payload_bytes"], 1448);
    }
}
