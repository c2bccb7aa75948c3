//! Table 1 of the seed papers ("The overhead incurred by header
//! information"), rebuilt from the model, cell for cell.
//!
//! | | IPv4 TCP | IPv6 TCP | IPv4 UDP | IPv6 UDP |
//! |---|---|---|---|---|
//! | TCP/UDP Payload | 1460 | 1440 | 1472 | 1452 |
//! | TCP/UDP Header | 20 | 20 | 8 | 8 |
//! | IP Payload | 1480 | 1460 | 1480 | 1460 |
//! | IP Header | 20 | 40 | 20 | 40 |
//! | Ethernet Header | 14 | 14 | 14 | 14 |
//! | Total Ethernet MTU | 1514 | 1514 | 1514 | 1514 |
//! | Overhead % | 3.7% | 5.14% | 2.85% | 4.27% |
//!
//! The papers print the overhead with two decimals and drop a trailing zero
//! (3.70 → "3.7%"); [`format_overhead_percent`] does the same.

use super::PacketOverhead;

/// A ratio as the papers print a percentage: two decimals, trailing zeros
/// dropped, a `%` sign (0.036986 → "3.7%", 0.051389 → "5.14%").
pub fn format_overhead_percent(ratio: f64) -> String {
    let text = format!("{:.2}", ratio * 100.0);
    let trimmed = text.trim_end_matches('0').trim_end_matches('.');
    format!("{trimmed}%")
}

/// Table 1's rows for the given columns: a label and one cell per packet.
/// A row "Encapsulation" follows "IP Header" when any column has a tunnel.
pub fn table_one_rows(columns: &[PacketOverhead]) -> Vec<(String, Vec<String>)> {
    let row = |label: &str, cell: &dyn Fn(&PacketOverhead) -> String| {
        (
            label.to_string(),
            columns.iter().map(cell).collect::<Vec<String>>(),
        )
    };
    let mut rows = vec![
        row("TCP/UDP Payload", &|p| p.payload_bytes.to_string()),
        row("TCP/UDP Header", &|p| p.transport_header_bytes.to_string()),
        row("IP Payload", &|p| p.ip_payload_bytes.to_string()),
        row("IP Header", &|p| p.ip_header_bytes.to_string()),
    ];
    if columns.iter().any(|p| p.encapsulation_bytes > 0) {
        rows.push(row("Encapsulation", &|p| p.encapsulation_bytes.to_string()));
    }
    rows.push(row("Ethernet Header", &|p| p.link_header_bytes.to_string()));
    rows.push(row("Total Ethernet MTU", &|p| p.frame_bytes.to_string()));
    if columns.iter().any(|p| p.wire_extra_bytes > 0) {
        rows.push(row("On-wire extras", &|p| p.wire_extra_bytes.to_string()));
    }
    rows.push(row("Overhead %", &|p| {
        format_overhead_percent(p.overhead_ratio)
    }));
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::overhead::{packet_overhead, OverheadSettings, PathKind};

    fn table_one() -> Vec<(String, Vec<String>)> {
        let columns: Vec<PacketOverhead> = PathKind::TABLE_1
            .iter()
            .map(|&path| packet_overhead(path, &OverheadSettings::textbook()).unwrap())
            .collect();
        table_one_rows(&columns)
    }

    #[test]
    fn textbook_settings_reproduce_every_cell_of_table_1_of_seeds_001_and_003() {
        // Transcribed from seed 001 §2 and seed 003 §2.2.3 (identical tables).
        let expected: Vec<(&str, [&str; 4])> = vec![
            ("TCP/UDP Payload", ["1460", "1440", "1472", "1452"]),
            ("TCP/UDP Header", ["20", "20", "8", "8"]),
            ("IP Payload", ["1480", "1460", "1480", "1460"]),
            ("IP Header", ["20", "40", "20", "40"]),
            ("Ethernet Header", ["14", "14", "14", "14"]),
            ("Total Ethernet MTU", ["1514", "1514", "1514", "1514"]),
            ("Overhead %", ["3.7%", "5.14%", "2.85%", "4.27%"]),
        ];
        let actual = table_one();
        assert_eq!(actual.len(), expected.len());
        for ((label, cells), (expected_label, expected_cells)) in actual.iter().zip(&expected) {
            assert_eq!(label, expected_label);
            assert_eq!(cells, &expected_cells.to_vec(), "row {label}");
        }
    }

    #[test]
    fn the_papers_ipv4_ipv6_differences_follow_from_the_table() {
        // Seed 001: "the difference between IPv4 UDP and IPv6 UDP is a mere
        // 1.42 %, while for TCP it is 1.44 %" (differences of overhead %).
        let overhead = |i: usize| {
            packet_overhead(PathKind::TABLE_1[i], &OverheadSettings::textbook())
                .unwrap()
                .overhead_ratio
        };
        assert_eq!(
            format!("{:.2}", (overhead(1) - overhead(0)) * 100.0),
            "1.44"
        );
        assert_eq!(
            format!("{:.2}", (overhead(3) - overhead(2)) * 100.0),
            "1.42"
        );
    }

    #[test]
    fn ipv4_udp_gets_at_best_97_2_percent_of_the_link() {
        // Seed 003 §3.2.1: "using IPv4 UDP, in a best case scenario, the
        // system would only achieve 97.2% capacity of the bandwidth".
        let v4_udp = packet_overhead(PathKind::TABLE_1[2], &OverheadSettings::textbook()).unwrap();
        assert_eq!(format!("{:.1}", v4_udp.efficiency_ratio * 100.0), "97.2");
    }

    #[test]
    fn percentages_drop_trailing_zeros_like_the_papers() {
        assert_eq!(format_overhead_percent(0.037), "3.7%");
        assert_eq!(format_overhead_percent(0.05), "5%");
        assert_eq!(format_overhead_percent(0.051_389), "5.14%");
    }
}
