// SPDX-License-Identifier: GPL-2.0
// Link emulation without netem (kernel-recipes §5), tc clsact egress,
// cls_bpf direct-action, on the sending end of an emulated link direction.
//
//   tc qdisc add dev DEV clsact
//   tc filter add dev DEV egress pref 1 bpf da obj linkem.o sec tc
//
// 1. Frames the lab's user-space delay line sends back out of DEV carry
//    skb->mark == LINKEM_MARK: they have been through the emulation already
//    and pass untouched (on to the rate limiter, if any).
// 2. Other IPv4 and IPv6 frames are dropped with probability
//    LOSS_THRESH / 2^32 (Bernoulli loss; bpf_get_prandom_u32). GSO
//    super-packets count once per segment (skb->gso_segs), so TCP through
//    the lab sees per-packet loss like netem's.
// 3. Survivors go to the delay line's TAP device (bpf_redirect to
//    DELAY_IFINDEX), which holds each for the delay and sends it back out
//    of DEV with the mark; DELAY_IFINDEX 0 means "no delay line": TC_ACT_OK.
//
// LOSS_THRESH and DELAY_IFINDEX are sentinels the lab patches in the
// object (src/bpf.rs): each is loaded with one 64-bit immediate load
// written in inline assembly, so the compiler cannot fold or transform it
// and the 4 little-endian bytes occur exactly once.
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#define LINKEM_MARK 0x0d5e1a7e /* also in src/bpf.rs */

static __always_inline __u32 loss_thresh(void)
{
	__u64 v;
	asm volatile("%0 = 0xd5100501 ll" : "=r"(v)); /* sentinel LOSS_THRESH */
	return (__u32)v;
}

static __always_inline __u32 delay_ifindex(void)
{
	__u64 v;
	asm volatile("%0 = 0xd5100502 ll" : "=r"(v)); /* sentinel DELAY_IFINDEX */
	return (__u32)v;
}

SEC("tc")
int link_emulation(struct __sk_buff *skb)
{
	if (skb->mark == LINKEM_MARK)
		return TC_ACT_OK;
	if (skb->protocol != bpf_htons(ETH_P_IP) && skb->protocol != bpf_htons(ETH_P_IPV6))
		return TC_ACT_OK;
	__u32 thresh = loss_thresh();
	if (thresh) {
		__u32 segs = skb->gso_segs;
		if (segs == 0)
			segs = 1;
		if (segs > 64)
			segs = 64;
		/* a super-packet is lost if any of its segments would be */
		for (__u32 i = 0; i < 64; i++) {
			if (i >= segs)
				break;
			if (bpf_get_prandom_u32() < thresh)
				return TC_ACT_SHOT;
		}
	}
	__u32 ifindex = delay_ifindex();
	if (ifindex)
		return bpf_redirect(ifindex, 0);
	return TC_ACT_OK;
}

char _license[] SEC("license") = "GPL";
