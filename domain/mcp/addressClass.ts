import ipaddr from 'ipaddr.js';

// Where an address points (domain/mcp/outbound.ts decides what may be reached from it). Its own module, free of the
// HTTP client, so that what only classifies an address (the operator CLI) does not load it.

/**
 * Where an address points, as far as outbound requests care. `refused`: link-local, cloud metadata, multicast,
 * broadcast, reserved and transition ranges that could reach any of those.
 */
export type AddressClass = 'public' | 'loopback' | 'private' | 'carrierGradeNat' | 'unspecified' | 'refused';

/** Cloud metadata endpoints outside link-local: Alibaba (in CGNAT space), Azure's wire server, AWS's IPv6 services. */
const METADATA_RANGES = ['100.100.100.200/32', '168.63.129.16/32', 'fd00:ec2::/32'].map((cidr) =>
  ipaddr.parseCIDR(cidr),
);

const IPV4_CLASSES: Record<string, AddressClass> = {
  unicast: 'public',
  loopback: 'loopback',
  private: 'private',
  carrierGradeNat: 'carrierGradeNat',
  unspecified: 'unspecified',
};

/** Classifies an IP address (v4, v6, IPv4-mapped or IPv4-embedding v6, with or without a zone index). */
export function classifyAddress(address: string): AddressClass {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address.replace(/^\[|\]$/g, ''));
  } catch {
    return 'refused';
  }
  if (METADATA_RANGES.some(([range, bits]) => parsed.kind() === range.kind() && parsed.match(range, bits)))
    return 'refused';
  if (parsed.kind() === 'ipv4') return IPV4_CLASSES[parsed.range()] ?? 'refused';
  const v6 = parsed as ipaddr.IPv6;
  const embedded = embeddedIPv4(v6);
  if (embedded) return classifyAddress(embedded);
  switch (v6.range()) {
    case 'unicast':
      return 'public';
    case 'loopback':
      return 'loopback';
    case 'uniqueLocal':
      // fc00::/7 is IPv6's private network space: one class with RFC 1918, so a dual-stack private network works.
      return 'private';
    case 'unspecified':
      return 'unspecified';
    default:
      return 'refused';
  }
}

/** The IPv4 address inside an IPv4-mapped, SIIT, NAT64 (well-known prefix) or 6to4 address, else undefined. */
function embeddedIPv4(address: ipaddr.IPv6): string | undefined {
  const parts = address.parts;
  const fromWords = (high: number, low: number) => [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
  const range = address.range();
  if (range === 'ipv4Mapped' || range === 'rfc6145') return fromWords(parts[6], parts[7]);
  if (range === 'rfc6052' && parts[2] === 0) return fromWords(parts[6], parts[7]); // 64:ff9b::/96
  if (range === '6to4') return fromWords(parts[1], parts[2]);
  return undefined;
}
