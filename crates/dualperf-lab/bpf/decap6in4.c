// SPDX-License-Identifier: GPL-2.0
// 6in4 (IPv4 protocol 41) decapsulation, tc clsact ingress, cls_bpf
// direct-action: the receiving end of the lab's BPF 6in4 tunnel
// (kernel-recipes §1).
//
//   tc qdisc add dev DEV clsact
//   tc filter add dev DEV ingress pref N bpf da obj decap.o sec tc
//
// Only packets from the configured peer to the local endpoint are
// decapsulated (RFC 4213 §3.6); anything else returns TC_ACT_UNSPEC so the
// next filter (another tunnel ending on the same interface) or the stack
// sees it. The committed decap6in4.o is built with sentinel addresses
// LOCAL_V4 = 192.0.2.201 and PEER_V4 = 192.0.2.202 that the lab patches
// (src/bpf.rs).
//
// BPF_F_ADJ_ROOM_DECAP_L3_IPV6 (Linux >= 6.3) makes the kernel set
// skb->protocol to IPv6, so TC_ACT_OK hands the inner packet to ip6_rcv.
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#ifndef LOCAL_V4
#define LOCAL_V4 0xc00002c9 /* 192.0.2.201: sentinel, patched per node */
#endif
#ifndef PEER_V4
#define PEER_V4 0xc00002ca /* 192.0.2.202: sentinel, patched per node */
#endif

/* uapi value since Linux 6.3; Debian 12's linux-libc-dev (6.1) lacks it */
#define ADJ_ROOM_DECAP_L3_IPV6 (1ULL << 8)

#define HDRS (sizeof(struct ethhdr) + sizeof(struct iphdr) + sizeof(struct ipv6hdr))

SEC("tc")
int decap_6in4(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data; /* tc ingress: data starts at L2 */
	void *data_end = (void *)(long)skb->data_end;
	struct ethhdr *eth = data;
	struct iphdr *iph;
	struct ipv6hdr *ip6;

	if ((void *)(eth + 1) > data_end || eth->h_proto != bpf_htons(ETH_P_IP))
		return TC_ACT_UNSPEC;
	iph = (void *)(eth + 1);
	if ((void *)(iph + 1) > data_end || iph->protocol != IPPROTO_IPV6)
		return TC_ACT_UNSPEC;
	if (iph->ihl != 5) /* IPv4 options: leave to the stack */
		return TC_ACT_UNSPEC;
	if (iph->frag_off & bpf_htons(0x3fff)) /* MF or offset: no reassembly here */
		return TC_ACT_UNSPEC;
	if (iph->daddr != bpf_htonl(LOCAL_V4))
		return TC_ACT_UNSPEC;
	if (iph->saddr != bpf_htonl(PEER_V4)) /* RFC 4213 3.6: only the configured peer */
		return TC_ACT_UNSPEC;
	if (data + HDRS > data_end) { /* make the inner header linear */
		if (bpf_skb_pull_data(skb, HDRS))
			return TC_ACT_SHOT;
		data = (void *)(long)skb->data;
		data_end = (void *)(long)skb->data_end;
		if (data + HDRS > data_end)
			return TC_ACT_SHOT;
		eth = data;
	}
	ip6 = data + sizeof(struct ethhdr) + sizeof(struct iphdr);
	if (ip6->version != 6)
		return TC_ACT_SHOT;

	eth->h_proto = bpf_htons(ETH_P_IPV6); /* the L2 header is moved, not rebuilt */
	if (bpf_skb_adjust_room(skb, -(__s32)sizeof(struct iphdr), BPF_ADJ_ROOM_MAC,
				BPF_F_ADJ_ROOM_FIXED_GSO | ADJ_ROOM_DECAP_L3_IPV6))
		return TC_ACT_SHOT;
	return TC_ACT_OK; /* skb->protocol is now IPv6 */
}

char _license[] SEC("license") = "GPL";
