//! STAMP against an implementation written elsewhere, in two network
//! namespaces joined by a veth pair: stamp-suite's reflector (`cargo
//! install stamp-suite`) answers `dualperf run --peer stamp`, and
//! stamp-suite's sender measures `dualperf serve --stamp`, both families,
//! open and authenticated (HMAC). On the clean path every count matches
//! exactly; with the lab's cls_bpf loss program on the client's egress
//! both see the loss (dualperf attributes it to the forward direction);
//! with an nftables rule setting DSCP 0 on the client's egress the
//! Class-of-Service TLV shows the remark in each family.
//! Needs root, `ip`, `tc`, `nft` and `stamp-suite`; skips without them
//! unless DUALPERF_REQUIRE_PRIVILEGED is set, then it fails.

#![allow(clippy::unwrap_used, missing_docs, unreachable_pub)] // test code: a failed unwrap is a failed test

#[path = "common/netns_pair.rs"]
mod netns_pair;
use netns_pair::{sh, Lab};

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::Value;

const V4: &str = "10.226.0.2";
const V6: &str = "fd20:26::2";
/// The key: 32 ASCII octets; stamp-suite takes them in hex.
const KEY: &[u8] = b"dualperf-stamp-interop-key-01234";
/// Packets per STAMP session (0.5 s at one per 5 ms).
const PACKETS: u64 = 100;

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn work_file(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("dpst-{}-{name}", std::process::id()))
}

/// `dualperf run --peer stamp` in the client namespace; the trials of the
/// result and what it printed.
fn dualperf_run(lab: &Lab, port: u16, extra: &[&str]) -> (Vec<Value>, String) {
    let json = work_file("run.json");
    let output = Command::new("ip")
        .args([
            "netns",
            "exec",
            &lab.client,
            env!("CARGO_BIN_EXE_dualperf"),
            "run",
        ])
        .args(["--peer", "stamp", "--v4", V4, "--v6", V6])
        .args(["--port", &port.to_string(), "--no-store", "--repeat", "1"])
        .args(["-t", "0.5", "--probe-interval", "5", "--json"])
        .arg(&json)
        .args(extra)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let result: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let _ = std::fs::remove_file(&json);
    let trials = result["trials"].as_array().unwrap().clone();
    assert_eq!(trials.len(), 2, "one trial per family");
    let printed = String::from_utf8_lossy(&output.stdout).into_owned();
    for line in printed.lines().filter(|l| l.starts_with("  [")) {
        eprintln!("dualperf {extra:?}: {line}");
    }
    (trials, printed)
}

/// The trials of [`dualperf_run`].
fn dualperf_sender(lab: &Lab, port: u16, extra: &[&str]) -> Vec<Value> {
    dualperf_run(lab, port, extra).0
}

/// The STAMP record of a trial, which must have succeeded.
fn stamp(trial: &Value) -> &Value {
    assert_eq!(trial["outcome"]["status"], "ok", "{trial}");
    &trial["outcome"]["stamp"]
}

/// stamp-suite's sender in the client namespace against `target`; its JSON summary.
fn stamp_suite_sender(lab: &Lab, tool: &Path, target: &str, port: u16, hmac: bool) -> Value {
    let mut command = Command::new("ip");
    command
        .args(["netns", "exec", &lab.client])
        .arg(tool)
        .args(["-r", target, "-p", &port.to_string()])
        .args([
            "-S",
            if target == V4 {
                "10.226.0.1"
            } else {
                "fd20:26::1"
            },
        ])
        .args(["-c", &PACKETS.to_string(), "-d", "5", "-L", "1"])
        .args(["--cos", "--dscp", "46", "--output-format", "json"]);
    if hmac {
        command.args(["-A", "A", "--hmac-key", &hex(KEY)]);
    }
    let output = command.output().unwrap();
    assert!(
        output.status.success(),
        "stamp-suite sender: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = String::from_utf8_lossy(&output.stdout);
    let line = text.lines().rev().find(|l| l.starts_with('{')).unwrap();
    let summary: Value = serde_json::from_str(line).unwrap();
    eprintln!(
        "stamp-suite sender → {target} (hmac {hmac}): sent {}, received {}, lost {}",
        summary["packets_sent"], summary["packets_received"], summary["packets_lost"]
    );
    summary
}

/// Starts stamp-suite's stateful reflector on port 862 of both server addresses.
fn start_stamp_suite_reflectors(lab: &mut Lab, tool: &str, hmac: bool) {
    let key = hex(KEY);
    for address in [V4, V6] {
        let mut args = vec![
            tool,
            "-i",
            "-S",
            address,
            "-o",
            "862",
            "--stateful-reflector",
        ];
        if hmac {
            args.extend(["-A", "A", "--hmac-key", &key]);
        }
        lab.spawn(&lab.server.clone(), &args).unwrap();
    }
    std::thread::sleep(Duration::from_millis(500));
}

fn stop_children(lab: &mut Lab) {
    for mut child in lab.children.drain(..) {
        let _ = child.kill();
        let _ = child.wait();
    }
}

/// Checks a clean-path session: every packet answered, nothing lost,
/// the reflector numbering its own replies, the EF marking arriving intact.
fn assert_clean(trials: &[Value], authenticated: bool) {
    for trial in trials {
        let s = stamp(trial);
        assert_eq!(s["authenticated"], authenticated, "{s}");
        assert_eq!(s["sent"], PACKETS, "{s}");
        assert_eq!(s["replies"], PACKETS, "{s}");
        assert_eq!(s["reflector_received"], PACKETS, "{s}");
        assert_eq!(s["reflector_stateful"], true, "{s}");
        assert_eq!(
            (s["forward_lost"].as_u64(), s["reverse_lost"].as_u64()),
            (Some(0), Some(0))
        );
        assert_eq!(s["rejected_replies"], 0, "{s}");
        let cos = &s["class_of_service"];
        assert_eq!(cos["reported"], PACKETS, "{cos}");
        assert_eq!(cos["remarked"], 0, "{cos}");
        assert_eq!(
            cos["received_dscp"],
            serde_json::json!([[46, PACKETS]]),
            "{cos}"
        );
    }
}

#[test]
fn stamp_interoperates_with_stamp_suite_in_both_families() {
    let Some(mut lab) = Lab::or_skip("dpst", 26, "stamp-suite") else {
        return;
    };
    let tool = sh(&["which", "stamp-suite"]).unwrap().trim().to_string();
    let key_file = work_file("key");
    std::fs::write(&key_file, KEY).unwrap();
    let key_arg = key_file.to_str().unwrap().to_string();
    let client_veth = format!("dpst{}c", std::process::id());

    // 1. dualperf's sender against stamp-suite's reflector, open then HMAC.
    start_stamp_suite_reflectors(&mut lab, &tool, false);
    assert_clean(&dualperf_sender(&lab, 862, &["-S", "ef"]), false);
    stop_children(&mut lab);
    start_stamp_suite_reflectors(&mut lab, &tool, true);
    let authenticated = ["-S", "ef", "--auth-key-file", key_arg.as_str()];
    assert_clean(&dualperf_sender(&lab, 862, &authenticated), true);
    stop_children(&mut lab);

    // 2. stamp-suite's sender against `dualperf serve --stamp`, open then HMAC.
    for hmac in [false, true] {
        let mut serve = vec![env!("CARGO_BIN_EXE_dualperf"), "serve", "-p", "5226"];
        serve.extend(["--stamp", "--stamp-port", "8620"]);
        if hmac {
            serve.extend(["--auth-key-file", key_arg.as_str()]);
        }
        lab.spawn(&lab.server.clone(), &serve).unwrap();
        std::thread::sleep(Duration::from_millis(500));
        for target in [V4, V6] {
            let summary = stamp_suite_sender(&lab, Path::new(&tool), target, 8620, hmac);
            assert_eq!(summary["packets_sent"], PACKETS, "{summary}");
            assert_eq!(summary["packets_received"], PACKETS, "{summary}");
            let measurements = &summary["measurements"];
            assert_eq!(measurements["last_reflector_sequence"], PACKETS - 1);
            let hmac_seen = &measurements["tlv_validation"]["hmac"];
            let verified = if hmac { PACKETS } else { 0 };
            assert_eq!(hmac_seen["verified"], verified, "{hmac_seen}");
            assert_eq!(hmac_seen["failed"], 0, "{hmac_seen}");
            let flags = &measurements["tlv_validation"]["flags"];
            assert_eq!(flags["unrecognized"], 0, "{flags}");
        }
        stop_children(&mut lab);
    }

    // 3. 20 % loss on the client's egress (the lab's cls_bpf program): the
    //    forward direction only.
    let object = work_file("linkem.o");
    std::fs::write(&object, dualperf_lab::bpf::link_emulation_object(0.2, 0)).unwrap();
    let client = lab.client.clone();
    sh(&[
        "tc",
        "-n",
        &client,
        "qdisc",
        "add",
        "dev",
        &client_veth,
        "clsact",
    ])
    .unwrap();
    sh(&[
        "tc",
        "-n",
        &client,
        "filter",
        "add",
        "dev",
        &client_veth,
        "egress",
        "pref",
        "1",
        "bpf",
        "da",
        "obj",
        object.to_str().unwrap(),
        "sec",
        "tc",
    ])
    .unwrap();
    let _ = std::fs::remove_file(&object);
    start_stamp_suite_reflectors(&mut lab, &tool, false);
    for trial in dualperf_sender(&lab, 862, &[]) {
        let s = stamp(&trial);
        let forward = s["forward_lost"].as_u64().unwrap();
        let replies = s["replies"].as_u64().unwrap();
        let unattributed = s["unattributed_lost"].as_u64().unwrap();
        assert!((5..=45).contains(&forward), "forward loss {forward}: {s}");
        assert_eq!(s["reverse_lost"], 0, "{s}");
        assert_eq!(replies + forward + unattributed, PACKETS, "{s}");
        let udp = &trial["outcome"]["udp"];
        assert_eq!(udp["lost"].as_u64().unwrap(), PACKETS - replies);
    }
    stop_children(&mut lab);
    lab.spawn(
        &lab.server.clone(),
        &[
            env!("CARGO_BIN_EXE_dualperf"),
            "serve",
            "-p",
            "5226",
            "--stamp",
            "--stamp-port",
            "8620",
        ],
    )
    .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    for target in [V4, V6] {
        let summary = stamp_suite_sender(&lab, Path::new(&tool), target, 8620, false);
        let lost = summary["packets_lost"].as_u64().unwrap();
        assert!(
            (5..=45).contains(&lost),
            "stamp-suite saw {lost} lost: {summary}"
        );
        // The stateful reflector numbered only what reached it.
        let reflected = summary["measurements"]["last_reflector_sequence"]
            .as_u64()
            .unwrap();
        assert!(reflected < PACKETS - 1, "{summary}");
    }
    stop_children(&mut lab);
    sh(&[
        "tc",
        "-n",
        &client,
        "qdisc",
        "del",
        "dev",
        &client_veth,
        "clsact",
    ])
    .unwrap();

    // 4. An nftables rule on the path sets DSCP 0: the reflector's CoS TLV
    //    reports it in each family.
    let rules = "table inet dpst_remark {
  chain post {
    type filter hook postrouting priority 0; policy accept;
    ip daddr 10.226.0.2 udp dport 862 ip dscp set 0
    ip6 daddr fd20:26::2 udp dport 862 ip6 dscp set 0
  }
}
";
    let rules_file = work_file("remark.nft");
    std::fs::write(&rules_file, rules).unwrap();
    sh(&[
        "ip",
        "netns",
        "exec",
        &client,
        "nft",
        "-f",
        rules_file.to_str().unwrap(),
    ])
    .unwrap();
    let _ = std::fs::remove_file(&rules_file);
    start_stamp_suite_reflectors(&mut lab, &tool, false);
    let (trials, printed) = dualperf_run(&lab, 862, &["-S", "ef"]);
    for family in ["IPv4 EF", "IPv6 EF"] {
        let line = printed
            .lines()
            .find(|l| l.contains(&format!("] {family}:")));
        let line = line.unwrap_or_else(|| panic!("no STAMP line for {family}: {printed}"));
        assert!(
            line.contains("DSCP sent 46, reflector received 0 ×100 — re-marked"),
            "{line}"
        );
    }
    for trial in trials {
        let cos = &stamp(&trial)["class_of_service"];
        assert_eq!(cos["sent_dscp"], 46, "{cos}");
        assert_eq!(cos["reported"], PACKETS, "{cos}");
        assert_eq!(cos["remarked"], PACKETS, "{cos}");
        assert_eq!(
            cos["received_dscp"],
            serde_json::json!([[0, PACKETS]]),
            "{cos}"
        );
        // The reflector still marks its replies with the DSCP asked for (EF).
        assert_eq!(
            cos["reply_dscp"],
            serde_json::json!([[46, PACKETS]]),
            "{cos}"
        );
    }
    let _ = std::fs::remove_file(&key_file);
}
