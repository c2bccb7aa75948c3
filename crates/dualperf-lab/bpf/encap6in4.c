// SPDX-License-Identifier: GPL-2.0
// 6in4 (RFC 4213, IPv4 protocol 41) encapsulation as an LWT "xmit" program,
// the lab's 6in4 tunnel on kernels without `sit` (kernel-recipes §1).
//
// Attached by the lab to the route of each address the tunnel carries:
//   ip -6 route add ADDR/128 encap bpf xmit obj encap.o section lwt_xmit headroom 20 dev DEV
// `headroom 20` makes the route's MTU 1480 on a 1500-byte path, so the
// kernel answers larger packets with ICMPv6 Packet Too Big.
//
// The committed encap6in4.o is built with sentinel addresses (make.sh):
// TUN_SRC = 192.0.2.201 and TUN_DST = 192.0.2.202, whose little-endian
// immediates are >= 2^31, so clang loads them with ld_imm64 and the lab can
// patch any real address into the one instruction that holds each
// (src/bpf.rs). The header checksum is left 0 so the kernel computes it
// (bpf_lwt_push_ip_encap): patching never leaves a stale folded checksum.
#include <linux/bpf.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#ifndef TUN_SRC
#define TUN_SRC 0xc00002c9 /* 192.0.2.201: sentinel, patched per node */
#endif
#ifndef TUN_DST
#define TUN_DST 0xc00002ca /* 192.0.2.202: sentinel, patched per node */
#endif
#define TUN_TTL 64

SEC("lwt_xmit")
int encap_6in4(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data; /* LWT: data starts at L3 */
	void *data_end = (void *)(long)skb->data_end;
	struct ipv6hdr *ip6 = data;
	struct iphdr iph = {};

	if ((void *)(ip6 + 1) > data_end)
		return BPF_DROP;
	if (ip6->version != 6)
		return BPF_OK;

	iph.version = 4;
	iph.ihl = 5;
	/* the inner traffic class (DSCP + ECN) becomes the outer TOS (RFC 2983) */
	iph.tos = (ip6->priority << 4) | (ip6->flow_lbl[0] >> 4);
	iph.tot_len = bpf_htons(skb->len + sizeof(iph));
	iph.id = 0;
	/* DF: the tc decapsulator cannot reassemble, so the tunnel never fragments */
	iph.frag_off = bpf_htons(0x4000);
	iph.ttl = TUN_TTL;
	iph.protocol = IPPROTO_IPV6; /* 41 */
	iph.saddr = bpf_htonl(TUN_SRC);
	iph.daddr = bpf_htonl(TUN_DST);
	iph.check = 0; /* bpf_lwt_push_ip_encap() fills it in */

	if (bpf_lwt_push_encap(skb, BPF_LWT_ENCAP_IP, &iph, sizeof(iph)))
		return BPF_DROP;
	/* the protocol changed from 6 to 4: route again on the outer IPv4 header */
	return BPF_LWT_REROUTE;
}

char _license[] SEC("license") = "GPL";
