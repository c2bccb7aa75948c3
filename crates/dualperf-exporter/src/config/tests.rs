//! Tests of the configuration file: defaults, every error with its line.

use super::*;

const MINIMAL: &str = r#"
[[target]]
name = "loop"
v4 = "127.0.0.1"
v6 = "::1"
"#;

fn errors(text: &str) -> String {
    Config::parse(text).unwrap_err().to_string()
}

#[test]
fn a_minimal_file_gets_the_defaults() {
    let config = Config::parse(MINIMAL).unwrap();
    assert_eq!(config.listen, "127.0.0.1:9518".parse().unwrap());
    assert!(config.listen.ip().is_loopback());
    let target = &config.targets[0];
    assert_eq!(target.families, IpFamily::ALL);
    assert_eq!(target.baseline, IpFamily::V4);
    assert_eq!(target.schedule.interval, DEFAULT_INTERVAL);
    assert_eq!(target.measurement.tests, DEFAULT_TESTS);
    assert_eq!((target.points(), target.trials()), (3, 18));
    assert!(config.planned_duty_cycle() < 0.25);
}

#[test]
fn defaults_apply_unless_a_target_says_otherwise() {
    let config = Config::parse(
        r#"
[defaults]
interval = "10m"
tests = ["tcp-rr"]
sizes = [64, 1024]
[[target]]
name = "a"
host = "a.example"
[[target]]
name = "b"
host = "b.example"
interval = 120
time = "500ms"
"#,
    )
    .unwrap();
    let [a, b] = &config.targets[..] else {
        panic!()
    };
    assert_eq!(a.schedule.interval, Duration::from_secs(600));
    assert_eq!(b.schedule.interval, Duration::from_secs(120));
    assert_eq!(b.measurement.tests, [TestKind::TcpRr]);
    assert_eq!(b.measurement.time, Duration::from_millis(500));
    assert_eq!(a.points(), 2);
}

#[test]
fn an_unknown_key_is_an_error_on_its_line() {
    let text = format!("{MINIMAL}intervall = \"5m\"\n");
    let message = errors(&text);
    assert!(
        message.starts_with("line 6: unknown field `intervall`"),
        "{message}"
    );
    assert!(message.contains("`interval`"), "{message}");
    let top = errors("listen = \"127.0.0.1:1\"\nduty = 0.5\n");
    assert!(top.starts_with("line 2: unknown field `duty`"), "{top}");
}

#[test]
fn a_bad_value_names_its_line_and_key() {
    let text = r#"
[[target]]
name = "lon-1"
host = "lon-1.example.net"
interval = "5 minutes"
"#;
    let message = errors(text);
    assert!(message.starts_with("line 5:"), "{message}");
    assert!(
        message.contains("`5 minutes` is not a duration"),
        "{message}"
    );
    let text = r#"
[[target]]
name = "lon-1"
host = "lon-1.example.net"
tests = ["tcp-pingpong"]
repeat = 0
"#;
    let message = errors(text);
    assert!(
        message.contains("line 5: target \"lon-1\": tests: unknown test `tcp-pingpong`"),
        "{message}"
    );
    assert!(
        message.contains("line 6: target \"lon-1\": repeat: 0 is outside 1 to 20"),
        "{message}"
    );
}

#[test]
fn an_interval_shorter_than_a_comparison_is_unreachable() {
    let text = r#"
[[target]]
name = "a"
host = "a.example"
interval = "5s"
max_runs_per_hour = 3600
"#;
    let message = errors(text);
    assert!(
        message.starts_with("line 5: target \"a\": interval: unreachable interval: 5s is shorter than one comparison"),
        "{message}"
    );
}

#[test]
fn an_interval_beyond_the_rate_limit_is_unreachable() {
    let text = r#"
[[target]]
name = "a"
host = "a.example"
tests = ["tcp-rr"]
interval = "30s"
"#;
    let message = errors(text);
    assert!(message.contains("120 comparisons an hour"), "{message}");
    assert!(
        message.contains("max_runs_per_hour, default) is 60"),
        "{message}"
    );
}

#[test]
fn too_many_targets_for_the_duty_cycle_is_an_error_at_the_duty_cycle() {
    let mut text = String::from("duty_cycle = 0.1\n[defaults]\ninterval = \"1m\"\n");
    for index in 0..4 {
        text.push_str(&format!(
            "[[target]]\nname = \"t{index}\"\nhost = \"t{index}.example\"\n"
        ));
    }
    let message = errors(&text);
    assert!(
        message.starts_with(
            "line 1: duty_cycle: too many targets for the duty cycle: 4 targets need about"
        ),
        "{message}"
    );
    assert!(message.contains("t0 "), "{message}");
}

#[test]
fn targets_need_unique_names_and_an_address_per_family() {
    let text = r#"
[[target]]
name = "a"
v4 = "192.0.2.7"
[[target]]
name = "a"
host = "a.example"
"#;
    let message = errors(text);
    assert!(
        message.contains(
            "line 2: target \"a\": host: IPv6 is measured but the target has neither host nor v6"
        ),
        "{message}"
    );
    let only_v4 = "[[target]]\nname = \"a\"\nv4 = \"192.0.2.7\"\nfamilies = [\"v4\"]\n";
    let config = Config::parse(only_v4).unwrap();
    assert_eq!(config.targets[0].families, [IpFamily::V4]);
    let twice =
        errors("[[target]]\nname = \"a\"\nhost = \"x\"\n[[target]]\nname = \"a\"\nhost = \"y\"\n");
    assert!(
        twice.contains("line 5: target \"a\": name: another [[target]] has this name"),
        "{twice}"
    );
}

#[test]
fn udp_stream_needs_a_bitrate_and_defaults_cannot_name_a_host() {
    let text = "[defaults]\nhost = \"x\"\n[[target]]\nname = \"a\"\nhost = \"a\"\ntests = [\"udp-stream\"]\n";
    let message = errors(text);
    assert!(
        message.contains("line 2: defaults.host: belongs to a [[target]]"),
        "{message}"
    );
    assert!(
        message.contains("udp-stream without a bitrate"),
        "{message}"
    );
}

#[test]
fn durations_read_as_people_write_them() {
    assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
    assert_eq!(parse_duration("1.5s"), Ok(Duration::from_millis(1500)));
    assert_eq!(parse_duration("5m"), Ok(Duration::from_secs(300)));
    assert_eq!(parse_duration("1h"), Ok(Duration::from_secs(3600)));
    assert_eq!(parse_duration("20"), Ok(Duration::from_secs(20)));
    assert!(parse_duration("5 minutes").is_err());
    assert!(parse_duration("-1s").is_err());
    assert_eq!(format_duration(Duration::from_secs(300)), "5m");
    assert_eq!(format_duration(Duration::from_millis(12_400)), "12.4s");
    assert_eq!(format_duration(Duration::from_millis(250)), "250ms");
}

#[test]
fn no_target_at_all_is_an_error() {
    assert!(errors("").contains("no [[target]]"));
}

#[test]
fn an_iperf3_target_defaults_to_its_port_and_tcp_stream() {
    let config = Config::parse(
        r#"
[[target]]
name = "public"
host = "iperf.example.net"
peer = "iperf3"
"#,
    )
    .unwrap();
    let target = &config.targets[0];
    assert_eq!(target.peer, PeerKind::Iperf3);
    assert_eq!(target.port, 5201);
    assert_eq!(target.measurement.tests, [TestKind::TcpStream]);
    assert!(config.modules.is_empty());
}

#[test]
fn a_test_the_peer_cannot_run_and_a_bad_peer_are_errors() {
    let text = errors(
        r#"
[[target]]
name = "public"
host = "iperf.example.net"
peer = "iperf3"
tests = ["udp-rr"]
[[target]]
name = "b"
host = "b.example"
peer = "netperf"
"#,
    );
    assert!(text.contains("line 6: target \"public\": tests: udp-rr needs a dualperf peer: iperf3 peers run tcp-stream and udp-stream"), "{text}");
    assert!(text.contains("`netperf` is not a peer"), "{text}");
}

#[test]
fn modules_alone_make_a_configuration_for_probe() {
    let config = Config::parse(
        r#"
probe_concurrency = 2
[module.iperf3_tcp]
peer = "iperf3"
time = "2s"
repeat = 1
timeout = "20s"
[module.dualperf_rr]
tests = ["udp-rr"]
"#,
    )
    .unwrap();
    assert!(config.targets.is_empty());
    assert_eq!(config.probe_concurrency, 2);
    let module = config.module("iperf3_tcp").unwrap();
    assert_eq!(module.timeout, Duration::from_secs(20));
    assert_eq!(module.target.port, 5201);
    assert_eq!(module.target.families, IpFamily::ALL);
    let rr = config.module("dualperf_rr").unwrap();
    assert_eq!((rr.target.port, rr.timeout), (5180, DEFAULT_PROBE_TIMEOUT));
}

#[test]
fn a_module_names_no_host_and_fits_its_timeout() {
    let text = errors(
        r#"
probe_concurrency = 0
[module.m]
host = "x.example"
time = "10s"
repeat = 3
timeout = "5s"
[[target]]
name = "t"
host = "t.example"
timeout = "5s"
"#,
    );
    assert!(
        text.contains("module \"m\": host: a module has no host"),
        "{text}"
    );
    assert!(
        text.contains("probe_concurrency: 0 is outside 1 to 16"),
        "{text}"
    );
    assert!(
        text.contains("target \"t\": timeout: belongs to a [module.NAME]"),
        "{text}"
    );
    let text = errors(
        r#"
[module.m]
time = "10s"
repeat = 3
timeout = "5s"
"#,
    );
    assert!(text.contains("module \"m\": timeout: one probe"), "{text}");
    assert!(errors("listen = \"127.0.0.1:1\"\n").contains("no [[target]] and no [module.NAME]"));
}
