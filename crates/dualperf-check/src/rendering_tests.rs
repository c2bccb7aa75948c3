//! Snapshots of the three text renderings, built from hand-written inputs so
//! they do not depend on this host (the measured versions are asserted in
//! `local::tests` and `tests/it`).

use std::net::SocketAddr;
use std::time::Duration;

use dualperf_model::{IpFamily, PerFamily};

use crate::happy_eyeballs::{Attempt, Decision};
use crate::local::{Cell, ClientKind, LocalMatrix, ServerKind};
use crate::remote::{Connection, HostReport};
use crate::resolve::FamilyResolution;

fn cell(
    client: ClientKind,
    server: ServerKind,
    port: u16,
    saw: Option<&str>,
    error: Option<&str>,
) -> Cell {
    let destination: SocketAddr = match client {
        ClientKind::Ipv4 => format!("127.0.0.1:{port}"),
        ClientKind::Ipv6 => format!("[::1]:{port}"),
        ClientKind::Ipv6Mapped => format!("[::ffff:127.0.0.1]:{port}"),
    }
    .parse()
    .unwrap();
    let server_saw: Option<SocketAddr> = saw.map(|s| s.parse().unwrap());
    let server_saw_mapped =
        matches!(server_saw, Some(SocketAddr::V6(v6)) if v6.ip().to_ipv4_mapped().is_some());
    Cell {
        client,
        server,
        destination,
        connected: server_saw.is_some(),
        server_saw,
        server_saw_mapped,
        error: error.map(str::to_string),
    }
}

#[test]
fn table_one_renders_rows_as_clients_and_columns_as_servers() {
    use ClientKind as C;
    use ServerKind as S;
    let refused = Some("Connection refused (os error 111)");
    let matrix = LocalMatrix {
        cells: vec![
            cell(C::Ipv4, S::Ipv4, 1, Some("127.0.0.1:40000"), None),
            cell(C::Ipv6, S::Ipv4, 1, None, refused),
            cell(C::Ipv6Mapped, S::Ipv4, 1, Some("127.0.0.1:40001"), None),
            cell(
                C::Ipv4,
                S::Ipv6DualStack,
                2,
                Some("[::ffff:127.0.0.1]:40002"),
                None,
            ),
            cell(C::Ipv6, S::Ipv6DualStack, 2, Some("[::1]:40003"), None),
            cell(
                C::Ipv6Mapped,
                S::Ipv6DualStack,
                2,
                Some("[::ffff:127.0.0.1]:40004"),
                None,
            ),
            cell(C::Ipv4, S::Ipv6Only, 3, None, refused),
            cell(C::Ipv6, S::Ipv6Only, 3, Some("[::1]:40005"), None),
            cell(C::Ipv6Mapped, S::Ipv6Only, 3, None, refused),
        ],
        bindv6only_default: Some("0".into()),
    };
    insta::assert_snapshot!(crate::local::render_table(&matrix));
}

#[test]
fn host_report_renders_times_decision_and_faults() {
    let ms = Duration::from_millis;
    let report = HostReport {
        host: "dual.test".into(),
        port: 443,
        resolution: PerFamily {
            v4: FamilyResolution { addresses: vec!["192.0.2.1".parse().unwrap()], elapsed: ms(12), error: None },
            v6: FamilyResolution { addresses: vec!["2001:db8::1".parse().unwrap()], elapsed: ms(14), error: None },
        },
        connection: PerFamily {
            v4: Some(Connection { address: "192.0.2.1:443".parse().unwrap(), connected: true, elapsed: ms(20), error: None }),
            v6: Some(Connection {
                address: "[2001:db8::1]:443".parse().unwrap(),
                connected: false,
                elapsed: ms(3000),
                error: Some("connection timed out".into()),
            }),
        },
        happy_eyeballs: Decision {
            winner: Some(IpFamily::V4),
            connected_at: Some(ms(284)),
            attempts: vec![
                Attempt { family: IpFamily::V6, started_at: ms(14), ended_at: ms(3014), succeeded: false },
                Attempt { family: IpFamily::V4, started_at: ms(264), ended_at: ms(284), succeeded: true },
            ],
        },
        faults: vec!["AAAA exists but IPv6 does not connect (connection timed out): clients without Happy Eyeballs hang or fail; RFC 8305 clients fall back to IPv4 after 250 ms".into()],
    };
    insta::assert_snapshot!(crate::remote::render_host(&report));
}

#[test]
fn address_report_renders_every_field() {
    let report = crate::address::analyse("::ffff:192.0.2.33").unwrap();
    insta::assert_snapshot!(crate::address::render(&report));
}
