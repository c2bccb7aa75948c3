//! serve + run over 127.0.0.1 and ::1 for every test kind.

use dualperf_engine::limits::ServerLimits;
use dualperf_model::{IpFamily, TestKind};

use crate::support::{assert_consistent, short_spec, trial, TestServer};

fn every_kind_over(ip: &str, family: IpFamily) {
    let server = TestServer::start(ServerLimits::default(), None);
    for (kind, size) in [
        (TestKind::TcpStream, 128 * 1024),
        (TestKind::UdpStream, 1024),
        (TestKind::TcpRr, 64),
        (TestKind::UdpRr, 64),
        (TestKind::TcpConnect, 0),
    ] {
        let spec = short_spec(kind, size);
        let report = trial(server.address(ip), &spec);
        assert_consistent(&report, &spec, family);
    }
    assert!(
        server.log_text().contains(&format!("family {family}")),
        "{}",
        server.log_text()
    );
}

#[test]
fn every_kind_runs_over_ipv4_loopback_and_the_server_sees_ipv4() {
    every_kind_over("127.0.0.1", IpFamily::V4);
}

#[test]
fn every_kind_runs_over_ipv6_loopback_and_the_server_sees_ipv6() {
    every_kind_over("::1", IpFamily::V6);
}
