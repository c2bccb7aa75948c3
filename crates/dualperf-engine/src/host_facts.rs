//! Facts about the measuring host, stored with every result: tool version,
//! kernel, OS, CPU, memory, TCP congestion control, default qdisc, and each
//! interface's MTU, addresses, root qdisc and offloads. A number without
//! its conditions is useless.
//!
//! [`collect_host_facts`] never fails: a fact that cannot be read stays
//! empty (empty string, 0, `None`, empty list). Each reader is a small
//! function; the text formats (`/etc/os-release`, `/proc/cpuinfo`,
//! `/proc/meminfo`, `tc -j` JSON) have pure parsers tested on known text.
//!
//! Network facts are read **in the calling thread's network namespace**,
//! because the lab runs measurements on threads that `setns(2)` into a
//! namespace. So interfaces come from `getifaddrs(3)` (netlink, per
//! thread) and MTUs from the `SIOCGIFMTU` ioctl, never from
//! `/sys/class/net`, which shows the namespace that mounted `/sys`; the
//! namespace is identified through `/proc/thread-self/ns/net`, not
//! `/proc/self` (the main thread's). Child processes (`tc`) inherit the
//! calling thread's namespace.
//!
//! Shell equivalents: `uname -a`, `ip -j addr`, `tc -j qdisc show`,
//! `ethtool -k DEV`, `ip netns identify`.

use std::collections::BTreeMap;
use std::ffi::CStr;
use std::mem::size_of;
use std::net::{Ipv4Addr, Ipv6Addr};
use std::os::unix::fs::MetadataExt;
use std::process::{Command, Stdio};

use dualperf_model::{HostFacts, InterfaceFacts};

/// Collects every fact it can about this host, as seen from the calling
/// thread's network namespace. Never fails; runs `tc` once (if installed).
pub fn collect_host_facts() -> HostFacts {
    let (hostname, kernel) = uname();
    HostFacts {
        tool_version: env!("CARGO_PKG_VERSION").to_string(),
        hostname,
        kernel,
        os: read("/etc/os-release")
            .or_else(|| read("/usr/lib/os-release"))
            .and_then(|text| parse_os_release(&text))
            .unwrap_or_default(),
        cpu_model: read("/proc/cpuinfo")
            .and_then(|text| parse_cpu_model(&text))
            .unwrap_or_default(),
        cpu_count: online_cpus(),
        memory_bytes: read("/proc/meminfo")
            .and_then(|text| parse_mem_total_bytes(&text))
            .unwrap_or(0),
        tcp_congestion_control: read_trimmed("/proc/sys/net/ipv4/tcp_congestion_control"),
        default_qdisc: read_trimmed("/proc/sys/net/core/default_qdisc"),
        interfaces: interfaces(),
        netns: netns_name(),
    }
}

/// A file's text, `None` if unreadable.
fn read(path: &str) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

/// A one-line file (a sysctl) trimmed, empty if unreadable.
fn read_trimmed(path: &str) -> String {
    read(path)
        .map(|text| text.trim().to_string())
        .unwrap_or_default()
}

/// (host name, "release version") from `uname(2)`.
fn uname() -> (String, String) {
    // SAFETY: utsname is plain bytes; uname only writes into it.
    let mut names: libc::utsname = unsafe { std::mem::zeroed() };
    // SAFETY: `names` is a valid, writable utsname.
    if unsafe { libc::uname(&mut names) } != 0 {
        return (String::new(), String::new());
    }
    let text = |field: &[libc::c_char]| {
        // SAFETY: uname NUL-terminates every field within its array.
        unsafe { CStr::from_ptr(field.as_ptr()) }
            .to_string_lossy()
            .into_owned()
    };
    let kernel = format!("{} {}", text(&names.release), text(&names.version));
    (text(&names.nodename), kernel)
}

/// `PRETTY_NAME` of an os-release file (`os-release(5)`), unquoted.
pub fn parse_os_release(text: &str) -> Option<String> {
    text.lines().find_map(|line| {
        let value = line.trim().strip_prefix("PRETTY_NAME=")?;
        let unquoted = value
            .strip_prefix('"')
            .and_then(|v| v.strip_suffix('"'))
            .or_else(|| value.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')))
            .unwrap_or(value);
        Some(unquoted.replace("\\\"", "\"").replace("\\\\", "\\"))
    })
}

/// The CPU model of `/proc/cpuinfo`: `model name` (x86), else `Model`,
/// `cpu model` or `Hardware` (ARM, MIPS), else `cpu` (POWER).
pub fn parse_cpu_model(text: &str) -> Option<String> {
    ["model name", "Model", "cpu model", "Hardware", "cpu"]
        .iter()
        .find_map(|key| {
            text.lines().find_map(|line| {
                let (name, value) = line.split_once(':')?;
                (name.trim() == *key && !value.trim().is_empty()).then(|| value.trim().to_string())
            })
        })
}

/// `MemTotal` of `/proc/meminfo` (`proc(5)`), converted from kB (KiB) to
/// bytes.
pub fn parse_mem_total_bytes(text: &str) -> Option<u64> {
    text.lines().find_map(|line| {
        let rest = line.strip_prefix("MemTotal:")?;
        let kib: u64 = rest.trim().trim_end_matches("kB").trim().parse().ok()?;
        Some(kib * 1024)
    })
}

/// Online CPUs: `/sys/devices/system/cpu/online` (a CPU list), else
/// `sysconf(_SC_NPROCESSORS_ONLN)`.
fn online_cpus() -> u32 {
    if let Some(cpus) = read("/sys/devices/system/cpu/online")
        .and_then(|text| crate::affinity::parse_cpu_list(&text).ok())
    {
        return cpus.len() as u32;
    }
    // SAFETY: sysconf has no preconditions.
    let online = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
    u32::try_from(online).unwrap_or(0)
}

/// Root qdisc kind per device from the JSON of `tc -j qdisc show`: entries
/// with `"root": true`.
pub fn parse_tc_root_qdiscs(json: &str) -> BTreeMap<String, String> {
    let mut roots = BTreeMap::new();
    let Ok(serde_json::Value::Array(entries)) = serde_json::from_str(json) else {
        return roots;
    };
    for entry in entries {
        let is_root = entry.get("root").and_then(|v| v.as_bool()) == Some(true);
        let dev = entry.get("dev").and_then(|v| v.as_str());
        let kind = entry.get("kind").and_then(|v| v.as_str());
        if let (true, Some(dev), Some(kind)) = (is_root, dev, kind) {
            roots.insert(dev.to_string(), kind.to_string());
        }
    }
    roots
}

/// Runs `tc -j qdisc show` (empty map if tc is missing or fails).
fn root_qdiscs() -> BTreeMap<String, String> {
    Command::new("tc")
        .args(["-j", "qdisc", "show"])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()
        .filter(|output| output.status.success())
        .map(|output| parse_tc_root_qdiscs(&String::from_utf8_lossy(&output.stdout)))
        .unwrap_or_default()
}

/// Interfaces of the calling thread's namespace, ordered by ifindex, with
/// MTU, addresses (`ADDR/PREFIX`), root qdisc and offloads.
fn interfaces() -> Vec<InterfaceFacts> {
    let Some(addresses) = interface_addresses() else {
        return Vec::new();
    };
    let qdiscs = root_qdiscs();
    let control = ControlSocket::open();
    let mut list: Vec<(u32, InterfaceFacts)> = addresses
        .into_iter()
        .map(|(name, addresses)| {
            let index = std::ffi::CString::new(name.clone())
                // SAFETY: a valid NUL-terminated name.
                .map(|c| unsafe { libc::if_nametoindex(c.as_ptr()) })
                .unwrap_or(0);
            let facts = InterfaceFacts {
                mtu_bytes: control.as_ref().and_then(|c| c.mtu(&name)).unwrap_or(0),
                qdisc: qdiscs.get(&name).cloned(),
                offloads: control
                    .as_ref()
                    .map(|c| c.offloads(&name))
                    .unwrap_or_default(),
                addresses,
                name,
            };
            (index, facts)
        })
        .collect();
    list.sort_by(|a, b| (a.0, &a.1.name).cmp(&(b.0, &b.1.name)));
    list.into_iter().map(|(_, facts)| facts).collect()
}

/// Every interface name (from the `AF_PACKET` entries glibc adds for each
/// link) with its IPv4 and IPv6 addresses, via `getifaddrs(3)`.
fn interface_addresses() -> Option<BTreeMap<String, Vec<String>>> {
    let mut head: *mut libc::ifaddrs = std::ptr::null_mut();
    // SAFETY: getifaddrs writes a list head we free below.
    if unsafe { libc::getifaddrs(&mut head) } != 0 {
        return None;
    }
    let mut interfaces: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut cursor = head;
    while !cursor.is_null() {
        // SAFETY: a node of the list getifaddrs returned, alive until freed.
        let entry = unsafe { &*cursor };
        cursor = entry.ifa_next;
        if entry.ifa_name.is_null() {
            continue;
        }
        // SAFETY: ifa_name is a NUL-terminated interface name.
        let name = unsafe { CStr::from_ptr(entry.ifa_name) }
            .to_string_lossy()
            .into_owned();
        let addresses = interfaces.entry(name).or_default();
        // SAFETY: non-null sockaddr pointers of the matching family.
        if let Some(address) = unsafe { format_address(entry.ifa_addr, entry.ifa_netmask) } {
            addresses.push(address);
        }
    }
    // SAFETY: `head` came from getifaddrs and is freed once.
    unsafe { libc::freeifaddrs(head) };
    Some(interfaces)
}

/// `ADDR/PREFIX` for an IPv4 or IPv6 sockaddr and its netmask.
///
/// # Safety
/// Each pointer is null or points to a sockaddr of the size its family implies.
unsafe fn format_address(
    address: *const libc::sockaddr,
    netmask: *const libc::sockaddr,
) -> Option<String> {
    if address.is_null() {
        return None;
    }
    match i32::from((*address).sa_family) {
        libc::AF_INET => {
            let ip = (*(address as *const libc::sockaddr_in)).sin_addr.s_addr;
            let prefix = if netmask.is_null() {
                32
            } else {
                (*(netmask as *const libc::sockaddr_in))
                    .sin_addr
                    .s_addr
                    .count_ones()
            };
            Some(format!("{}/{prefix}", Ipv4Addr::from(u32::from_be(ip))))
        }
        libc::AF_INET6 => {
            let ip = (*(address as *const libc::sockaddr_in6)).sin6_addr.s6_addr;
            let prefix = if netmask.is_null() {
                128
            } else {
                (*(netmask as *const libc::sockaddr_in6))
                    .sin6_addr
                    .s6_addr
                    .iter()
                    .map(|b| b.count_ones())
                    .sum()
            };
            Some(format!("{}/{prefix}", Ipv6Addr::from(ip)))
        }
        _ => None,
    }
}

/// `struct ifreq` (`netdevice(7)`): a name and a 24-byte union of which we
/// use the `int` (MTU) and the pointer (ethtool request).
#[repr(C)]
union IfReqValue {
    mtu: libc::c_int,
    data: *mut libc::c_void,
    _size: [u8; 24],
}

#[repr(C)]
struct IfReq {
    name: [libc::c_char; libc::IFNAMSIZ],
    value: IfReqValue,
}

impl IfReq {
    /// A request for interface `name`, `None` if the name does not fit.
    fn new(name: &str) -> Option<IfReq> {
        if name.len() >= libc::IFNAMSIZ || name.contains('\0') {
            return None;
        }
        let mut request = IfReq {
            name: [0; libc::IFNAMSIZ],
            value: IfReqValue { _size: [0; 24] },
        };
        for (slot, byte) in request.name.iter_mut().zip(name.bytes()) {
            *slot = byte as libc::c_char;
        }
        Some(request)
    }
}

/// `struct ethtool_value` (include/uapi/linux/ethtool.h).
#[repr(C)]
struct EthtoolValue {
    cmd: u32,
    data: u32,
}

/// `SIOCETHTOOL` (include/uapi/linux/sockios.h).
const SIOCETHTOOL: libc::c_ulong = 0x8946;

/// Legacy ethtool "get" commands still answered by every driver, with the
/// short names HostFacts uses (`ethtool -k` long names in comments).
const OFFLOAD_COMMANDS: [(u32, &str); 4] = [
    (0x0000_0018, "sg"),  // ETHTOOL_GSG: scatter-gather
    (0x0000_001e, "tso"), // ETHTOOL_GTSO: tcp-segmentation-offload
    (0x0000_0023, "gso"), // ETHTOOL_GGSO: generic-segmentation-offload
    (0x0000_002b, "gro"), // ETHTOOL_GGRO: generic-receive-offload
];

/// A datagram socket in the calling thread's namespace, for interface ioctls.
struct ControlSocket(libc::c_int);

impl ControlSocket {
    fn open() -> Option<ControlSocket> {
        // SAFETY: plain socket(2); closed in Drop.
        let fd = unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) };
        (fd >= 0).then_some(ControlSocket(fd))
    }

    /// MTU of `name`, bytes (`SIOCGIFMTU`, as in `ip link show`).
    fn mtu(&self, name: &str) -> Option<u32> {
        let mut request = IfReq::new(name)?;
        // SAFETY: `request` is a valid ifreq; the kernel writes the MTU into it.
        let rc = unsafe { libc::ioctl(self.0, libc::SIOCGIFMTU as _, &mut request) };
        if rc != 0 {
            return None;
        }
        // SAFETY: SIOCGIFMTU filled the int member.
        u32::try_from(unsafe { request.value.mtu }).ok()
    }

    /// Offloads that are on for `name` (`ethtool -k NAME`), short names.
    fn offloads(&self, name: &str) -> Vec<String> {
        OFFLOAD_COMMANDS
            .iter()
            .filter(|(command, _)| self.ethtool_flag(name, *command) == Some(true))
            .map(|(_, label)| label.to_string())
            .collect()
    }

    fn ethtool_flag(&self, name: &str, command: u32) -> Option<bool> {
        let mut value = EthtoolValue {
            cmd: command,
            data: 0,
        };
        let mut request = IfReq::new(name)?;
        request.value.data = (&mut value as *mut EthtoolValue).cast();
        // SAFETY: `request` points at `value`, alive for the call; the kernel
        // copies an ethtool_value in and out.
        let rc = unsafe { libc::ioctl(self.0, SIOCETHTOOL as _, &mut request) };
        (rc == 0).then_some(value.data != 0)
    }
}

impl Drop for ControlSocket {
    fn drop(&mut self) {
        // SAFETY: we own the descriptor.
        unsafe { libc::close(self.0) };
    }
}

/// The name under `/run/netns` (`ip netns`) of the calling thread's network
/// namespace, matched by device and inode, or `None` (the initial namespace,
/// or one not created by `ip netns`).
fn netns_name() -> Option<String> {
    let own = std::fs::metadata("/proc/thread-self/ns/net")
        .or_else(|_| std::fs::metadata("/proc/self/ns/net"))
        .ok()?;
    find_netns_in("/run/netns", own.dev(), own.ino())
}

/// The entry of `directory` whose (device, inode) is the given namespace's.
fn find_netns_in(directory: &str, dev: u64, ino: u64) -> Option<String> {
    let entries = std::fs::read_dir(directory).ok()?;
    entries.flatten().find_map(|entry| {
        let metadata = std::fs::metadata(entry.path()).ok()?;
        (metadata.dev() == dev && metadata.ino() == ino)
            .then(|| entry.file_name().to_string_lossy().into_owned())
    })
}

/// The `ip netns` name of the calling thread's network namespace, or `None`
/// (see [`HostFacts::netns`]).
pub fn current_netns_name() -> Option<String> {
    netns_name()
}

const _: () = assert!(size_of::<IfReq>() == 40);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pretty_name_is_unquoted() {
        let text =
            "NAME=\"Debian GNU/Linux\"\nPRETTY_NAME=\"Debian GNU/Linux 13 (trixie)\"\nID=debian\n";
        assert_eq!(
            parse_os_release(text).as_deref(),
            Some("Debian GNU/Linux 13 (trixie)")
        );
        assert_eq!(
            parse_os_release("PRETTY_NAME=Plain\n").as_deref(),
            Some("Plain")
        );
        assert_eq!(parse_os_release("ID=x\n"), None);
    }

    #[test]
    fn cpu_model_is_read_from_x86_and_arm_formats() {
        let x86 = "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 7B13\n";
        assert_eq!(parse_cpu_model(x86).as_deref(), Some("AMD EPYC 7B13"));
        let arm = "processor\t: 0\nBogoMIPS\t: 108.00\nModel\t\t: Raspberry Pi 4 Model B Rev 1.4\n";
        assert_eq!(
            parse_cpu_model(arm).as_deref(),
            Some("Raspberry Pi 4 Model B Rev 1.4")
        );
        assert_eq!(parse_cpu_model("processor: 0\n"), None);
    }

    #[test]
    fn mem_total_is_converted_from_kib() {
        let text = "MemTotal:       24576000 kB\nMemFree:        1000 kB\n";
        assert_eq!(parse_mem_total_bytes(text), Some(24_576_000 * 1024));
        assert_eq!(parse_mem_total_bytes("MemFree: 1 kB\n"), None);
    }

    #[test]
    fn tc_json_yields_root_qdiscs_only() {
        let json = r#"[{"kind":"noqueue","handle":"0:","dev":"lo","root":true,"refcnt":2,"options":{}},
            {"kind":"mq","handle":"0:","dev":"eth0","root":true},
            {"kind":"pfifo_fast","handle":"0:","dev":"eth0","parent":":1"}]"#;
        let roots = parse_tc_root_qdiscs(json);
        assert_eq!(roots.len(), 2);
        assert_eq!(roots["lo"], "noqueue");
        assert_eq!(roots["eth0"], "mq");
        assert!(parse_tc_root_qdiscs("not json").is_empty());
    }

    #[test]
    fn this_host_has_a_kernel_cpus_memory_and_loopback() {
        let facts = collect_host_facts();
        assert_eq!(facts.tool_version, env!("CARGO_PKG_VERSION"));
        assert!(facts
            .kernel
            .contains(&read_trimmed("/proc/sys/kernel/osrelease")));
        assert!(!facts.hostname.is_empty());
        assert!(facts.cpu_count >= 1);
        assert!(facts.memory_bytes > 1 << 20);
        assert!(!facts.tcp_congestion_control.is_empty());
        let lo = facts
            .interfaces
            .iter()
            .find(|i| i.name == "lo")
            .expect("loopback is listed");
        assert_eq!(
            lo.mtu_bytes.to_string(),
            read_trimmed("/sys/class/net/lo/mtu")
        );
        assert!(lo.addresses.contains(&"127.0.0.1/8".to_string()), "{lo:?}");
        if std::path::Path::new("/proc/sys/net/ipv6").exists() {
            assert!(lo.addresses.contains(&"::1/128".to_string()), "{lo:?}");
        }
        // Loopback segments in software: GSO is on for it on every kernel.
        assert!(lo.offloads.contains(&"gso".to_string()), "{lo:?}");
        if which_tc() {
            assert_eq!(lo.qdisc.as_deref(), Some("noqueue"));
        }
        assert_eq!(facts.interfaces[0].name, "lo", "ordered by ifindex");
    }

    fn which_tc() -> bool {
        Command::new("tc")
            .arg("-V")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok()
    }

    /// A network namespace made by `ip netns add`, deleted on drop.
    struct TestNamespace(String);

    impl Drop for TestNamespace {
        fn drop(&mut self) {
            let _ = Command::new("ip")
                .args(["netns", "delete", &self.0])
                .status();
        }
    }

    #[test]
    fn facts_taken_inside_a_namespace_name_it_and_list_only_its_interfaces() {
        let name = format!("dpy-{}-hf", std::process::id());
        let created = Command::new("ip")
            .args(["netns", "add", &name])
            .stderr(Stdio::null())
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
        if !created {
            assert!(
                std::env::var_os("DUALPERF_REQUIRE_PRIVILEGED").is_none(),
                "privileged test cannot run: `ip netns add` failed (CAP_SYS_ADMIN missing?)"
            );
            eprintln!("skipped: needs root to create a network namespace");
            return;
        }
        let namespace = TestNamespace(name.clone());
        let path = format!("/run/netns/{name}");
        let facts = std::thread::spawn(move || {
            let file = std::fs::File::open(&path).expect("namespace file exists");
            use std::os::fd::AsRawFd;
            // SAFETY: a namespace fd; setns switches only this thread.
            let rc = unsafe { libc::setns(file.as_raw_fd(), libc::CLONE_NEWNET) };
            assert_eq!(rc, 0, "setns: {}", std::io::Error::last_os_error());
            collect_host_facts()
        })
        .join()
        .unwrap();
        assert_eq!(facts.netns.as_deref(), Some(name.as_str()));
        let names: Vec<&str> = facts.interfaces.iter().map(|i| i.name.as_str()).collect();
        assert_eq!(names, vec!["lo"], "a fresh namespace has only loopback");
        drop(namespace);
        assert!(!std::path::Path::new(&format!("/run/netns/{name}")).exists());
    }

    #[test]
    fn the_test_runners_own_namespace_is_not_misnamed() {
        // The initial namespace has no /run/netns entry (unless someone
        // bound it there): whatever is found must really be ours.
        if let Some(name) = netns_name() {
            let own = std::fs::metadata("/proc/thread-self/ns/net").unwrap();
            let entry = std::fs::metadata(format!("/run/netns/{name}")).unwrap();
            assert_eq!(own.ino(), entry.ino());
        }
    }
}
