//! Processes and sockets inside nodes: a server started in the server node
//! with `ip netns exec`, found listening from the client node, reached over
//! both families, and stopped when its handle drops.

use std::ffi::OsString;
use std::io::Read;
use std::net::{SocketAddr, TcpStream};
use std::process::Stdio;
use std::time::Duration;

use dualperf_model::IpFamily;

use super::helpers::HELPER_VARIABLE;
use super::{build_preset, is_running, require_net_admin};

const PORT: u16 = 5299;

#[test]
fn a_server_started_in_a_node_is_reachable_and_stopped_on_drop() {
    require_net_admin!();
    let testbed = build_preset("router");
    let exe = std::env::current_exe().unwrap();
    // `env` sets the helper's variables: the process is started by `ip netns exec`.
    let args: Vec<OsString> = vec![
        format!("{HELPER_VARIABLE}=listen").into(),
        format!("DSP_LAB_PORT={PORT}").into(),
        exe.into(),
        "--ignored".into(),
        "--exact".into(),
        "helpers::listen".into(),
        "--test-threads=1".into(),
    ];
    let mut server = testbed
        .spawn("server", "env", &args, Stdio::null(), Stdio::null())
        .unwrap();
    let pid = server.id();
    testbed
        .wait_for_listening_port("server", PORT, Duration::from_secs(10), None)
        .unwrap();
    for family in IpFamily::ALL {
        let target = SocketAddr::new(testbed.address("server", family).unwrap(), PORT);
        testbed
            .wait_for_tcp_listener("client", target, Duration::from_secs(10), None)
            .unwrap();
        let greeting = testbed
            .in_node("client", || {
                let mut stream = TcpStream::connect_timeout(&target, Duration::from_secs(2))?;
                let mut text = String::new();
                stream.read_to_string(&mut text)?;
                Ok::<_, std::io::Error>(text)
            })
            .unwrap()
            .unwrap();
        assert_eq!(greeting, "hello\n", "{family}");
    }
    assert!(server.try_wait().unwrap().is_none(), "server still runs");
    drop(server);
    assert!(!is_running(pid), "server process {pid} survived its handle");
}

#[test]
fn a_port_listened_on_only_in_another_node_is_not_seen() {
    require_net_admin!();
    let testbed = build_preset("p2p");
    let client_address = testbed.address("client", IpFamily::V6).unwrap();
    let listener = testbed
        .in_node("client", || {
            std::net::TcpListener::bind(SocketAddr::new(client_address, 0))
        })
        .unwrap()
        .unwrap();
    let port = listener.local_addr().unwrap().port();
    testbed
        .wait_for_listening_port("client", port, Duration::from_secs(2), None)
        .unwrap();
    let err = testbed
        .wait_for_listening_port("server", port, Duration::from_millis(200), None)
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("nothing in node `server` listened"),
        "{err}"
    );
}

#[test]
fn waiting_for_a_port_nobody_listens_on_times_out() {
    require_net_admin!();
    let testbed = build_preset("p2p");
    let target = SocketAddr::new(testbed.address("server", IpFamily::V4).unwrap(), PORT);
    let err = testbed
        .wait_for_tcp_listener("client", target, Duration::from_millis(300), None)
        .unwrap_err();
    assert!(err.to_string().contains("nothing listened"), "{err}");
}
