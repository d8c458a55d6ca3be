/** Messages the spec words exactly; the GUI shows them as they are. */
export const MESSAGES = {
  deleteAgeInadvisable: 'Reducing Delete Age below the default (600 s) is inadvisable',
  notOnXsi: 'must be on the XSI network',
  allWeightsZero: 'at least one server needs a non-zero weight',
  secondaryShouldComplement:
    'should complement the Active IPFE to give SCTP dual-homed traffic an alternative path',
  configureIpfe: 'Configure the IPFE address under IPFE › Configuration › Options',
  readOnly: 'This field cannot be changed',
  connectTimeoutTooShort: '1 s is refused (too short for reliable detection)',
  factorsBothZero: 'MPS Factor and Connection Count Factor cannot both be 0',
  leastLoadNeedsHeartbeat:
    'Least Load needs Application Server Monitoring set to Heartbeat (IPFE › Configuration › Options)',
} as const;
