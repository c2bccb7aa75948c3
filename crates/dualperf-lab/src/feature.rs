//! The kernel features a testbed or measurement may need, as a type.
//!
//! The list lives apart from the probes ([`crate::capability`] says how each
//! one is tried and what its absence disables) so that errors can name a
//! missing feature without depending on the code that probes for it.

/// A kernel feature some testbed or measurement may need.
#[derive(Clone, Copy, Debug, Eq, Hash, PartialEq, Ord, PartialOrd)]
pub enum Feature {
    /// Virtual Ethernet pairs: every link.
    Veth,
    /// IPv6 enabled in new namespaces.
    Ipv6,
    /// IPv4 and IPv6 forwarding sysctls.
    Forwarding,
    /// Hierarchical token bucket qdisc.
    Htb,
    /// Token bucket filter qdisc.
    Tbf,
    /// Network emulator qdisc.
    Netem,
    /// Strict-priority qdisc.
    Prio,
    /// Fair queueing with controlled delay qdisc.
    FqCodel,
    /// Stochastic fair queueing qdisc.
    Sfq,
    /// IPv6-in-IPv4 (6in4) tunnel device.
    Sit,
    /// GRE tunnel device.
    Gre,
    /// IPv4-in-IPv4 tunnel device.
    Ipip,
    /// IPv4/IPv6-in-IPv6 tunnel device.
    Ip6tnl,
    /// VXLAN overlay device.
    Vxlan,
    /// nftables packet filtering and mangling.
    Nftables,
    /// LWT-BPF encapsulating routes and tc-BPF decapsulation (Linux >= 6.3):
    /// the recipe 6in4 tunnel.
    LwtBpf,
    /// SRv6 (`seg6` encapsulation, `seg6local` End.DX4): the recipe 4in6 tunnel.
    Seg6,
    /// The TAYGA NAT64 program and TUN devices.
    Tayga,
    /// The Jool NAT64 kernel module and its `jool` tool.
    Jool,
    /// tc BPF filters on clsact egress (cls_bpf): loss without netem.
    TcBpf,
    /// TAP devices: the user-space delay line without netem.
    Tap,
}
