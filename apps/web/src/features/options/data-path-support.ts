/**
 * What each data path does with the options of issue 27: the one place the Options page (and
 * nothing else) takes this wording from. Whoever changes what a data path honours (apps/agent:
 * nft-policies.ts, the nft script renderers, the user-space path in data-plane.ts, alarm-rules.ts)
 * changes the sentence here with it.
 */
export const DATA_PATH_SUPPORT = {
  tcpRejectOption:
    'TCP reset: every data path. Drop: the kernel and direct paths drop the SYN; the user-space path closes the connection it has accepted. The ICMP choices: the kernel and direct paths send them (their ICMPv6 equivalents to an IPv6 client); the user-space path cannot send ICMP and closes the connection instead.',
  sctpRejectOption:
    'Only the direct data path forwards SCTP: it drops an INIT no server can take, or answers it with the ICMP chosen (ICMPv6 to an IPv6 client).',
  imbalanceMinPps:
    'The kernel and direct paths count each Target Set’s packets and judge Out of Balance only at this rate or above; the user-space path counts no packets and judges it on new connections alone.',
  accounting:
    'Every data path stops counting the measurements (the Measurements page and their /metrics series stand still); refusals (TxReject), connection counts and the packet counts the alarms and the rate limit read go on.',
  packetRateLimitPps:
    'Enforced by the kernel and direct paths: each forwarded port’s packets, over every TSA of it, above the limit are dropped (alarm 5100 as the rate nears it, 5013 while dropping). The user-space path does not enforce it.',
} as const;
