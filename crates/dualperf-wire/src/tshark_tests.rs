//! The packet views against a decoder we did not write: the fixture
//! packets, written to a pcap file, decoded by tshark (Wireshark's
//! dissectors). Family, encapsulation (the order of the IP layers), DSCP,
//! flow label and UDP destination port must agree. Needs tshark: skipped
//! with a message locally, required when DUALPERF_REQUIRE_PRIVILEGED is set
//! (CI; dev/install-deps installs it).

use std::process::{Command, Stdio};

use dualperf_model::IpFamily;

use crate::fixtures::{ipv4, ipv6, pcap_file, srh, udp4, udp6, Link, Magic};
use crate::fixtures::{IPV4_IN_IPV6, IPV6_IN_IPV4, ROUTING};
use crate::packet::{decode, Encapsulation};

fn tshark_available() -> bool {
    let found = Command::new("tshark")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !found {
        assert!(
            std::env::var_os("DUALPERF_REQUIRE_PRIVILEGED").is_none(),
            "tshark is required here (dev/install-deps installs it)"
        );
        eprintln!("skipped: tshark is not installed");
    }
    found
}

#[test]
fn tshark_reads_the_fixture_packets_as_the_views_do() {
    if !tshark_available() {
        return;
    }
    let packets = [
        udp4(46 << 2, (1000, 2000), &[1; 24]),
        udp6(10 << 2, 0x12345, (1001, 2001), &[2; 24]),
        ipv4(0, IPV6_IN_IPV4, &udp6(34 << 2, 7, (1002, 2002), &[3; 24])),
        {
            let mut body = srh(IPV4_IN_IPV6);
            body.extend_from_slice(&udp4(26 << 2, (1003, 2003), &[4; 24]));
            ipv6(0, 99, ROUTING, &body)
        },
    ];
    let frames: Vec<(u32, u32, Vec<u8>)> = packets
        .iter()
        .enumerate()
        .map(|(i, p)| (1, i as u32, p.clone()))
        .collect();
    let path = std::env::temp_dir().join(format!("dualperf-wire-{}.pcap", std::process::id()));
    std::fs::write(
        &path,
        pcap_file(Magic::Microseconds, Link::Ethernet, &frames),
    )
    .unwrap();
    let output = Command::new("tshark")
        .arg("-r")
        .arg(&path)
        .args([
            "-T",
            "fields",
            "-E",
            "occurrence=l",
            "-e",
            "frame.protocols",
        ])
        .args(["-e", "ip.dsfield.dscp", "-e", "ipv6.tclass.dscp"])
        .args(["-e", "ipv6.flow", "-e", "udp.dstport"])
        .stderr(Stdio::null())
        .output();
    let _ = std::fs::remove_file(&path);
    let stdout = String::from_utf8_lossy(&output.unwrap().stdout).into_owned();
    let lines: Vec<Vec<&str>> = stdout.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(lines.len(), packets.len(), "{stdout}");
    for (packet, fields) in packets.iter().zip(&lines) {
        let view = decode(packet).unwrap();
        let layers: Vec<&str> = fields[0]
            .split(':')
            .filter(|p| *p == "ip" || *p == "ipv6")
            .collect();
        let encapsulation = match layers.as_slice() {
            ["ip", "ipv6"] => Encapsulation::SixInFour,
            ["ipv6", "ip"] => Encapsulation::FourInSix,
            _ => Encapsulation::None,
        };
        assert_eq!(view.encapsulation, encapsulation, "{fields:?}");
        let number = |text: &str| -> u32 {
            let text = text.trim();
            match text.strip_prefix("0x") {
                Some(hex) => u32::from_str_radix(hex, 16).unwrap(),
                None => text.parse().unwrap(),
            }
        };
        match view.family {
            IpFamily::V4 => {
                assert_eq!(layers.last(), Some(&"ip"), "{fields:?}");
                assert_eq!(u32::from(view.dscp), number(fields[1]), "{fields:?}");
            }
            IpFamily::V6 => {
                assert_eq!(layers.last(), Some(&"ipv6"), "{fields:?}");
                assert_eq!(u32::from(view.dscp), number(fields[2]), "{fields:?}");
                assert_eq!(view.flow_label, Some(number(fields[3])), "{fields:?}");
            }
        }
        let port = view.transport.unwrap().destination_port;
        assert_eq!(u32::from(port), number(fields[4]), "{fields:?}");
    }
}
