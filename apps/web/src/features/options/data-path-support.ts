/**
 * What each data path does with the options of issue 27, as far as it is known now: the one
 * place the Options page (and nothing else) takes this wording from. The agents' work on these
 * options follows; whoever changes what a data path honours changes the sentence here with it.
 *
 * Known today (apps/agent): the user-space path accepts a connection before it picks a server,
 * so it resets (TCP reset) or closes (every other choice) and forwards no SCTP; the kernel path
 * forwards TCP and renders anything but TCP reset as a drop; the direct path forwards TCP and
 * SCTP and likewise drops. No agent yet sends ICMP rejects, enforces the rate limit, reads the
 * imbalance minimum or stops counting when accounting is off.
 */
export const DATA_PATH_SUPPORT = {
  tcpRejectOption:
    'TCP reset: every data path. Drop: the kernel and direct paths drop the SYN; the user-space path closes the connection it accepted. The ICMP choices are not sent by any data path yet: until an agent does, it treats them as Drop.',
  sctpRejectOption:
    'Only the direct data path forwards SCTP: it drops an INIT no server can take. The ICMP choices are not sent yet: until then they are treated as Drop.',
  imbalanceMinPps:
    'Not read by the agents yet: until they do, Out of Balance is judged at any rate.',
  accounting:
    'Not read by the agents yet: until they do, they count packets and bytes whatever this says.',
  packetRateLimitPps:
    'Not enforced by any data path yet: until an agent does, no packet is dropped for its rate.',
} as const;
